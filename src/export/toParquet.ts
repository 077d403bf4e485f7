import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import type { DuckDBConnection } from "@duckdb/node-api";
import { UsageError } from "../base/errors.js";
import { DATA_TABLES, type DataTable } from "../store/schema.js";

/** Options of {@link toParquet}. */
export interface ToParquetOptions {
  /** The directory to write; it must not exist or be empty. */
  outDir: string;
  /** The data tables to export. Default: every data table. */
  tables?: readonly DataTable[];
}

/** What {@link toParquet} wrote: one entry per table. */
export interface ParquetExport {
  outDir: string;
  tables: { table: string; rows: number; dir: string }[];
}

/**
 * Writes the warehouse as Parquet, readable by Spark, Trino or DuckDB: each data table
 * under `<outDir>/<table>/account_id=<id>/year=<y>/month=<m>/*.parquet` (hive
 * partitioning, DuckDB COPY ... PARTITION_BY), with an `hour_utc` TIMESTAMP column (UTC)
 * beside `hour_epoch`; `year` and `month` are the UTC year and month of the hour; the
 * partition columns live in the directory names. The manifest goes to
 * `<outDir>/files.parquet`.
 */
export async function toParquet(connection: DuckDBConnection, options: ToParquetOptions): Promise<ParquetExport> {
  const outDir = resolve(options.outDir);
  if (existsSync(outDir) && readdirSync(outDir).length > 0) {
    throw new UsageError(`${options.outDir} is not empty: export into a new or empty directory`);
  }
  mkdirSync(outDir, { recursive: true });
  const result: ParquetExport = { outDir, tables: [] };
  for (const table of options.tables ?? DATA_TABLES) {
    const dir = join(outDir, table);
    const rows = Number((await connection.runAndReadAll(`SELECT count(*) AS n FROM ${table}`)).getRowObjectsJS()[0]!.n);
    if (rows > 0) {
      await connection.run(`
        COPY (SELECT *, make_timestamp(hour_epoch * 1000000) AS hour_utc,
                     year(make_timestamp(hour_epoch * 1000000)) AS year, month(make_timestamp(hour_epoch * 1000000)) AS month
              FROM ${table} ORDER BY account_id, hour_epoch)
        TO $dir (FORMAT parquet, PARTITION_BY (account_id, year, month))`, { dir });
    }
    result.tables.push({ table, rows, dir });
  }
  await connection.run("COPY (SELECT * FROM files ORDER BY file_id) TO $file (FORMAT parquet)", { file: join(outDir, "files.parquet") });
  return result;
}
