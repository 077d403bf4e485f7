import type { DuckDBConnection } from "@duckdb/node-api";
import type { Period } from "../base/period.js";
import { BillingEngine } from "./billingEngine.js";
import { resolveOptions, type BillingOptions } from "./billingOptions.js";
import type { HourlyRows } from "./hourlyRows.js";
import { levelsFor, type Level } from "./levels.js";
import type { BillingLine } from "./lines.js";
import { inReportOrder, linesOfRows } from "./hourlyRowLines.js";
import { warehouseFacts } from "./warehouseFacts.js";

/**
 * The hourly lines of the given levels, in batches of one hour (ordered by hour, then the
 * hierarchy): what `--detail hourly`, the Hourly sheet and FOCUS render. Same figures as
 * the period's lines, from the same engine; the warehouse is read in windows of whole days and each hour's
 * lines are yielded as soon as the hour is complete (memory does not grow with the period).
 */
export async function* hourlyLines(
  connection: DuckDBConnection,
  period: Period,
  options: BillingOptions = {},
  levels: readonly Level[] = levelsFor(period),
): AsyncGenerator<BillingLine[]> {
  yield* linesOfRows(hourlyRows(connection, period, options, levels), resolveOptions(options));
}

/**
 * The hourly lines of {@link hourlyLines} as the engine's rows (`HourlyRows`: numbers in columns, no
 * object per line), an hour a batch (in report order, a batch the consumer may keep).
 */
export async function* hourlyRows(
  connection: DuckDBConnection,
  period: Period,
  options: BillingOptions = {},
  levels: readonly Level[] = levelsFor(period),
): AsyncGenerator<HourlyRows> {
  const resolved = resolveOptions(options);
  const ready: HourlyRows[] = [];
  const engine = new BillingEngine(resolved.units, resolved.cuRollup, {
    rows: (rows) => ready.push(inReportOrder(rows, levels)),
  });
  engine.keepLevels(levels, []); // no period line is read: nothing summed over the period
  for await (const facts of warehouseFacts(connection, period, resolved.units.externalNicType)) {
    engine.add(facts);
    while (ready.length > 0) yield ready.shift()!;
  }
  engine.finish();
  while (ready.length > 0) yield ready.shift()!;
}
