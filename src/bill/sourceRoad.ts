import type { BillProduce, BillSource, WarehouseSource } from "./bill.js";

/**
 * How a bill reads its source:
 * - `files`: decoded and billed as they stream (on worker threads for inputs large enough to
 *   repay their start), nothing loaded into a database; memory all but flat in the period;
 * - `files loaded in memory`: into an in-memory warehouse (only the period's files, only the
 *   tables and columns billing reads), for the outputs that list every hour: the hourly lines
 *   are read from it hour by hour, in windows of whole days;
 * - `warehouse`: the warehouse given, by the first of `warehouseRoads` that answers.
 */
export type SourceRoad = "files" | "files loaded in memory" | "warehouse";

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
  return produce.hourly ? "files loaded in memory" : "files";
}
