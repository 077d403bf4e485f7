import type { DuckDBConnection } from "@duckdb/node-api";
import { UsageError } from "../base/errors.js";
import type { ReportColumn, ReportDefinition } from "./reportDefinition.js";
import { duckdbApi, paramsNamedIn } from "../base/duckdb.js";

/** The parameters a report's SQL may use. */
export interface ReportParams {
  /** `$start`: first hour, epoch seconds, inclusive. Default: no limit. */
  start?: number;
  /** `$end`: end, epoch seconds, exclusive. Default: no limit. */
  end?: number;
  /** `$account_id`: one account. Default: NULL (every account). */
  accountId?: number;
}

/** A report's result: its columns (result order, with metadata) and rows of plain values. */
export interface ReportResult {
  name: string;
  title: string;
  description?: string;
  columns: ReportColumn[];
  rows: Record<string, string | number | boolean | null>[];
}

const plain = (value: unknown): string | number | boolean | null => {
  if (value === null || value === undefined) return null;
  if (typeof value === "bigint") return Number(value);
  if (typeof value === "number" || typeof value === "string" || typeof value === "boolean") return value;
  return String(value);
};

/**
 * How a report shows a value of a column of DuckDB type `typeId`: times in ISO 8601 UTC
 * (`2026-11-27T10:26:42Z`, whole seconds; a date `2026-11-27`; a time of day `10:26:42`), never
 * JavaScript's `Fri Nov 27 2026 10:26:42 GMT+0000 (...)`; everything else as {@link plain}.
 */
function shownAs(typeId: number): (value: unknown) => string | number | boolean | null {
  const { DuckDBTypeId } = duckdbApi();
  const time = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
  switch (typeId) {
    case DuckDBTypeId.DATE:
      return (v) => (v instanceof Date ? time(v.getTime()).slice(0, 10) : plain(v));
    case DuckDBTypeId.TIMESTAMP:
    case DuckDBTypeId.TIMESTAMP_TZ:
    case DuckDBTypeId.TIMESTAMP_S:
    case DuckDBTypeId.TIMESTAMP_MS:
    case DuckDBTypeId.TIMESTAMP_NS:
      return (v) => (v instanceof Date ? time(Math.floor(v.getTime() / 1000) * 1000) : plain(v));
    case DuckDBTypeId.TIME:
      return (v) => (typeof v === "bigint" ? time(Number(v / 1_000_000n) * 1000).slice(11, 19) : plain(v));
    default:
      return plain;
  }
}

/** Runs a report's SQL with `$start`, `$end`, `$account_id` bound (only those it uses). */
export async function runReport(
  connection: DuckDBConnection,
  report: ReportDefinition,
  params: ReportParams = {},
): Promise<ReportResult> {
  const all: Record<string, number | null> = {
    start: params.start ?? Number.MIN_SAFE_INTEGER,
    end: params.end ?? Number.MAX_SAFE_INTEGER,
    account_id: params.accountId ?? null,
  };
  const used = paramsNamedIn(report.sql, all);
  let reader;
  try {
    const { BIGINT } = duckdbApi();
    reader = await connection.runAndReadAll(
      report.sql,
      used,
      Object.fromEntries(Object.keys(used).map((key) => [key, BIGINT])),
    );
  } catch (error) {
    throw new UsageError(`report ${report.file} failed: ${(error as Error).message}`, { cause: error });
  }
  const names = reader.columnNames();
  const show = reader.columnTypes().map((type) => shownAs(type.typeId));
  const meta = new Map(report.columns.map((c) => [c.name, c]));
  return {
    name: report.name,
    title: report.title,
    ...(report.description ? { description: report.description } : {}),
    columns: names.map((n) => meta.get(n) ?? { name: n, title: n }),
    rows: reader.getRowObjectsJS().map((row) => Object.fromEntries(names.map((n, i) => [n, show[i]!(row[n])]))),
  };
}
