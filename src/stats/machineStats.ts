import type { DuckDBConnection } from "@duckdb/node-api";
import { MACHINE_QUERIES } from "./machineSeries.js";
import { runStats } from "./runStats.js";
import type { MachineStatsRequest, StatsResponse } from "./types.js";

/**
 * The statistics series of one machine (seed 4.1, docs/statistics.md): `{ time, series }` with only the
 * series named in `include` (cpu %, memory MB, vdisk-iops, vm-iops, vdisk-capacity GB,
 * vm-capacity GB, network KB/s per NIC position). `time` is the hours in `[from, till)` at
 * which the machine has a sample; a machine never seen is a UsageError (UNKNOWN_ID).
 * A machine id found in several accounts in the period needs `accountId` (UsageError).
 */
export function machineStats(connection: DuckDBConnection, request: MachineStatsRequest): Promise<StatsResponse> {
  return runStats(
    connection,
    {
      entity: "machine",
      queries: MACHINE_QUERIES,
      id: request.machineId,
      accountId: request.accountId,
    },
    request,
  );
}
