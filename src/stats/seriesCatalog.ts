import { DATA_TABLES, type DataTable } from "../store/schema.js";
import { ACCOUNT_SERIES } from "./accountSeries.js";
import { CLOUDSPACE_SERIES } from "./cloudspaceSeries.js";
import { MACHINE_SERIES } from "./machineSeries.js";
import type { SeriesDefinition } from "./seriesDefinition.js";
import type { StatsEntity } from "./types.js";

/** Every series each kind of entity offers. */
export const SERIES_CATALOG: Readonly<Record<StatsEntity, readonly SeriesDefinition[]>> = {
  machine: MACHINE_SERIES,
  cloudspace: CLOUDSPACE_SERIES,
  account: ACCOUNT_SERIES,
};

/** The definition of one series of an entity (unit, title); undefined for an unknown name. */
export function seriesDefinition(entity: StatsEntity, name: string): SeriesDefinition | undefined {
  return SERIES_CATALOG[entity].find((d) => d.name === name);
}

/**
 * The warehouse tables the requested series of an entity read, with the table of its sample
 * hours: what an in-memory load must fill. Unknown names are left to `selectSeries` to report.
 */
export function statsTables(entity: StatsEntity, include: readonly string[]): DataTable[] {
  const sql = [TIME_TABLE[entity], ...SERIES_CATALOG[entity].filter((d) => include.includes(d.name)).map((d) => d.sql)].join("\n");
  return DATA_TABLES.filter((table) => new RegExp(`\\b(FROM|JOIN)\\s+${table}\\b`, "i").test(sql));
}

const TIME_TABLE: Readonly<Record<StatsEntity, string>> = {
  machine: "FROM machines",
  cloudspace: "FROM cloudspaces",
  account: "FROM account_hours",
};
