import type { DuckDBConnection } from "@duckdb/node-api";
import { CLOUDSPACE_QUERIES } from "./cloudspaceSeries.js";
import { runStats } from "./runStats.js";
import type { CloudspaceStatsRequest, StatsResponse } from "./types.js";

/**
 * The statistics series of one cloud space (seed 4.2, docs/statistics.md): `{ time, series }` with only
 * the series named in `include` (vdisk-iops, capacity TB, cpu { allocated vCPUs, inuse % },
 * memory MB, network { vms, gateways } × { in, out } MB in the hour). `time` is the hours in
 * `[from, till)` at which the cloud space has a sample; one never seen is a UsageError (UNKNOWN_ID).
 * A cloud space id found in several accounts in the period needs `accountId` (UsageError).
 */
export function cloudspaceStats(connection: DuckDBConnection, request: CloudspaceStatsRequest): Promise<StatsResponse> {
  return runStats(
    connection,
    {
      entity: "cloudspace",
      queries: CLOUDSPACE_QUERIES,
      id: request.cloudspaceId,
      accountId: request.accountId,
    },
    request,
  );
}
