import type { DuckDBConnection } from "@duckdb/node-api";
import { parsePeriod, resolveAccount } from "./runStats.js";
import { ENTITY_QUERIES } from "./seriesCatalog.js";
import type { StatsEntity } from "./types.js";

/**
 * The account a statistics request reads, as `machineStats` / `cloudspaceStats` /
 * `accountStats` resolve it: an account's own id; for a machine or cloud space, `accountId`
 * when given, else the one account holding the id in `[from, till)` (undefined when none;
 * a UsageError when several). For reports that go with the series (missing hours).
 */
export function statsAccount(
  connection: DuckDBConnection,
  entity: StatsEntity,
  request: { id: number; accountId?: number; from: number | string; till: number | string },
): Promise<number | undefined> {
  const { fromEpoch, tillEpoch } = parsePeriod(request.from, request.till);
  if (entity === "account") return Promise.resolve(request.id);
  return resolveAccount(
    connection,
    { entity, queries: ENTITY_QUERIES[entity], id: request.id, accountId: request.accountId },
    fromEpoch,
    tillEpoch,
  );
}
