/**
 * The tables an account-hour is staged into, one per kind of record (the warehouse's data
 * tables, docs/warehouse.md): the loading layer stages columns by these names, the warehouse
 * creates a table for each. `machine_facts` and `gateway_facts` hold what the facts builder makes
 * of the hour's records (the billing facts), staged with them.
 */
export const DATA_TABLES = [
  "account_hours",
  "cloudspaces",
  "machines",
  "gateways",
  "disks",
  "nics",
  "machine_facts",
  "gateway_facts",
] as const;

/** A table holding hourly data (not the manifest). */
export type DataTable = (typeof DATA_TABLES)[number];
