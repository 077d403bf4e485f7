import { DATA_TABLES, type DataTable } from "../store/schema.js";
import { ACCOUNT_QUERIES } from "./accountSeries.js";
import { buildStatsSql } from "./buildStatsSql.js";
import { CLOUDSPACE_QUERIES } from "./cloudspaceSeries.js";
import { MACHINE_QUERIES } from "./machineSeries.js";
import type { EntityQueries, SeriesDefinition } from "./seriesDefinition.js";
import type { StatsEntity } from "./types.js";

/** The SQL of each kind of entity. */
export const ENTITY_QUERIES: Readonly<Record<StatsEntity, EntityQueries>> = {
  machine: MACHINE_QUERIES,
  cloudspace: CLOUDSPACE_QUERIES,
  account: ACCOUNT_QUERIES,
};

/** Every series each kind of entity offers. */
export const SERIES_CATALOG: Readonly<Record<StatsEntity, readonly SeriesDefinition[]>> = {
  machine: MACHINE_QUERIES.series,
  cloudspace: CLOUDSPACE_QUERIES.series,
  account: ACCOUNT_QUERIES.series,
};

/** The definition of one series of an entity (unit, title); undefined for an unknown name. */
export function seriesDefinition(entity: StatsEntity, name: string): SeriesDefinition | undefined {
  return SERIES_CATALOG[entity].find((d) => d.name === name);
}

/**
 * The warehouse tables a request for these series of an entity reads: what an in-memory
 * load must fill. Unknown names are left to `selectSeries` to report.
 */
export function statsTables(entity: StatsEntity, include: readonly string[]): DataTable[] {
  const queries = ENTITY_QUERIES[entity];
  const sql = [
    buildStatsSql(
      queries,
      queries.series.filter((d) => include.includes(d.name)),
    ),
    queries.accountsSql ?? "",
  ].join("\n");
  return DATA_TABLES.filter((table) => new RegExp(`\\b(FROM|JOIN)\\s+${table}\\b`, "i").test(sql));
}
