import type { DuckDBConnection } from "@duckdb/node-api";
import { billingReport, reportOf, type BillingReport, type ReportExtras } from "../billing/billingReport.js";
import { billWarehouse } from "../billing/billWarehouse.js";
import type { BillingLine, BillingOptions, BillingParams, Level } from "../billing/lines.js";
import { priceChanges } from "../billing/prices.js";

/** One UTC day of a period: its start (epoch seconds) and its period lines. */
export interface BilledDay {
  start: number;
  lines: BillingLine[];
}

const DAY_SECONDS = 86_400;

/** The UTC midnights strictly inside `[start, end)`. */
export function dayCuts(start: number, end: number): number[] {
  const cuts: number[] = [];
  for (let t = Math.floor(start / DAY_SECONDS) * DAY_SECONDS + DAY_SECONDS; t < end; t += DAY_SECONDS) cuts.push(t);
  return cuts;
}

/**
 * The billing report of a period (as `billingReport` makes it: the same lines, invoices and
 * money) and the lines of each UTC day of it, from the same billing engine: the period is
 * billed once, cut at every midnight (the parts add up to the period lines exactly). When a
 * price changes within the period, the invoices need their own cuts: the report is then
 * billed again by `billingReport`. `levels`: the levels whose lines are wanted.
 */
export async function billedByDay(
  connection: DuckDBConnection, params: BillingParams, options: BillingOptions, extras: ReportExtras, levels: readonly Level[],
): Promise<{ report: BillingReport; days: BilledDay[] }> {
  const billed = await billWarehouse(connection, params, { ...options, splitAt: dayCuts(params.start, params.end) }, extras.load, levels);
  const days = (billed.parts ?? [{ start: params.start, end: params.end, lines: billed.lines }])
    .filter((part) => part.lines.length > 0)
    .map((part) => ({ start: part.start, lines: part.lines }));
  const pricesChange = extras.prices !== undefined && priceChanges(extras.prices, params.start, params.end, params.accountId).length > 0;
  const report = pricesChange
    ? await billingReport(connection, params, options, extras)
    : await reportOf({ ...billed, parts: undefined }, params, options, extras);
  return { report, days };
}
