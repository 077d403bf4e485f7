import type { DuckDBConnection } from "@duckdb/node-api";
import type { Period } from "../base/period.js";
import type { BillingEngine } from "./billingEngine.js";
import { groupedReadable } from "./groupedFacts.js";
import { addGroupedAccounts, addGroupedFacts } from "./groupedFeed.js";
import { addGroupedAccount, addGroupedLevels } from "./groupedLevels.js";
import { environmentOnly, type Level } from "./levels.js";
import type { Units } from "./units.js";
import { factsReadable, rowFacts, storedFacts } from "./warehouseFacts.js";

/** The name of a road from a warehouse to the billing engine (see {@link warehouseRoads}). */
export type WarehouseRoadName =
  "grouped environment" | "grouped accounts" | "grouped account" | "grouped levels" | "stored facts" | "rows";

/** One way of feeding a billing engine the facts of a period from a warehouse. */
export interface WarehouseRoad {
  readonly name: WarehouseRoadName;
  /**
   * Feeds `engine` (made with the road's cuts and levels) the period's facts. False when this
   * road cannot give the figures to the bit, having maybe fed it some: the next road is taken
   * then, with an engine of its own.
   */
  feed(engine: BillingEngine): Promise<boolean>;
}

/** The most cuts (price changes, midnights) a period may have to be billed from classes of account-hours. */
const MAX_CLASS_CUTS = 12;

/**
 * The roads that may bill `levels` of `period` (cut at `cuts`) from a warehouse, in the order
 * they are tried; the last always answers. Every road gives the same figures to the bit
 * (`test/billing/billInputs.test.ts` holds them to it); they differ in what they read:
 * - `grouped environment`: the environment alone, from its VM configurations and hours grouped
 *   in DuckDB (docs/warehouse.md, "Billing the environment");
 * - `grouped accounts`: the environment and the accounts alone, from their account-hours' totals
 *   and each account's VM configurations grouped in DuckDB;
 * - `grouped account`: one account's levels, from the classes of its identical account-hours, weighted;
 * - `grouped levels`: every level of every account, the environment as `grouped environment`,
 *   the levels below it as `grouped account` for each account;
 * - `stored facts`: the facts stored at ingest, row by row, in windows of whole days;
 * - `rows`: the disk and NIC rows (a warehouse without stored facts), through the facts builder.
 * A grouped road runs each query once for the whole period, grouping by the part of it an hour
 * is in. The roads of classes of account-hours (`grouped account`, `grouped levels`) are taken
 * for a few cuts only: cut at every midnight, an account's classes are about its hours, and
 * grouping them costs more than reading its stored facts (docs/performance.md, the roads).
 * A new road is an entry here, before the one it is faster than.
 */
export async function warehouseRoads(
  connection: DuckDBConnection,
  period: Period,
  units: Units,
  levels: readonly Level[],
  cuts: readonly number[],
): Promise<WarehouseRoad[]> {
  const roads: WarehouseRoad[] = [];
  const groupable = await groupedReadable(connection, units);
  if (groupable && environmentOnly(levels)) {
    roads.push({
      name: "grouped environment",
      feed: (engine) => addGroupedFacts(connection, period, units, cuts, engine),
    });
  } else if (groupable && levels.every((l) => l === "environment" || l === "account")) {
    roads.push({
      name: "grouped accounts",
      feed: (engine) => addGroupedAccounts(connection, period, units, cuts, engine),
    });
  }
  const classes = groupable && cuts.length <= MAX_CLASS_CUTS;
  if (classes && period.accountId !== undefined && !levels.includes("environment")) {
    roads.push({
      name: "grouped account",
      feed: (engine) => addGroupedAccount(connection, period, units, cuts, engine),
    });
  }
  if (classes && period.accountId === undefined && !environmentOnly(levels)) {
    roads.push({ name: "grouped levels", feed: (engine) => addGroupedLevels(connection, period, units, cuts, engine) });
  }
  const stored = await factsReadable(connection, units.externalNicType);
  roads.push({
    name: stored ? "stored facts" : "rows",
    feed: async (engine) => {
      const facts = stored
        ? storedFacts(connection, period, units.externalNicType)
        : rowFacts(connection, period, units.externalNicType);
      for await (const hour of facts) engine.add(hour);
      return true;
    },
  });
  return roads;
}
