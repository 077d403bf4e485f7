import type { DuckDBConnection } from "@duckdb/node-api";
import type { Period } from "../base/period.js";
import { BillingEngine, type SeenData } from "./billingEngine.js";
import { resolveOptions, type BillingOptions } from "./billingOptions.js";
import { linesOf, partsOf } from "./engineLines.js";
import { environmentOnly, levelsFor, type Level } from "./levels.js";
import type { BillingLine, PeriodPart } from "./lines.js";
import { warehouseRoads, type WarehouseRoadName } from "./warehouseRoads.js";

/** What one pass over a warehouse gives: the period lines, the lines of each part, what the engine saw, and the road it took. */
export interface WarehousePass {
  lines: BillingLine[];
  /** With cuts: the lines of each part between them, in order; undefined without. */
  parts: PeriodPart[] | undefined;
  /** What the engine saw of the data (for data quality). */
  seen: SeenData;
  road: WarehouseRoadName;
}

/**
 * The period lines of the given levels (the period cut at `cuts`, ascending, strictly inside it;
 * the parts' lines of `partLevels`, default the same)
 * and what the engine saw of the data, in one pass over the warehouse, by the first road of
 * `warehouseRoads` that answers.
 */
export async function billingPass(
  connection: DuckDBConnection,
  period: Period,
  options: BillingOptions = {},
  levels: readonly Level[] = levelsFor(period),
  cuts: readonly number[] = [],
  partLevels: readonly Level[] = levels,
): Promise<WarehousePass> {
  const resolved = resolveOptions(options);
  const newEngine = () => {
    const engine = new BillingEngine(resolved.units, resolved.cuRollup, undefined, environmentOnly(levels), cuts);
    engine.sumByPart(partLevels); // the parts' lines of the levels read alone
    return engine;
  };
  let engine = newEngine();
  let road: WarehouseRoadName | undefined;
  // a road that does not answer may have fed the engine part of the facts: the next one reads them another way, into a new engine
  for (const candidate of await warehouseRoads(connection, period, resolved.units, levels, cuts)) {
    if (await candidate.feed(engine)) {
      road = candidate.name;
      break;
    }
    engine = newEngine();
  }
  const lines = linesOf(engine.finish(), resolved, levels);
  return { lines, parts: partsOf(engine, period, cuts, resolved, partLevels), seen: engine.seenData(), road: road! };
}
