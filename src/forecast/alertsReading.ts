import type { DuckDBConnection } from "@duckdb/node-api";
import { withMemoryLimitKept } from "../base/duckdb.js";
import type { ResolvedBillingOptions } from "../billing/billingOptions.js";
import type { PriceList } from "../billing/prices.js";
import { alertGroups } from "./alertGroups.js";
import { anomaliesOf, anomalyTableLevels, mergeReports, type AnomalyScan, type ScanResult } from "./anomalies.js";
import { billedMonth, forecastTable, readForecastHours, type ForecastPlan } from "./forecast.js";
import { usagePass, type BilledAccounts } from "./usagePass.js";
import { feedingTable, HourCosts, hourFigures, UsageTable } from "./usageTable.js";

/** What `alerts` reads: the forecast's table and month billed, and the anomalies found. */
export interface AlertsReading {
  table: UsageTable;
  billed: BilledAccounts | undefined;
  found: ScanResult;
}

/**
 * The most machine rows a window of alerts' reads holds: a few days of 2,000 machines where the
 * stored facts' reads were a day each (a segment of them spans several days, decompressed again by
 * each day's query). A day of more machines is still a window alone.
 */
export const ALERTS_WINDOW_ROWS = 200_000;

type AlertsScan = AnomalyScan & { readStart: number; maxEntityHours: number };

/** What `alerts` reads: the month's forecast (`plan`), the anomalies (`scan`), with prices and options. */
export interface AlertsRead {
  plan: ForecastPlan;
  scan: AlertsScan;
  prices: PriceList | undefined;
  options: ResolvedBillingOptions;
}

/** Each hour's rows into `table`, with their figures (and costs with `costs`). */

/**
 * The anomalies of `scan`, read through the engine from `scan.readStart`, each group of accounts
 * of `groups` in its own pass (their entity-hours within `maxEntityHours`), a group's table
 * taking the figures' memory of the group before.
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
  for (const accountIds of groups) {
    const own = new UsageTable(scan.readStart, end, anomalyTableLevels(scan.levels), options.names, spare);
    await usagePass(connection, {
      start: scan.readStart,
      end,
      accountIds,
      options,
      levelsAt: () => own.levels,
      onHour: feedingTable(own, costs),
      windowRows: ALERTS_WINDOW_ROWS,
    });
    results.push(anomaliesOf(own, scan));
    spare = own.release();
  }
  return mergeReports(results);
}

/**
 * The month's forecast table and month billed, and the anomalies of `scan`. When the anomalies'
 * entity-hours fit `scan.maxEntityHours`, one pass of the engine gives both (`sharedPass`: the
 * anomalies' weeks are most of the forecast's). Else the anomalies are read a group of accounts
 * at a time, and the forecast's pass would read every machine-hour of its weeks for the accounts'
 * figures alone: they are read grouped (`groupedAccountHours`, each configuration's figures
 * computed once), through the engine only when the grouped road cannot count them exactly.
 */
export async function readAlerts(connection: DuckDBConnection, read: AlertsRead): Promise<AlertsReading> {
  const { plan, scan, prices, options } = read;
  const end = plan.limit;
  const groups = await alertGroups(connection, scan.readStart, end, scan.maxEntityHours, options);
  if (groups.length <= 1) return sharedPass(connection, read);
  const table = forecastTable(plan, options);
  // the month's grouping may raise DuckDB's cap (see withMemoryToSpare): the groups' reads keep to it
  const billed = await readForecastHours(connection, plan, table, prices, options, (read) =>
    withMemoryLimitKept(connection, read),
  );
  const costs = prices ? new HourCosts(prices, options.units, scan.readStart, end) : undefined;
  return { table, billed, found: await anomalyPasses(connection, scan, end, groups, costs, options) };
}

/** `readAlerts` of every account at once: the forecast's table and the anomalies' from one pass of the engine. */
async function sharedPass(connection: DuckDBConnection, read: AlertsRead): Promise<AlertsReading> {
  const { plan, scan, prices, options } = read;
  const end = plan.limit;
  const table = forecastTable(plan, options);
  const shared = new UsageTable(scan.readStart, end, anomalyTableLevels(scan.levels), options.names);
  const start = Math.min(plan.readFrom, scan.readStart);
  const costs = prices ? new HourCosts(prices, options.units, start, end) : undefined;
  let scratch: Float64Array = new Float64Array(0);
  const billed = await usagePass(connection, {
    start,
    end,
    billed: billedMonth(plan, prices),
    options,
    windowRows: ALERTS_WINDOW_ROWS,
    levelsAt: (hour) => (hour >= scan.readStart ? shared.levels : table.levels),
    onHour: (lines) => {
      scratch = hourFigures(lines, costs, scratch);
      table.add(lines, scratch);
      shared.add(lines, scratch);
    },
  });
  return { table, billed, found: mergeReports([anomaliesOf(shared, scan)]) };
}
