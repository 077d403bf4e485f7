import type { DuckDBConnection } from "@duckdb/node-api";
import { decodeAccountHour } from "../capnp/decodeAccountHour.js";
import type { BadFileError } from "../base/errors.js";
import type { AccountHour } from "../input/types.js";
import type { ColumnSelection } from "./columnBatch.js";
import type { ImpossibleValue } from "./impossibleValues.js";
import type { LoadManifest } from "./loadManifest.js";
import { DATA_TABLES, type DataTable } from "./dataTables.js";
import { inlineStager, type StagedGroup, type Stager } from "./stageHours.js";
import { GroupStaging } from "./groupStaging.js";
import { jobOf } from "./hourJob.js";
import { LoadBook, type LoadOutcome } from "./loadBook.js";

export type { LoadOutcome } from "./loadBook.js";

/**
 * Where a load's staged account-hours go (a database's tables, or nowhere but the taps' own
 * sums when billing files as they stream), batch by batch, in input order. A target implements
 * only what it needs: billing from files keeps the impossible values of each commit, nothing else.
 */
export interface LoadTarget {
  /** Before the first group. */
  begin?(): Promise<void>;
  /** The staged rows of a group's loaded account-hours, `loadedBytes` of input. */
  add?(staged: StagedGroup, loadedBytes: number, loadedFiles: number): Promise<void>;
  /** Ends a batch: `writeManifest` and the batch's impossible values commit with its rows. */
  commit?(writeManifest: (connection: DuckDBConnection) => Promise<void>, impossible: ImpossibleValue[]): Promise<void>;
  /** Deletes the rows of account-hours loaded by an earlier run, which this one replaces. */
  deleteHours?(hours: readonly { accountId: number; hourEpoch: number }[]): Promise<void>;
  /** After the last commit: waits for the writes. */
  settle?(): Promise<void>;
  /** After an error: drops what is not committed. */
  abort?(): Promise<void>;
  /** After the load, whatever its outcome. */
  end?(): Promise<void>;
}

/** How {@link loadSources} treats what it finds. */
export interface LoadRules {
  /** Record bad files and conflicts as skipped (manifest `rejected`) and go on. Default false: collect them as errors. */
  skipBad?: boolean;
  /** A different file for an account-hour already in the manifest replaces it (`ingest --replace`). Default false: a conflict. */
  replace?: boolean;
  /** Once an error is found (and not skipBad), stop appending data (the load will fail anyway). Default false. */
  stopOnError?: boolean;
  /** The data tables to fill. Default: all. */
  tables?: readonly DataTable[];
  /** The columns to fill, by table (the tables must have only these). Default: all. */
  columns?: ColumnSelection;
  /** Commit after this many input bytes. Default 32 MiB. */
  batchBytes?: number;
  /** Commit after this many files loaded, at most (a batch's manifest rows and DuckDB's uncommitted rows and keys grow with its files). Default: no bound. */
  batchFiles?: number;
  /** Input bytes per group handed to the stager (decoded and staged together; the first groups are smaller). Default 1 MiB. */
  groupBytes?: number;
  /**
   * Decodes one file on its own (as an account-hour of that file), throwing its BadFileError:
   * asked only of files that would otherwise conflict, to tell a damaged copy (bad on its
   * own) from a conflicting one. Default: the Cap'n Proto decoder.
   */
  decode?: (hour: AccountHour) => unknown;
  /** Makes the stager that decodes groups (called once, when the first group is ready). Default: decode in this thread. */
  stager?: () => Stager;
}

/**
 * Loads account-hours into a target and the manifest: hashes every file, drops
 * byte-identical duplicates, finds conflicts (within the inputs, and with the hours the
 * manifest already holds), decodes and stages groups of hours (on workers when the stager
 * has them, results applied in input order), and hands them to the target in batches, each
 * committed with its manifest rows. Files the reader left unread (`deferred`) are read where
 * they are decoded. Bad files reported by the reader are passed in `readerBadFiles` (filled
 * while iterating) and handled like decode errors.
 */
export async function loadSources(
  target: LoadTarget,
  hours: AsyncIterable<AccountHour>,
  manifest: LoadManifest,
  readerBadFiles: BadFileError[],
  rules: LoadRules = {},
): Promise<LoadOutcome> {
  const book = new LoadBook(manifest, rules.skipBad ?? false, readerBadFiles);
  const jobRules = { decode: rules.decode ?? decodeAccountHour, replace: rules.replace ?? false };
  const staging = new GroupStaging(target, book, {
    tables: rules.tables ?? DATA_TABLES,
    columns: rules.columns,
    batchBytes: rules.batchBytes ?? 32 * 1024 * 1024,
    batchFiles: rules.batchFiles ?? Number.POSITIVE_INFINITY,
    groupBytes: rules.groupBytes ?? 1024 * 1024,
    stopOnError: rules.stopOnError ?? false,
    stager: rules.stager ?? inlineStager,
  });
  await target.begin?.();
  try {
    for await (const hour of hours) {
      const covering = manifest.cover?.(hour.accountId, hour.hourEpoch);
      if (covering !== undefined) await covering;
      const job = jobOf(hour, book, jobRules);
      if (job !== undefined) await staging.push(job);
    }
    await staging.finish();
    await target.settle?.();
    book.outcome.tapped = await staging.collect();
  } catch (error) {
    await target.abort?.();
    throw error;
  } finally {
    await staging.close();
    await target.end?.();
  }
  return book.outcome;
}
