import type { DuckDBConnection } from "@duckdb/node-api";
import { ACCOUNT_QUERIES } from "./accountSeries.js";
import { runStats } from "./runStats.js";
import type { AccountStatsRequest, StatsResponse } from "./types.js";

/**
 * The statistics series of one account (seed 4.3, docs/statistics.md): `{ time, series }` with only the
 * series named in `include` (capacity TB — also as `storage-capacity`, returned under that
 * key —, vdisk-iops, cpu { allocated vCPUs, inuse % }, memory GB, network { in, out } MB/s).
 * `time` is the hours in `[from, till)` with a loaded account-hour; an account the warehouse has
 * never seen is a UsageError (UNKNOWN_ID); a known one without samples gives an empty `time`.
 */
export function accountStats(connection: DuckDBConnection, request: AccountStatsRequest): Promise<StatsResponse> {
  return runStats(connection, { entity: "account", queries: ACCOUNT_QUERIES, accountId: request.accountId }, request);
}
