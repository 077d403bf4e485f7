import { nameOf, overlayNames, type Names } from "../billing/names.js";
import { cloudspaceStats } from "../stats/cloudspaceStats.js";
import { machineStats } from "../stats/machineStats.js";
import type { FieldReadings } from "../stats/buildStatsSql.js";
import { SERIES_CATALOG } from "../stats/seriesCatalog.js";
import type { StatsResponse } from "../stats/types.js";
import { duckdbApi } from "../base/duckdb.js";
import { readEntityNames } from "../store/entityNames.js";
import type { Warehouse } from "../store/types.js";
import { chosenMonth, monthsOf, type MonthChoice } from "./months.js";
import { notInWarehouse } from "./notFound.js";

/** What the machine and cloud space pages show of one month. */
export interface EntityData {
  entity: "machine" | "cloudspace";
  id: number;
  name: string;
  accountId: number;
  accountName: string;
  /** The cloud space of a machine; the cloud space itself for a cloud space. */
  cloudspaceId: number;
  cloudspaceName: string;
  month: MonthChoice;
  /** The months the entity has samples in, oldest first. */
  months: MonthChoice[];
  /** Every series of the entity (`machineStats` / `cloudspaceStats`, as `stats` gives them). */
  stats: StatsResponse;
  /** Hours of the month the machine was not running (its `status`), or the cloud space had no machine running; with what they were. */
  halted: { hourEpoch: number; status: string }[];
}

/** Where and when an entity has samples: its account, cloud space and first and last hour. */
const WHERE_SQL = {
  machine:
    "SELECT account_id, any_value(cloudspace_id ORDER BY hour_epoch DESC) AS cloudspace_id, min(hour_epoch) AS first, max(hour_epoch) AS last FROM machines WHERE machine_id = $id GROUP BY account_id ORDER BY last DESC LIMIT 1",
  cloudspace:
    "SELECT account_id, cloudspace_id, min(hour_epoch) AS first, max(hour_epoch) AS last FROM cloudspaces WHERE cloudspace_id = $id GROUP BY account_id, cloudspace_id ORDER BY last DESC LIMIT 1",
} as const;

/** The hours of a period a machine was not running, or a cloud space had no running machine. */
const HALTED_SQL = {
  machine:
    "SELECT hour_epoch, any_value(status) AS status FROM machines WHERE machine_id = $id AND account_id = $account AND hour_epoch >= $start AND hour_epoch < $end AND status <> 'RUNNING' GROUP BY hour_epoch ORDER BY hour_epoch",
  cloudspace:
    "SELECT hour_epoch, 'no machine running' AS status FROM machines WHERE cloudspace_id = $id AND account_id = $account AND hour_epoch >= $start AND hour_epoch < $end AND type = 'vm' GROUP BY hour_epoch HAVING bool_and(status <> 'RUNNING') ORDER BY hour_epoch",
} as const;

/**
 * A machine's or cloud space's month: every statistics series of it (the library's
 * `machineStats`/`cloudspaceStats`) and its halted hours; the month defaults to the entity's
 * last month with samples; names: those `sync` stored under `namesFile`'s; cpu and network read
 * as the units file says (`readings`, see docs/formulas.md). Throws NotFoundError for an id the warehouse does not hold, or a month the entity has no sample in.
 */
export async function entityData(
  store: Warehouse,
  entity: "machine" | "cloudspace",
  id: number,
  month?: string,
  namesFile?: Names,
  readings?: FieldReadings,
): Promise<EntityData> {
  const { connection } = store;
  const { BIGINT } = duckdbApi();
  const rows = async (sql: string, values: Record<string, number>) =>
    (
      await connection.runAndReadAll(
        sql,
        Object.fromEntries(Object.entries(values).map(([k, v]) => [k, BigInt(v)])),
        Object.fromEntries(Object.keys(values).map((k) => [k, BIGINT])),
      )
    ).getRowObjectsJS();
  const where = (await rows(WHERE_SQL[entity], { id }))[0];
  const what = `${entity === "machine" ? "machine" : "cloud space"} ${id}`;
  if (!where) throw notInWarehouse(what);
  const accountId = Number(where.account_id);
  const cloudspaceId = Number(where.cloudspace_id);
  const months = monthsOf({ period: { firstHourEpoch: Number(where.first), lastHourEpoch: Number(where.last) } });
  const chosen = chosenMonth(months, month, `the samples of ${what}`);
  const request = {
    from: chosen.start,
    till: chosen.end,
    accountId,
    include: SERIES_CATALOG[entity].map((d) => d.name),
    readings,
  };
  const stats =
    entity === "machine"
      ? await machineStats(connection, { ...request, machineId: id })
      : await cloudspaceStats(connection, { ...request, cloudspaceId: id });
  const halted = (await rows(HALTED_SQL[entity], { id, account: accountId, start: chosen.start, end: chosen.end })).map(
    (r) => ({ hourEpoch: Number(r.hour_epoch), status: String(r.status) }),
  );
  const names = overlayNames(await readEntityNames(connection), namesFile);
  return {
    entity,
    id,
    name: nameOf(names, entity, id),
    accountId,
    accountName: nameOf(names, "account", accountId),
    cloudspaceId,
    cloudspaceName: nameOf(names, "cloudspace", cloudspaceId),
    month: chosen,
    months,
    stats,
    halted,
  };
}
