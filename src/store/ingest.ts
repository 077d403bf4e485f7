import type { DuckDBConnection, DuckDBInstance } from "@duckdb/node-api";
import { BadInputError, UsageError, type BadFileError, type ConflictError } from "../base/errors.js";
import type { ReadProgress } from "../input/types.js";
import { chooseStager } from "../load/chooseStager.js";
import { isDuckDb } from "../input/indexInputs.js";
import { loadAccountHours } from "./loadAccountHours.js";
import { loadReader } from "../load/loadReader.js";
import { Manifest, type ManifestScope } from "./manifest.js";
import { openDatabaseFile } from "./openDatabaseFile.js";
import { storageErrorOf } from "./storageError.js";
import type { LoadReport } from "./types.js";
import { clockNow } from "../base/clock.js";

/**
 * DuckDB's memory while ingesting: written blocks are not kept cached, so peak memory stays
 * flat whatever the input size (a larger batch spills to the file and its temporary
 * directory); the speed is the same. DuckDB fills what it is given over a long load and not
 * over a short one, so its cap is most of how a large load's peak exceeds a small one's: 64 MiB,
 * as the engine's readers (96 before; 32 failed a commit: docs/performance.md).
 */
const INGEST_MEMORY_LIMIT_BYTES = 64 * 1024 * 1024;
/**
 * The same once the files loaded average 16 KiB or more (the batch writer's large files, inserted
 * in larger units): a month of files of 58 KB took more CPU and wall time under 64 MiB
 * (docs/performance.md, "Ingest of big files, the CPU regained").
 */
const INGEST_LARGE_FILES_MEMORY_LIMIT_BYTES = 96 * 1024 * 1024;

/**
 * Input bytes per transaction of {@link ingest}, by default. Each commit costs DuckDB more than
 * its rows: the rows that do not fill a whole row group (122,880 rows of a table) go through the
 * write-ahead log, and the checkpoint that follows rewrites the last, partly filled row group of
 * every table appended to. Fewer, larger commits took less CPU with the same peak memory (the
 * rows spill to the file as they go), up to this size and no further (docs/performance.md).
 */
export const INGEST_BATCH_BYTES = 128 * 1024 * 1024;

/**
 * Files per transaction of {@link ingest} and {@link ingestInto}, at most: a batch of many
 * small files held, until its commit, a manifest row per file in JavaScript and its rows and
 * keys in DuckDB's uncommitted storage, so 128 MiB of hourly files (220,000 of them) weighed
 * far more than 128 MiB of larger ones (docs/performance.md, "Ingest and `billing --db` of many
 * small files").
 */
export const INGEST_BATCH_FILES = 32_768;

/** Options of {@link ingest}. */
export interface IngestOptions {
  /** The database file, created when missing. */
  db: string;
  /**
   * A different file for an account-hour already loaded replaces it: the hour's rows are
   * swapped in one transaction and the old manifest rows are marked `superseded`. Default
   * false: such a file is a conflict (BadInputError naming both, or skipped with skipBad).
   */
  replace?: boolean;
  /** Record bad files and conflicts in the manifest as `rejected` and go on. Default false. */
  skipBad?: boolean;
  /** Read every input file as packed Cap'n Proto. Default false: only `*.packed` files. */
  packed?: boolean;
  /** Input bytes per transaction (a killed run loses at most the one in flight). Default {@link INGEST_BATCH_BYTES} (128 MiB); {@link ingestInto}: 32 MiB. */
  batchBytes?: number;
  /** Files per transaction, at most. Default {@link INGEST_BATCH_FILES}. */
  batchFiles?: number;
  /** Worker threads decoding the inputs; 0 decodes in this thread. Default: one per spare core (at most 4) for 16 MiB of input or more, else 0. */
  workers?: number;
  /** Progress of reading the inputs, for a progress bar. */
  onProgress?: (progress: ReadProgress) => void;
  /** The names the inputs go by in messages and the manifest (see ListOptions.inputNames). Default: the inputs as given. */
  inputNames?: readonly string[];
  /** While another process holds the file, try again for up to this many seconds (then WarehouseBusyError). Default: openDatabaseFile's. */
  waitSeconds?: number;
}

/** What an ingest did, beside the load report of this run. */
export interface IngestReport extends LoadReport {
  /** Account-hours swapped by `replace`. */
  replacedHours: number;
  /** Which they were. */
  replaced: { accountId: number; hourEpoch: number }[];
  /** Account-hours in the database after the ingest. */
  totalAccountHours: number;
  /**
   * Account-hours this ingest loaded that are later than the current hour: kept (generated and
   * test data may be dated ahead), but no platform can have written them; they count as neither
   * complete, missing nor behind until their hour comes.
   */
  futureHours: { accountId: number; hourEpoch: number }[];
}

/** A warehouse opened to write, as {@link writeWarehouse} gives it. */
export interface OpenedWarehouse {
  instance: DuckDBInstance;
  connection: DuckDBConnection;
}

/**
 * Opens the warehouse file `db` to write as `ingest` does (its memory cap; waiting up to
 * `waitSeconds` for other holders), runs `fn` (with {@link ingestInto}, say), checkpoints and
 * closes: one open, so readers get the file between two calls. A full disk is
 * WarehouseStorageError.
 */
export async function writeWarehouse<T>(
  db: string,
  waitSeconds: number | undefined,
  fn: (opened: OpenedWarehouse) => Promise<T>,
): Promise<T> {
  const opened = await openDatabaseFile(db, { memoryLimitBytes: INGEST_MEMORY_LIMIT_BYTES, waitSeconds });
  try {
    const value = await fn(opened);
    await opened.connection.run("CHECKPOINT");
    return value;
  } catch (error) {
    throw storageErrorOf(db, error) ?? error;
  } finally {
    opened.connection.closeSync();
    opened.instance.closeSync();
  }
}

/**
 * Loads inputs into a DuckDB database file, incrementally: files already loaded (same
 * bytes) are counted as duplicates and change nothing, new account-hours are appended,
 * in batches that each commit in one transaction with their manifest rows (a killed
 * ingest loses at most the batch in flight, and running it again completes it). Only
 * one process may hold the file to write: while another holds it, ingest waits up to
 * `waitSeconds`, then throws WarehouseBusyError. A full disk gives WarehouseStorageError
 * (the batch in flight is rolled back, the file keeps the ones committed).
 *
 * Bad files and conflicts: without skipBad, the good files are loaded and a BadInputError
 * names every bad one at the end (nothing is recorded for them, so a later run with the
 * files fixed, or with skipBad, takes them); with skipBad they are recorded as `rejected`.
 */
export async function ingest(inputs: string[], options: IngestOptions): Promise<IngestReport> {
  if (inputs.length === 0) throw new UsageError("no inputs: name zip files or directories to ingest");
  await refuseWarehouseInputs(inputs, options.db);
  const { report, errors } = await writeWarehouse(options.db, options.waitSeconds, (opened) =>
    ingestInto(opened, inputs, { ...options, batchBytes: options.batchBytes ?? INGEST_BATCH_BYTES }),
  );
  if (errors.length > 0) throw new BadInputError(errors);
  return report;
}

/**
 * A warehouse among the inputs is refused before the warehouse `db` is opened: ingest reads
 * consumption files into `db`, so reading it "as a warehouse" (what billing is told) is no advice here.
 */
async function refuseWarehouseInputs(inputs: readonly string[], db: string): Promise<void> {
  for (const input of inputs) {
    if (await isDuckDb(input).catch(() => false)) {
      throw new UsageError(
        `${input} is a DuckDB warehouse, not an input: ingest reads consumption zips and folders, into the warehouse it writes (db: ${db})`,
        { code: "INPUT_IS_WAREHOUSE" },
      );
    }
  }
}

/**
 * What {@link ingest} does once the file is open, for a caller that writes more in the same
 * open (`sync` records each chunk with its ingest: one open per step): loads `inputs` into the
 * warehouse `opened` to write ({@link writeWarehouse}), each batch committed. No checkpoint: the
 * caller makes it, or closing the instance does. The bad files and conflicts are returned
 * (`errors`), not thrown: the caller throws `new BadInputError(errors)` after what it must do
 * first. `options.db` names the file in messages; `waitSeconds` is not used. With `scope` (every account-hour the inputs
 * may hold), only those rows of the manifest are read (see `Manifest.read`).
 */
export async function ingestInto(
  opened: OpenedWarehouse,
  inputs: string[],
  options: IngestOptions,
  scope?: readonly ManifestScope[],
): Promise<{ report: IngestReport; errors: (BadFileError | ConflictError)[] }> {
  if (inputs.length === 0) throw new UsageError("no inputs: name zip files or directories to ingest");
  const { instance, connection } = opened;
  const spare = await instance.connect(); // the next batch inserts on one while the last commits on the other
  try {
    const manifest = await Manifest.read(connection, scope);
    await connection.run("INSERT INTO runs (run_id, inputs) VALUES ($r, $i::VARCHAR[])", {
      r: manifest.runId,
      i: JSON.stringify(inputs),
    });
    const { reader, badFiles, bytesTotal } = loadReader(inputs, options);
    const outcome = await loadAccountHours(connection, reader, manifest, badFiles, {
      skipBad: options.skipBad,
      replace: options.replace,
      batchBytes: options.batchBytes,
      batchFiles: options.batchFiles ?? INGEST_BATCH_FILES,
      memoryLimitBytes: INGEST_MEMORY_LIMIT_BYTES,
      largeFilesMemoryLimitBytes: INGEST_LARGE_FILES_MEMORY_LIMIT_BYTES,
      stager: () => chooseStager(bytesTotal(), options.workers),
      moreConnections: [spare],
    });
    const ignoredPaths = reader.summary.ignoredPaths;
    await connection.run("UPDATE runs SET ignored_paths = $n, finished = true WHERE run_id = $r", {
      n: ignoredPaths,
      r: manifest.runId,
    });
    const total = (await connection.runAndReadAll("SELECT count(*) AS n FROM account_hours")).getRowObjectsJS()[0]!;
    const currentHourEpoch = Math.floor(clockNow() / 3600) * 3600;
    const future = await connection.runAndReadAll(
      "SELECT DISTINCT account_id, hour_epoch FROM files WHERE run_id = $r AND status = 'loaded' AND hour_epoch > $now ORDER BY 1, 2",
      { r: manifest.runId, now: currentHourEpoch },
    );
    const report: IngestReport = {
      inputs: [...inputs],
      filesLoaded: outcome.filesLoaded,
      accountHours: outcome.accountHours,
      duplicates: outcome.duplicates,
      skipped: outcome.skipped,
      ignoredPaths,
      replacedHours: outcome.replacedHours,
      replaced: outcome.replaced,
      totalAccountHours: Number(total.n),
      futureHours: future.getRows().map(([a, h]) => ({ accountId: Number(a), hourEpoch: Number(h) })),
    };
    return { report, errors: outcome.errors };
  } catch (error) {
    throw storageErrorOf(options.db, error) ?? error;
  } finally {
    spare.closeSync();
  }
}
