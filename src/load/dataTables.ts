/**
 * The tables an account-hour is staged into, one per kind of record (the warehouse's data
 * tables, docs/warehouse.md): the loading layer stages columns by these names, the warehouse
 * creates a table for each.
 */
export const DATA_TABLES = ["account_hours", "cloudspaces", "machines", "gateways", "disks", "nics"] as const;

/** A table holding hourly data (not the manifest). */
export type DataTable = (typeof DATA_TABLES)[number];
