import type { BillProduce, BillSource, WarehouseSource } from "./bill.js";

/**
 * How a bill reads its source:
 * - `files`: decoded and billed as they stream (on worker threads for inputs large enough to
 *   repay their start), nothing loaded into a database; memory all but flat in the period;
 * - `files read again by hour`: as `files`, and for the outputs that list every hour, read again
 *   by hour, then account, each hour's lines handed over as the next begins (`hourlyFiles`):
 *   nothing loaded into a database, memory flat in the period;
 * - `warehouse`: the warehouse given, by the first of `warehouseRoads` that answers.
 */
export type SourceRoad = "files" | "files read again by hour" | "warehouse";

/** True when the source is input files rather than a warehouse. */
export function isFiles(source: BillSource): source is readonly string[] {
  return Array.isArray(source);
}

/** The warehouse of a source that is one. */
export function warehouseOf(source: BillSource): WarehouseSource | undefined {
  return isFiles(source) ? undefined : source;
}

/** The road a bill of `source` takes for what it is asked to produce. */
export function sourceRoad(source: BillSource, produce: BillProduce): SourceRoad {
  if (!isFiles(source)) return "warehouse";
  return produce.hourly ? "files read again by hour" : "files";
}
