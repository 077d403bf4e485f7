import { closeSync, existsSync, openSync, readSync } from "node:fs";
import type { DuckDBConnection, DuckDBInstance } from "@duckdb/node-api";
import { BadFileError, EnvironmentError, UsageError, WarehouseBusyError } from "../base/errors.js";
import { fileNotFound } from "../base/fileNotFound.js";
import { SCHEMA_SQL } from "./schema.js";
import { DUCKDB_SETTINGS, duckdbApi } from "../base/duckdb.js";
import { releaseSpillFolder, spillFolder, withSpillFolder } from "../base/spillFolder.js";
import { storageErrorOf, WAREHOUSE_KEPT } from "./storageError.js";
import { chainRegisterOnce } from "../invoices/register/registerChain.js";
import { upgradeFacts } from "./upgradeFacts.js";
import { schemaCurrent, writeSchemaMark } from "./warehouseMeta.js";
import { markWriterWaiting, writerWaiting, type WriterMark } from "./writerMarker.js";

/**
 * How long a reader waits for a writer's commit by default, seconds: a sync holds the file
 * for one step's ingest at a time (docs/performance.md), so a minute covers it many times over
 * and still answers a person at a terminal.
 */
export const DEFAULT_READ_WAIT_SECONDS = 60;

/** Options of {@link openDatabaseFile}. */
export interface OpenDatabaseFileOptions {
  /** Open for queries only (several readers may share the file). Default false: open to write, creating the file and its tables. */
  readOnly?: boolean;
  /** To write, make the file when it is missing. Default true; false refuses a missing file as a read-only open does (to issue into a warehouse, not into a new empty file). */
  create?: boolean;
  /**
   * DuckDB's memory limit, bytes (beyond it, DuckDB evicts cached blocks and spills to a
   * folder of this open's own beside the file: base/spillFolder.ts). Default: DuckDB's, 80% of the machine's memory.
   */
  memoryLimitBytes?: number;
  /**
   * While another process holds the file (a writer, or readers when we write), try again for
   * up to this many seconds, then throw WarehouseBusyError. 0 tries once. Default
   * {@link DEFAULT_READ_WAIT_SECONDS}.
   */
  waitSeconds?: number;
}

/** The pause between two tries of a held file: short and jittered, so waiting readers and a writer interleave. */
const RETRY_MS = { min: 20, max: 200 };

/** DuckDB's message when another process holds the file's lock: "... Conflicting lock is held in PROGRAM (PID N). See also ...". */
const LOCK_MESSAGE = /Could not set lock on file|Conflicting lock is held/;

/** Says what a file that is not a DuckDB database is, from its first bytes; undefined for a DuckDB file (or one too short to tell). */
function notDuckDb(file: string): string | undefined {
  if (!existsSync(file)) return undefined;
  const head = Buffer.alloc(16);
  const fd = openSync(file, "r");
  let length: number;
  try {
    length = readSync(fd, head, 0, head.length, 0);
  } finally {
    closeSync(fd);
  }
  if (length === 0) return undefined; // an empty file: DuckDB makes a database of it
  if (head.subarray(0, 16).toString("latin1") === "SQLite format 3\0") return "a SQLite database";
  if (length < 12 || head.subarray(8, 12).toString("latin1") !== "DUCK") return "not a DuckDB database";
  return undefined;
}

/** DuckDB's settings of an open: ours, read-only or not, its own spill folder, and the memory limit when one is given. */
function openSettings(readOnly: boolean, spill: string, memoryLimitBytes: number | undefined): Record<string, string> {
  const settings: Record<string, string> = {
    ...DUCKDB_SETTINGS,
    ...(readOnly ? { access_mode: "READ_ONLY" } : {}),
    temp_directory: spill,
  };
  if (memoryLimitBytes !== undefined) settings.memory_limit = `${Math.ceil(memoryLimitBytes / 1024)}KiB`;
  return settings;
}

/**
 * DuckDB's instance of `file`, tried again while another process holds its lock, up to
 * `waitSeconds` (then WarehouseBusyError naming the holder); a writer that waits marks itself
 * for the readers, which let it go first.
 */
async function instanceWhenFree(
  file: string,
  settings: Record<string, string>,
  readOnly: boolean,
  waitSeconds: number,
): Promise<DuckDBInstance> {
  const deadline = Date.now() + waitSeconds * 1000;
  let mark: WriterMark | undefined;
  const pause = () =>
    new Promise((resolve) => setTimeout(resolve, RETRY_MS.min + Math.random() * (RETRY_MS.max - RETRY_MS.min)));
  try {
    for (;;) {
      // a reader lets a waiting writer go first (within its own wait)
      if (readOnly && Date.now() < deadline && writerWaiting(file)) {
        await pause();
        continue;
      }
      try {
        return await duckdbApi().DuckDBInstance.create(file, settings);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        if (!LOCK_MESSAGE.test(message)) throw openError(file, message, error);
        if (Date.now() >= deadline)
          throw new WarehouseBusyError(file, /held in (.*?\(PID \d+\))/.exec(message)?.[1], waitSeconds, {
            cause: error,
          });
        if (!readOnly) {
          if (mark) mark.touch();
          else mark = markWriterWaiting(file);
        }
        await pause();
      }
    }
  } finally {
    mark?.remove();
  }
}

/** Read-only: refuses a database without the manifest. To write: the schema made or upgraded, when not current. */
async function readyWarehouse(connection: DuckDBConnection, file: string, readOnly: boolean): Promise<void> {
  if (readOnly) {
    const found = await connection.runAndReadAll(
      "SELECT count(*) AS n FROM information_schema.tables WHERE table_name IN ('files', 'account_hours')",
    );
    if (Number(found.getRowObjectsJS()[0]!.n) < 2) {
      throw new UsageError(`${file} is not a cloudunits database (no manifest): make it with ingest()`, {
        code: "DB_NOT_WAREHOUSE",
      });
    }
  } else if (!(await schemaCurrent(connection))) {
    // Only a new file, an older one or one another version of cloudunits wrote: each DDL
    // statement changes the catalog, and the checkpoint that keeps them writes it out again
    // (what a write open paid, every step of a sync: docs/performance.md).
    await connection.run(SCHEMA_SQL);
    // The schema's changes go into the file now, not the write-ahead log: DuckDB 1.5 cannot
    // replay an ALTER TABLE ... ADD COLUMN from its log ("GetDefaultDatabase with no default
    // database set"), so a run killed before its first checkpoint left a file no one could open.
    await connection.run("CHECKPOINT");
    await upgradeFacts(connection);
    // a register made before the chain: its documents chained, once (docs/billing.md#the-chain)
    await chainRegisterOnce(connection);
    // last, and after the checkpoint: a row, no DDL, so the log replays it; a run killed
    // before it runs the schema again next time
    await writeSchemaMark(connection);
  }
}

/**
 * Opens a warehouse database file made by `ingest`. Read-only, the file must exist and hold
 * the manifest; to write, it is created when missing, the tables of schema.ts are
 * created when absent, and a file of an older schema is upgraded (`upgradeFacts`; its invoice
 * register chained, `chainRegisterOnce`). A file
 * already at this schema (`schemaCurrent`: one query) gets no DDL and no checkpoint, so an
 * open to write costs no write of its own.
 *
 * What DuckDB says when it cannot open the file is told apart: another process holds its lock
 * (tried again for `waitSeconds`, then WarehouseBusyError naming the holder's PID; a writer
 * that waits marks itself in `FILE.writer-waiting`, and readers let a waiting writer that
 * proves itself go first: see writerMarker.ts); the file is
 * not a DuckDB database, or a SQLite one (UsageError DB_NOT_DUCKDB, read before DuckDB sees
 * it); the database is damaged (BadFileError DB_CORRUPT, exit 3: a checksum or a short read);
 * the disk is full (WarehouseStorageError); anything else (UsageError DB_OPEN, DuckDB's words).
 */
export async function openDatabaseFile(
  file: string,
  options: OpenDatabaseFileOptions = {},
): Promise<{ instance: DuckDBInstance; connection: DuckDBConnection }> {
  const readOnly = options.readOnly ?? false;
  if ((readOnly || options.create === false) && !existsSync(file)) {
    throw fileNotFound("warehouse", file, { todo: "make it with ingest or sync" });
  }
  const what = notDuckDb(file);
  if (what)
    throw new UsageError(`${file} is ${what}, not a cloudunits warehouse: give a file made by ingest or sync`, {
      code: "DB_NOT_DUCKDB",
    });
  const spill = await spillFolder(file);
  const settings = openSettings(readOnly, spill, options.memoryLimitBytes);
  const waitSeconds = options.waitSeconds ?? DEFAULT_READ_WAIT_SECONDS;
  const instance = withSpillFolder(
    await instanceWhenFree(file, settings, readOnly, waitSeconds).catch((error: unknown) => {
      releaseSpillFolder(spill);
      throw error;
    }),
    spill,
  );
  let connection: DuckDBConnection | undefined;
  try {
    connection = await instance.connect();
    await readyWarehouse(connection, file, readOnly);
  } catch (error) {
    connection?.closeSync();
    instance.closeSync();
    throw (
      storageErrorOf(file, error) ??
      (error instanceof Error && /Corrupt database|Could not read enough bytes/.test(error.message)
        ? openError(file, error.message, error)
        : error)
    );
  }
  return { instance, connection };
}

/** The error for a file DuckDB would not open (not for a lock). */
function openError(file: string, message: string, cause: unknown): Error {
  if (/Corrupt database file|Could not read enough bytes|not a valid DuckDB database/.test(message)) {
    const reason = `the database is damaged (${message.replace(/^IO Error: /, "")}): restore it from a backup, or build it again with ingest() or sync()`;
    return new BadFileError("DB_CORRUPT", file, reason, { cause });
  }
  return (
    storageErrorOf(file, cause) ??
    walRoomError(file, message, cause) ??
    new UsageError(`cannot open database ${file}: ${message}`, { code: "DB_OPEN", cause })
  );
}

/**
 * DuckDB replays the write-ahead log a writer left (one killed before its checkpoint) when it opens
 * the file, within the memory limit, spilling the rest to temporary files beside it; on a full
 * disk it cannot ("failed to offload data block", "Out of Memory Error: Failure while replaying
 * WAL"). That is the disk, not the command's use (exit 8, the line every command gives), and
 * nothing committed is lost: the log is replayed once there is room.
 */
function walRoomError(file: string, message: string, cause: unknown): Error | undefined {
  if (
    !/Failure while replaying WAL/i.test(message) ||
    !/Out of Memory|offload|max_temp_directory_size|temporary/i.test(message)
  )
    return undefined;
  return new EnvironmentError("DISK_FULL", file, WAREHOUSE_KEPT, { cause });
}
