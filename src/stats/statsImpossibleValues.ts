import type { DuckDBConnection } from "@duckdb/node-api";
import { GATEWAY_TYPE } from "../load/columnBatch.js";
import { readImpossibleValues, type ImpossibleValue } from "../load/impossibleValues.js";
import { parsePeriod } from "./runStats.js";
import { ENTITY_QUERIES } from "./seriesCatalog.js";
import { selectSeries } from "./selectSeries.js";
import type { StatsEntity, StatsPeriod } from "./types.js";

const OWNER: Record<StatsEntity, string> = {
  machine: "AND machine_id = $id AND machine_type <> $gateway",
  cloudspace: "AND cloudspace_id = $id",
  account: "",
};

/**
 * The impossible values (docs/warehouse.md) behind the `null`s of a statistics request: those of the
 * entity (of account `accountId`, as `statsAccount` resolves it) in `[from, till)`, in the
 * measures its requested series read. A gateway's own vcpus, memory and disks are in no
 * series; its NICs are in the cloud space's and account's `network`.
 */
export async function statsImpossibleValues(
  connection: DuckDBConnection,
  entity: StatsEntity,
  accountId: number,
  request: StatsPeriod & { id: number },
): Promise<ImpossibleValue[]> {
  const { fromEpoch, tillEpoch } = parsePeriod(request.from, request.till);
  const sql = selectSeries(entity, ENTITY_QUERIES[entity].series, request.include)
    .map((d) => d.sql)
    .join("\n");
  const found = await readImpossibleValues(
    connection,
    `account_id = $account AND hour_epoch >= $from AND hour_epoch < $till ${OWNER[entity]}
      AND NOT (machine_type = $gateway AND part IN ('machine', 'disk'))`,
    {
      account: BigInt(accountId),
      from: BigInt(fromEpoch),
      till: BigInt(tillEpoch),
      id: BigInt(request.id),
      gateway: GATEWAY_TYPE,
    },
  );
  return found.filter((v) => new RegExp(`\\b${v.column}\\b`).test(sql));
}
