import type { DuckDBConnection } from "@duckdb/node-api";
import { paramsNamedIn } from "../base/duckdb.js";
import { paramTypes, paramValues, periodSql, type Period } from "../base/period.js";
import { resolveOptions, type BillingOptions } from "./billingOptions.js";
import { levelsFor, type Level } from "./levels.js";

/**
 * The number of hourly lines `hourlyLines` would yield for these levels: an hour of the
 * environment, an account-hour, a cloud-space-hour, a billed machine record each make one.
 */
export async function hourlyLineCount(
  connection: DuckDBConnection,
  period: Period,
  options: BillingOptions = {},
  levels: readonly Level[] = levelsFor(period),
): Promise<number> {
  const resolved = resolveOptions(options);
  const where = periodSql();
  const counts: Record<Level, string> = {
    environment: `SELECT count(DISTINCT hour_epoch) FROM account_hours WHERE ${where}`,
    account: `SELECT count(*) FROM account_hours WHERE ${where}`,
    cloudspace: `SELECT count(DISTINCT (account_id, hour_epoch, cloudspace_id)) FROM cloudspaces WHERE ${where}`,
    machine: `SELECT count(*) FROM machines WHERE ${where} AND type = $vmType`,
  };
  const sql = `SELECT ${levels.map((l) => `(${counts[l]})`).join(" + ")} AS n`;
  // without the machines, the query names no $vmType (DuckDB refuses a value for a parameter it lacks)
  const reader = await connection.runAndReadAll(
    sql,
    paramsNamedIn(sql, { ...paramValues(period), vmType: resolved.units.vmType }),
    paramTypes(),
  );
  return Number(reader.getRowObjectsJS()[0]!.n);
}
