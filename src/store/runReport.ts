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

/** Runs a report's SQL with `$start`, `$end`, `$account_id` bound (only those it uses). */
export async function runReport(connection: DuckDBConnection, report: ReportDefinition, params: ReportParams = {}): Promise<ReportResult> {
  const all: Record<string, number | null> = {
    start: params.start ?? Number.MIN_SAFE_INTEGER,
    end: params.end ?? Number.MAX_SAFE_INTEGER,
    account_id: params.accountId ?? null,
  };
  const used = paramsNamedIn(report.sql, all);
  let reader;
  try {
    const { BIGINT } = duckdbApi();
    reader = await connection.runAndReadAll(report.sql, used, Object.fromEntries(Object.keys(used).map((key) => [key, BIGINT])));
  } catch (error) {
    throw new UsageError(`report ${report.file} failed: ${(error as Error).message}`, { cause: error });
  }
  const names = reader.columnNames();
  const meta = new Map(report.columns.map((c) => [c.name, c]));
  return {
    name: report.name,
    title: report.title,
    ...(report.description ? { description: report.description } : {}),
    columns: names.map((n) => meta.get(n) ?? { name: n, title: n }),
    rows: reader.getRowObjectsJS().map((row) => Object.fromEntries(names.map((n) => [n, plain(row[n])]))),
  };
}
