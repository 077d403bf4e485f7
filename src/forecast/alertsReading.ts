import type { DuckDBConnection } from "@duckdb/node-api";
import type { ResolvedBillingOptions } from "../billing/billingOptions.js";
import { groupedAccountHours } from "../billing/groupedHours.js";
import type { HourlyRows } from "../billing/hourlyRows.js";
import type { PriceList } from "../billing/prices.js";
import { alertGroups } from "./alertGroups.js";
import { anomaliesOf, anomalyTableLevels, mergeReports, type AnomalyScan, type ScanResult } from "./anomalies.js";
import { billedMonth, forecastTable, type ForecastPlan } from "./forecast.js";
import { usagePass, type BilledAccounts } from "./usagePass.js";
import { HourCosts, hourFigures, UsageTable } from "./usageTable.js";

/** What `alerts` reads: the forecast's table and month billed, and the anomalies found. */
export interface AlertsReading {
  table: UsageTable;
  billed: BilledAccounts | undefined;
  found: ScanResult;
}

type AlertsScan = AnomalyScan & { readStart: number; maxEntityHours: number };

/** Each hour's rows into `table`, with their figures (and costs with `costs`). */
function into(table: UsageTable, costs: HourCosts | undefined): (rows: HourlyRows) => void {
  let scratch: Float64Array = new Float64Array(0);
  return (rows) => table.add(rows, (scratch = hourFigures(rows, costs, scratch)));
}

/**
 * The anomalies of `scan`, read through the engine from `scan.readStart`: every account in one
 * pass, or each group of accounts of `groups` in its own (their entity-hours past `maxEntityHours`
 * together), a group's table taking the figures' memory of the group before.
 */
async function anomalyPasses(
  connection: DuckDBConnection,
  scan: AlertsScan,
  end: number,
  groups: readonly (readonly number[])[],
  costs: HourCosts | undefined,
  options: ResolvedBillingOptions,
): Promise<ScanResult> {
  const results: ScanResult[] = [];
  let spare: Float64Array[] = [];
  for (const accountIds of groups.length <= 1 ? [undefined] : groups) {
    const own = new UsageTable(scan.readStart, end, anomalyTableLevels(scan.levels), options.names, spare);
    await usagePass(connection, {
      start: scan.readStart,
      end,
      ...(accountIds === undefined ? {} : { accountIds }),
      options,
      levelsAt: () => own.levels,
      onHour: into(own, costs),
    });
    results.push(anomaliesOf(own, scan));
    spare = own.release();
  }
  return mergeReports(results);
}

/**
 * The month's forecast table and month billed, and the anomalies of `scan`. The forecast needs no
 * machine: its accounts' hours are read grouped (`groupedAccountHours`, each configuration's
 * figures computed once), and the engine reads only the anomalies' weeks, at every level they
 * keep. When the grouped road cannot count exactly (see `groupedAccountHours`), everything goes
 * through the engine (`readAlertsThroughEngine`).
 */
export async function readAlerts(
  connection: DuckDBConnection,
  plan: ForecastPlan,
  scan: AlertsScan,
  prices: PriceList | undefined,
  options: ResolvedBillingOptions,
): Promise<AlertsReading> {
  const end = plan.limit;
  const table = forecastTable(plan, options);
  const grouped = await groupedAccountHours(connection, {
    start: plan.readFrom,
    end,
    billed: billedMonth(plan, prices),
    options,
    onHour: into(table, prices ? new HourCosts(prices, options.units, plan.readFrom, end) : undefined),
  });
  if (!grouped) return readAlertsThroughEngine(connection, plan, scan, prices, options);
  const groups = await alertGroups(connection, scan.readStart, end, scan.maxEntityHours, options);
  const costs = prices ? new HourCosts(prices, options.units, scan.readStart, end) : undefined;
  return { table, billed: grouped.billed, found: await anomalyPasses(connection, scan, end, groups, costs, options) };
}

/**
 * `readAlerts` through the engine alone: the forecast's table and the anomalies' from one pass
 * over the warehouse when the anomalies' entity-hours fit `scan.maxEntityHours`; else the
 * forecast's pass, then one pass per group of accounts that fits it for the anomalies.
 */
async function readAlertsThroughEngine(
  connection: DuckDBConnection,
  plan: ForecastPlan,
  scan: AlertsScan,
  prices: PriceList | undefined,
  options: ResolvedBillingOptions,
): Promise<AlertsReading> {
  const end = plan.limit;
  const table = forecastTable(plan, options);
  const groups = await alertGroups(connection, scan.readStart, end, scan.maxEntityHours, options);
  const shared =
    groups.length <= 1
      ? new UsageTable(scan.readStart, end, anomalyTableLevels(scan.levels), options.names)
      : undefined;
  const start = Math.min(plan.readFrom, shared ? scan.readStart : Number.POSITIVE_INFINITY);
  const costs = prices ? new HourCosts(prices, options.units, start, end) : undefined;
  let scratch: Float64Array = new Float64Array(0);
  const billed = await usagePass(connection, {
    start,
    end,
    billed: billedMonth(plan, prices),
    options,
    levelsAt: (hour) => (shared && hour >= scan.readStart ? shared.levels : table.levels),
    onHour: (lines) => {
      scratch = hourFigures(lines, costs, scratch);
      table.add(lines, scratch);
      shared?.add(lines, scratch);
    },
  });
  if (shared) return { table, billed, found: mergeReports([anomaliesOf(shared, scan)]) };
  return { table, billed, found: await anomalyPasses(connection, scan, end, groups, costs, options) };
}
