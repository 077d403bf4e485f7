import type { DuckDBConnection, DuckDBInstance } from "@duckdb/node-api";
import { BadInputError, UsageError } from "../base/errors.js";
import { iterateNow } from "../input/concurrency.js";
import type { AccountHourSelection, ReadProgress } from "../input/types.js";
import { chooseStager } from "../load/chooseStager.js";
import { loadAccountHours } from "./loadAccountHours.js";
import { loadReader } from "../load/loadReader.js";
import { Manifest } from "./manifest.js";
import { openDatabaseFile } from "./openDatabaseFile.js";
import { readLoadReport } from "./readLoadReport.js";
import { DATA_TABLES, SCHEMA_SQL, type DataTable } from "./schema.js";
import { writeWarehouseMeta } from "./warehouseMeta.js";
import { keptColumns, TABLE_COLUMNS, type ColumnSelection } from "../load/columnBatch.js";
import type { StoreSource, Warehouse } from "./types.js";
import { inMemoryInstance } from "../base/spillFolder.js";

/** Options of {@link openWarehouse}. */
export interface OpenWarehouseOptions {
  /** Skip unreadable files and conflicting account-hours, listing them in `load.skipped`. Default false: throw BadInputError naming them all. */
  skipBad?: boolean;
  /** Read every input file as packed Cap'n Proto (`--packed`). Default false: only `*.packed` files. */
  packed?: boolean;
  /** Progress of reading the inputs (files and bytes read of the totals), for a progress bar. */
  onProgress?: (progress: ReadProgress) => void;
  /**
   * The data tables an in-memory warehouse loads (the others stay empty), so a command
   * loads only what it queries. Ignored for `{ db }`. Default: every table.
   */
  tables?: readonly DataTable[];
  /**
   * The columns an in-memory warehouse keeps, by table (a table not named keeps them all):
   * the others are dropped from its tables before loading, which makes loading faster and
   * leaves queries of them failing with DuckDB's "column not found". Ignored for `{ db }`.
   * Default: every column.
   */
  columns?: ColumnSelection;
  /**
   * Load only these account-hours, chosen by path (a command that bills one account or one
   * period reads only its files); the others are passed over unread, unchecked. Ignored for
   * `{ db }`. Default: every account-hour.
   */
  select?: AccountHourSelection;
  /**
   * DuckDB's memory limit for a `{ db }` warehouse, bytes (beyond it DuckDB evicts and
   * spills, into a folder of this open's own beside the file, or fails with DuckDB's
   * out-of-memory error where an operator cannot spill).
   * Default: DuckDB's. Ignored for inputs.
   */
  memoryLimitBytes?: number;
  /** Worker threads decoding the inputs; 0 decodes in this thread. Default: one per spare core (at most 4) for 16 MiB of input or more, else 0. */
  workers?: number;
  /**
   * For `{ db }`: while a writer (a sync, an ingest) holds the file, try again for up to this
   * many seconds, then throw WarehouseBusyError. Default 60. Ignored for inputs.
   */
  waitSeconds?: number;
  /**
   * For `{ db }`: open the file to write (to issue and correct invoices), holding it, so no other
   * process writes it, until `close()`. Default false: read-only. Ignored for inputs.
   */
  write?: boolean;
}

/**
 * Opens a warehouse: for input paths (zips and directories), an in-memory DuckDB loaded
 * from them; for `{ db }`, a database file made by `ingest`, opened read-only (or to write), with the
 * load report rebuilt from its manifest.
 *
 * Loading reads every account-hour, drops byte-identical duplicates (counted in
 * `load.duplicates`), and treats bad files and conflicts (two different files for one
 * account-hour: neither is loaded) by `skipBad`: without it, every one is collected and a
 * BadInputError names them all after reading; with it, they are listed in `load.skipped`.
 */
export async function openWarehouse(source: StoreSource, options: OpenWarehouseOptions = {}): Promise<Warehouse> {
  if (!Array.isArray(source)) {
    const { instance, connection } = await openDatabaseFile(source.db, {
      readOnly: !options.write,
      create: false,
      memoryLimitBytes: options.memoryLimitBytes,
      waitSeconds: options.waitSeconds,
    });
    try {
      const load = await readLoadReport(connection, [source.db]);
      return warehouse(instance, connection, load, source.db);
    } catch (error) {
      connection.closeSync();
      instance.closeSync();
      throw error;
    }
  }
  if (source.length === 0) throw new UsageError("no inputs: name zip files or directories, or pass db: FILE");
  const { reader, badFiles, bytesTotal } = loadReader(source, options);
  const hours = iterateNow(reader); // the inputs are indexed while the database is made
  let instance: DuckDBInstance;
  let connection: DuckDBConnection;
  try {
    instance = await inMemoryInstance();
    connection = await instance.connect();
  } catch (error) {
    await hours.close();
    throw error;
  }
  try {
    await connection.run(SCHEMA_SQL);
    await dropColumns(connection, options.columns);
    if (loadsFacts(options)) await writeWarehouseMeta(connection);
    const manifest = await Manifest.read(connection);
    await connection.run("INSERT INTO runs (run_id, inputs) VALUES ($r, $i::VARCHAR[])", {
      r: manifest.runId,
      i: JSON.stringify(source),
    });
    const outcome = await loadAccountHours(connection, hours.items, manifest, badFiles, {
      skipBad: options.skipBad,
      stopOnError: true,
      batchBytes: Number.POSITIVE_INFINITY, // one transaction: nothing to keep safe from a crash, and a commit midway stalls the inserts
      tables: options.tables,
      columns: options.columns,
      stager: () => chooseStager(bytesTotal(), options.workers),
    });
    if (outcome.errors.length > 0) throw new BadInputError(outcome.errors);
    const ignoredPaths = reader.summary.ignoredPaths;
    await connection.run("UPDATE runs SET ignored_paths = $n, finished = true WHERE run_id = $r", {
      n: ignoredPaths,
      r: manifest.runId,
    });
    return warehouse(instance, connection, {
      inputs: [...source],
      filesLoaded: outcome.filesLoaded,
      accountHours: outcome.accountHours,
      duplicates: outcome.duplicates,
      skipped: outcome.skipped,
      ignoredPaths,
      syncthingCopies: reader.summary.syncthingCopies,
    });
  } catch (error) {
    await hours.close();
    connection.closeSync();
    instance.closeSync();
    throw error;
  }
}

/** True when an in-memory load stages the billing facts whole (billing may then read them, as from a file). */
function loadsFacts(options: OpenWarehouseOptions): boolean {
  const tables = options.tables ?? DATA_TABLES;
  return (["machine_facts", "gateway_facts"] as const).every(
    (t) => tables.includes(t) && options.columns?.[t] === undefined,
  );
}

/** Drops the columns `selection` leaves out of the (empty) data tables it names. */
async function dropColumns(connection: DuckDBConnection, selection: ColumnSelection | undefined): Promise<void> {
  for (const table of Object.keys(selection ?? {}) as DataTable[]) {
    const kept = keptColumns(table, selection);
    for (const [i, column] of TABLE_COLUMNS[table].entries()) {
      if (!kept.includes(i)) await connection.run(`ALTER TABLE ${table} DROP COLUMN ${column.name}`);
    }
  }
}

function warehouse(
  instance: DuckDBInstance,
  connection: DuckDBConnection,
  load: Warehouse["load"],
  db?: string,
): Warehouse {
  let closed = false;
  return {
    connection,
    load,
    db,
    close: () => {
      if (closed) return;
      closed = true;
      connection.closeSync();
      instance.closeSync();
    },
  };
}
