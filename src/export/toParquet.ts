import { createHash } from "node:crypto";
import { createReadStream, existsSync, mkdirSync, readdirSync } from "node:fs";
import { rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import type { DuckDBConnection } from "@duckdb/node-api";
import { UsageError } from "../base/errors.js";
import { environmentErrorOf } from "../base/environmentError.js";
import { isoUtc, monthPeriod } from "../base/time.js";
import {
  emptyParquetManifest,
  readParquetManifest,
  writeParquetManifest,
  PARQUET_MANIFEST,
  type ParquetFileEntry,
  type ParquetPartition,
} from "./parquetManifest.js";
import { PARQUET_DATA_TABLES, PARTITION_FILE, partitionDir, type ParquetTable } from "./parquetTables.js";

/** Options of {@link toParquet}. */
export interface ToParquetOptions {
  /** The directory to write: new, empty, or an earlier export (it has a `manifest.json`), whose months are replaced. */
  outDir: string;
  /** Only this month (`YYYY-MM`, UTC): its partitions are replaced, the others kept. Default: every month with data. */
  month?: string;
}

/** What {@link toParquet} wrote. */
export interface ParquetExport {
  outDir: string;
  /** The path of `manifest.json`. */
  manifest: string;
  /** The months written in this run, ascending. */
  partitions: ParquetPartition[];
  /** Rows written per table in this run. */
  tables: { table: string; rows: number }[];
}

/** The file layout of the export, as the manifest states it. */
export const PARQUET_LAYOUT = `<table>/year=<year>/month=<month>/${PARTITION_FILE}`;

/** The file of the ingest manifest (the warehouse's `files` table), unpartitioned. */
export const SOURCE_FILES_PARQUET = "files.parquet";

const TEMP_FILE = /^\..*\.tmp$/;

/**
 * Writes the warehouse as Parquet for a bigger engine (Spark, Trino, ClickHouse, DuckDB over
 * object storage), month by month: each table's rows of a UTC month go to one file,
 * `<outDir>/<table>/year=<y>/month=<m>/part-0.parquet` (hive partitioning; `year` and `month`
 * live in the directory names only), sorted by account, machine (or cloud space) and hour, with
 * an `hour_utc` TIMESTAMP (UTC) beside `hour_epoch`. The ingest manifest goes to
 * `<outDir>/files.parquet`, and `<outDir>/manifest.json` says what each month holds (tables,
 * rows, hours, accounts, files with their SHA-256).
 *
 * Each file is written to a hidden temporary sibling (`.part-0.parquet.<pid>.tmp`, which
 * readers' `*.parquet` globs and Spark and Trino skip) and renamed over the old one, then the
 * manifest is rewritten (atomically) with its entry: a reader, or a run killed at any point,
 * sees each partition whole, old or new. One month is read at a time, so with a bounded
 * DuckDB `memory_limit` the memory stays flat over the period (DuckDB sorts beyond it on disk).
 */
export async function toParquet(connection: DuckDBConnection, options: ToParquetOptions): Promise<ParquetExport> {
  const outDir = resolve(options.outDir);
  const earlier = readParquetManifest(outDir);
  if (earlier === undefined && existsSync(outDir) && readdirSync(outDir).length > 0) {
    throw new UsageError(
      `${options.outDir} is not empty and holds no ${PARQUET_MANIFEST}: export into a new or empty directory, or into an earlier export`,
    );
  }
  mkdirSync(outDir, { recursive: true });
  const manifest = earlier ?? emptyParquetManifest(PARQUET_LAYOUT);
  await removeTemporaries(outDir);

  const present = new Set(
    (await connection.runAndReadAll("SELECT table_name FROM duckdb_tables()"))
      .getRowObjectsJS()
      .map((r) => String(r.table_name)),
  );
  const tables = PARQUET_DATA_TABLES.filter((t) => present.has(t.table));
  const months = options.month !== undefined ? [monthPeriod(options.month, "month")] : await monthsWithData(connection);
  const rowsByTable = new Map(tables.map((t) => [t.table, 0]));
  const written: ParquetPartition[] = [];
  for (const period of months) {
    const partition = await describeMonth(connection, period);
    const kept = manifest.partitions.find((p) => p.year === partition.year && p.month === partition.month);
    manifest.partitions = manifest.partitions.filter((p) => p !== kept);
    manifest.partitions.push(partition);
    for (const stale of kept?.files.filter((f) => !tables.some((t) => t.table === f.table)) ?? [])
      await rm(join(outDir, stale.file), { force: true }); // a table this warehouse lacks
    for (const table of tables) {
      const dir = partitionDir(table.table, partition.year, partition.month);
      mkdirSync(join(outDir, dir), { recursive: true });
      const entry = await copyAtomic(
        connection,
        monthQuery(table),
        period,
        outDir,
        `${dir}/${PARTITION_FILE}`,
        table.table,
      );
      partition.files.push(entry);
      rowsByTable.set(table.table, rowsByTable.get(table.table)! + entry.rows);
      await writeParquetManifest(outDir, manifest);
    }
    written.push(partition);
  }
  manifest.sourceFiles = await copyAtomic(
    connection,
    "SELECT * FROM files ORDER BY file_id",
    undefined,
    outDir,
    SOURCE_FILES_PARQUET,
    "files",
  );
  await writeParquetManifest(outDir, manifest);
  return {
    outDir,
    manifest: join(outDir, PARQUET_MANIFEST),
    partitions: written,
    tables: [...rowsByTable].map(([table, rows]) => ({ table, rows })),
  };
}

/** The SELECT of one table's month: every column plus `hour_utc`, in the table's order. */
function monthQuery(table: ParquetTable): string {
  return `SELECT *, make_timestamp(hour_epoch * 1000000) AS hour_utc FROM ${table.table}
          WHERE hour_epoch >= $start AND hour_epoch < $end ORDER BY ${table.orderBy.join(", ")}`;
}

/** The UTC months with at least one account-hour, ascending. */
async function monthsWithData(connection: DuckDBConnection): Promise<{ start: number; end: number }[]> {
  const rows = (
    await connection.runAndReadAll(`
    SELECT DISTINCT year(make_timestamp(hour_epoch * 1000000)) AS y, month(make_timestamp(hour_epoch * 1000000)) AS m
    FROM account_hours ORDER BY y, m`)
  ).getRowObjectsJS();
  return rows.map((r) => monthPeriod(`${String(r.y)}-${String(r.m).padStart(2, "0")}`, "month"));
}

/** The manifest entry of a month, before its files: what `account_hours` holds in it. */
async function describeMonth(
  connection: DuckDBConnection,
  period: { start: number; end: number },
): Promise<ParquetPartition> {
  const row = (
    await connection.runAndReadAll(
      `
    SELECT count(*) AS account_hours, count(DISTINCT hour_epoch) AS hours, min(hour_epoch) AS first, max(hour_epoch) AS last,
           coalesce(list(DISTINCT account_id ORDER BY account_id), []) AS accounts
    FROM account_hours WHERE hour_epoch >= $start AND hour_epoch < $end`,
      period,
    )
  ).getRowObjectsJS()[0]!;
  const startDate = new Date(period.start * 1000);
  return {
    year: startDate.getUTCFullYear(),
    month: startDate.getUTCMonth() + 1,
    start: isoUtc(period.start),
    end: isoUtc(period.end),
    accountHours: Number(row.account_hours),
    hours: Number(row.hours),
    firstHour: row.first === null ? null : isoUtc(Number(row.first)),
    lastHour: row.last === null ? null : isoUtc(Number(row.last)),
    accounts: (row.accounts as unknown[]).map(Number),
    exportedAt: isoUtc(Date.now() / 1000),
    files: [],
  };
}

/**
 * COPY `query` (bound to `period`, if any) to `file` under `outDir`: into a hidden temporary
 * sibling, hashed, then renamed over `file`. Returns its manifest entry.
 */
async function copyAtomic(
  connection: DuckDBConnection,
  query: string,
  period: { start: number; end: number } | undefined,
  outDir: string,
  file: string,
  table: string,
): Promise<ParquetFileEntry> {
  const target = join(outDir, file);
  const temp = join(dirname(target), `.${basename(target)}.${process.pid}.tmp`);
  try {
    const result = await connection.runAndReadAll(`COPY (${query}) TO $temp (FORMAT parquet)`, { ...period, temp });
    const rows = Number(result.getRowsJS()[0]?.[0] ?? 0);
    const sha256 = await sha256OfFile(temp);
    const { size } = await stat(temp);
    await rename(temp, target);
    return { table, file, rows, bytes: size, sha256 };
  } catch (error) {
    await rm(temp, { force: true });
    throw (
      environmentErrorOf(
        error,
        target,
        `the files written before it are whole and listed in ${PARQUET_MANIFEST}; an existing ${file} is as it was`,
      ) ?? error
    );
  }
}

async function sha256OfFile(file: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/** Removes the temporary files a killed export left in the partitions (hidden, `.tmp`). */
async function removeTemporaries(dir: string, depth = 0): Promise<void> {
  if (depth > 3 || !existsSync(dir)) return;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) await removeTemporaries(join(dir, entry.name), depth + 1);
    else if (TEMP_FILE.test(entry.name)) await rm(join(dir, entry.name), { force: true });
  }
}
