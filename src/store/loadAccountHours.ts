import type { DuckDBConnection } from "@duckdb/node-api";
import type { BadFileError } from "../base/errors.js";
import type { AccountHour } from "../input/types.js";
import { BatchWriter } from "./batchWriter.js";
import { appendImpossibleValues } from "../load/impossibleValues.js";
import { loadSources, type LoadOutcome, type LoadRules, type LoadTarget } from "../load/loadSources.js";
import type { Manifest } from "./manifest.js";
import { DATA_TABLES } from "./schema.js";

export type { LoadOutcome, LoadRules, LoadTarget } from "../load/loadSources.js";

/**
 * DuckDB's threads while loading. The inserts take their rows from the JavaScript thread a
 * chunk at a time, so one thread inserts as fast as two, and two burn more CPU for the same
 * time (docs/performance.md, "Ingest"), CPU the decoding worker needs on a small machine. The database's own
 * setting is restored for what runs after the load.
 */
const LOAD_THREADS = 1;

/** A load's rules, with what the target needs of its database. */
export interface DatabaseRules extends LoadRules {
  /** More connections to the same database (see {@link databaseTarget}). */
  moreConnections?: readonly DuckDBConnection[];
  /** The memory cap the database was opened with: raised while batches of long texts wait for their commit. */
  memoryLimitBytes?: number;
  /** The cap to raise it to once the files loaded average 16 KiB or more (see `BatchWriter`). */
  largeFilesMemoryLimitBytes?: number;
}

/**
 * The tables of a database as a load's target: a BatchWriter inserts the staged columns in
 * batches, each committed in one transaction with its manifest rows and impossible values.
 * `moreConnections` to the same database: batches take turns on them, so the next batch
 * inserts while the previous one commits (commits stay in order).
 */
export function databaseTarget(connection: DuckDBConnection, rules: DatabaseRules = {}): Required<LoadTarget> {
  const writer = new BatchWriter(
    [connection, ...(rules.moreConnections ?? [])],
    rules.tables ?? DATA_TABLES,
    rules.columns,
    rules.memoryLimitBytes,
    rules.largeFilesMemoryLimitBytes,
  );
  let threads: number | undefined;
  return {
    begin: async () => {
      threads = Number(
        (await connection.runAndReadAll("SELECT current_setting('threads') AS n")).getRowObjectsJS()[0]!.n,
      );
      await connection.run("SET threads = $threads", { threads: LOAD_THREADS });
    },
    add: (staged, loadedBytes, loadedFiles) => writer.add(staged.batch, loadedBytes, loadedFiles),
    commit: (writeManifest, impossible) =>
      writer.commit(async (c) => {
        await writeManifest(c);
        await appendImpossibleValues(c, impossible);
      }),
    // No other statement of this run overlaps the deletes (their rows were committed by an earlier run).
    deleteHours: (hours) =>
      writer.exclusive(async (current) => {
        for (const hour of hours) {
          for (const table of [...DATA_TABLES, "impossible_values"]) {
            await current.run(`DELETE FROM ${table} WHERE account_id = $a AND hour_epoch = $h`, {
              a: hour.accountId,
              h: hour.hourEpoch,
            });
          }
        }
      }),
    settle: () => writer.settle(),
    abort: () => writer.abort(),
    end: async () => {
      // only speed depends on it; never hide the load's own error
      if (threads !== undefined) await connection.run("SET threads = $threads", { threads }).catch(() => {});
    },
  };
}

/**
 * Loads account-hours into the data tables of `connection` and the manifest (see
 * `loadSources`): every file hashed, duplicates dropped, conflicts and bad files found,
 * groups decoded and staged as columns, inserted in batches each committed in one
 * transaction with its manifest rows.
 */
export async function loadAccountHours(
  connection: DuckDBConnection,
  hours: AsyncIterable<AccountHour>,
  manifest: Manifest,
  readerBadFiles: BadFileError[],
  rules: DatabaseRules = {},
): Promise<LoadOutcome> {
  return loadSources(databaseTarget(connection, rules), hours, manifest, readerBadFiles, rules);
}
