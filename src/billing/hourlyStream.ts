import type { DuckDBConnection } from "@duckdb/node-api";
import { UsageError } from "../base/errors.js";
import type { BillingReport } from "./billingReport.js";
import { hourlyLineCount } from "./hourlyLineCount.js";
import { hourlyLines, hourlyRows } from "./hourlyWarehouse.js";
import type { HourlyRows } from "./hourlyRows.js";
import { levelsFor, type Level } from "./levels.js";
import type { BillingLine } from "./lines.js";

/**
 * The hourly lines of a report's period, as the formats that list every hour read them (the
 * hourly CSV, the Hourly sheet, FOCUS): one hour's lines at a time, by hour, from the billing
 * engine, with the report's rules. Exporters take this and the report, never a connection.
 */
export interface HourlyStream {
  /** The report it was made for: its lines are of this report's period and options. */
  readonly report: BillingReport;
  /** The lines of `levels` (default: the report's levels), in batches of one hour. */
  lines(levels?: readonly Level[]): AsyncIterable<BillingLine[]>;
  /**
   * The same lines as the engine's rows, an hour a batch (`HourlyRows`: numbers in columns, no
   * object per line; `HourlyRowLines` reads them as lines): what an output that writes every
   * line and keeps none reads. Optional: without it, outputs read `lines`.
   */
  rows?(levels?: readonly Level[]): AsyncIterable<HourlyRows>;
  /** How many lines `lines(levels)` yields. */
  count(levels?: readonly Level[]): Promise<number>;
}

/** The hourly lines of `report`, read from the warehouse behind `connection` in windows of whole days (see `hourlyLines`). */
export function warehouseHourly(connection: DuckDBConnection, report: BillingReport): HourlyStream {
  const options = { ...report.options };
  return {
    report,
    lines: (levels = levelsFor(report.params)) => hourlyLines(connection, report.params, options, levels),
    rows: (levels = levelsFor(report.params)) => hourlyRows(connection, report.params, options, levels),
    count: (levels = levelsFor(report.params)) => hourlyLineCount(connection, report.params, options, levels),
  };
}

/** Refuses an hourly stream made for another report (its hours would be another period's or account's). */
export function checkHourlyOf(hourly: HourlyStream, report: BillingReport): void {
  if (hourly.report === report) return;
  const { params: a } = hourly.report;
  const { params: b } = report;
  if (a.start !== b.start || a.end !== b.end || a.accountId !== b.accountId) {
    throw new UsageError(
      "the hourly lines were made for another report (another period or account): make them with the report they go with",
    );
  }
}
