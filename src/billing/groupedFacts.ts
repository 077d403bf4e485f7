import type { DuckDBConnection, DuckDBType, DuckDBValue } from "@duckdb/node-api";
import { paramTypes, periodSql, runsWithin } from "../base/period.js";
import { duckdbApi, paramsNamedIn, withMemoryToSpare } from "../base/duckdb.js";
import type { SeenData } from "./billingEngine.js";
import { addHeldRuns } from "./engineSums.js";
import { UNIT_NAMES } from "./unitNames.js";
import { catalogUnits } from "./unitCatalog.js";
import type { Units } from "./units.js";
import type { Period } from "../base/period.js";
import { factsReadable } from "./warehouseFacts.js";
import { readColumns } from "./readColumns.js";
import { CONFIGURATION_FACTS, factColumnsSql, VM_FACTS } from "../load/vmFacts.js";

/**
 * The environment's figures from a warehouse's stored facts, grouped in DuckDB instead of read
 * row by row (docs/warehouse.md, "Billing the environment"). The engine sums per VM-hour
 * amounts (SU, TU, VCU, MU, WU, PIU, Σ CU) exactly, and a formula of each hour's own totals (CU
 * under `aggregate`, NU): so the same figures come from
 * - one row per distinct VM configuration of the period (status, image, memory, vCPUs, disks,
 *   IOPS limit, external NICs) with its number of VM-hours, the formulas applied once to each
 *   and the count entering the exact sums exactly (`SumBank.addTimes`);
 * - one row per hour: its account-hours, the Σ of billed memory and vCPUs, of external bytes
 *   and of gateways' public IPs: whole numbers, summed exactly by DuckDB.
 * What SQL matches (a billable status, a Windows image) is decided in TypeScript, per row.
 */

/** Sums of whole numbers below this are exact in a double, whatever their order. */
export const EXACT = 2 ** 53;

/** Thrown while a grouped road reads when a count or sum would not be exact: the read stops there, and billing reads another way. */
export class NotExact extends Error {}

/**
 * True when the environment of this warehouse can be billed grouped: its stored facts count
 * the NICs of `units.externalNicType`, and the units are the catalog's own (a unit added at run
 * time may read a VM's bytes, which the groups leave out).
 */
export async function groupedReadable(connection: DuckDBConnection, units: Units): Promise<boolean> {
  return catalogUnits().length === UNIT_NAMES.length && (await factsReadable(connection, units.externalNicType));
}

export const WHERE = periodSql();

/** The cloud spaces of each account-hour of the period (with their state: the greatest, as the facts builder keeps it). */
export const SPACES = `spaces AS (
  SELECT account_id, hour_epoch, cloudspace_id, max(state) AS state
  FROM (SELECT * FROM cloudspaces WHERE ${WHERE}) SEMI JOIN (SELECT account_id, hour_epoch FROM account_hours WHERE ${WHERE}) USING (account_id, hour_epoch)
  GROUP BY ALL)`;

/** The VM-hours of the period in a cloud space of their account-hour (what the environment's totals hold). */
export const VMS = `vms AS (SELECT * FROM (SELECT * FROM machine_facts WHERE ${WHERE} AND type = $vmType) SEMI JOIN spaces USING (account_id, hour_epoch, cloudspace_id))`;

/**
 * The part of the period each hour is in (`part`: the cuts at or before it, `$cuts`). The
 * grouped queries group by it, each run once however many cuts the period has (a month cut at
 * every midnight took a query per day); without cuts they skip the join (every part is 0).
 */
export const PARTS = `parts AS (SELECT hour_epoch, len(list_filter($cuts, lambda c: c <= hour_epoch))::DOUBLE AS part FROM account_hours WHERE ${WHERE} GROUP BY hour_epoch)`;
export const partsOf = (cut: boolean, table: string) =>
  cut ? `(SELECT * FROM ${table} JOIN parts USING (hour_epoch))` : `(SELECT *, 0::DOUBLE AS part FROM ${table})`;

/**
 * One scan of the VM-hours, two groupings: per part of the period, account and VM configuration
 * (the facts the per-VM formulas read but the bytes: `CONFIGURATION_FACTS`, whose columns follow
 * the sums, from `VM_HOURS_FACTS` on) its VM-hours; per account-hour and status, Σ memory, vCPUs
 * and external bytes (the billable statuses are decided in TypeScript), and the values that are
 * not whole numbers (then the sums would not be exact, and the grouped road is not taken).
 * `hour_epoch` is -1 in the rows of the first grouping, and only there (the columns a grouping
 * leaves out are -1 or 0, never NULL: the numbers are read as typed arrays). (Grouping the
 * machines' bytes in the same scan, each VM-hour marked by whether its cloud space is listed,
 * took as long as two queries: the mark needs a join of every VM-hour.)
 */
export const VM_HOURS_FACTS = 8;

/** A VM's configuration columns as the grouped queries read them (texts as they are, numbers as DOUBLE). */
export const CONFIGURATION_SQL = CONFIGURATION_FACTS.map((n) =>
  VM_FACTS[n].kind === "str" ? VM_FACTS[n].column : `coalesce(${VM_FACTS[n].column}, 0)::DOUBLE`,
).join(", ");
const vmHoursSql = (cut: boolean, byAccount: boolean) => `WITH ${SPACES}, ${VMS}${cut ? `, ${PARTS}` : ""}
  SELECT coalesce(hour_epoch, -1)::DOUBLE, coalesce(part, -1)::DOUBLE, coalesce(account_id, -1)::DOUBLE,
    count(*)::DOUBLE, sum(mem_mb)::DOUBLE, sum(vcpus)::DOUBLE, sum(external_bytes)::DOUBLE,
    count(*) FILTER (WHERE mem_mb <> trunc(mem_mb) OR external_bytes <> trunc(external_bytes))::DOUBLE,
    ${CONFIGURATION_SQL}
  FROM ${partsOf(cut, "vms")}
  GROUP BY GROUPING SETS ((${byAccount ? "account_id, " : ""}hour_epoch, status), (part, account_id, ${factColumnsSql(CONFIGURATION_FACTS)}))`;
/** The VM-hours grouped per account-hour (`cut`, `whole`), or per hour of the environment (`environmentCut`, `environmentWhole`: `account_id` -1 in those rows). */
export const VM_HOURS = {
  cut: vmHoursSql(true, true),
  whole: vmHoursSql(false, true),
  environmentCut: vmHoursSql(true, false),
  environmentWhole: vmHoursSql(false, false),
};

/** Per account-hour of the period: Σ external bytes of its gateways, their public IPs, and those bytes that are not whole (cloud spaces of the account-hour only). */
const GATEWAYS = `gateways AS (
    SELECT account_id, hour_epoch, sum(g.external_bytes) AS bytes,
      count(*) FILTER (WHERE list_contains($publicIpStates, state) AND g.external_nics > 0) AS piu,
      count(*) FILTER (WHERE g.external_bytes <> trunc(g.external_bytes)) AS fractional
    FROM spaces JOIN (SELECT * FROM gateway_facts WHERE ${WHERE}) g USING (account_id, hour_epoch, cloudspace_id) GROUP BY account_id, hour_epoch)`;

/** Per account-hour: Σ external bytes of its gateways and their public IPs. */
export const ACCOUNT_HOURS = `WITH ${SPACES}, ${GATEWAYS}
  SELECT h.account_id::DOUBLE, h.hour_epoch::DOUBLE, coalesce(g.bytes, 0)::DOUBLE, coalesce(g.piu, 0)::DOUBLE, coalesce(g.fractional, 0)::DOUBLE
  FROM (SELECT account_id, hour_epoch FROM account_hours WHERE ${WHERE}) h LEFT JOIN gateways g USING (account_id, hour_epoch)`;

/** Per hour of the environment: its account-hours, the Σ of their gateways' external bytes and public IPs. */
export const ENVIRONMENT_HOURS = `WITH ${SPACES}, ${GATEWAYS}
  SELECT h.hour_epoch::DOUBLE, count(*)::DOUBLE, coalesce(sum(g.bytes), 0)::DOUBLE, coalesce(sum(g.piu), 0)::DOUBLE, coalesce(sum(g.fractional), 0)::DOUBLE
  FROM (SELECT account_id, hour_epoch FROM account_hours WHERE ${WHERE}) h LEFT JOIN gateways g USING (account_id, hour_epoch)
  GROUP BY h.hour_epoch ORDER BY 1`;

/** What data quality reads of the account-hours: their hours, the machine records by type, empty records. */
const SEEN = {
  // the runs of consecutive hours of each account (hours are whole: from the files' paths), in order
  heldRuns: `SELECT account_id::DOUBLE, min(hour_epoch)::DOUBLE, (max(hour_epoch) + 3600)::DOUBLE
    FROM (SELECT account_id, hour_epoch, hour_epoch - 3600 * row_number() OVER (PARTITION BY account_id ORDER BY hour_epoch) AS run
          FROM account_hours WHERE ${WHERE})
    GROUP BY account_id, run ORDER BY 1, 2`,
  types: `SELECT type, count(*)::DOUBLE, count(*) FILTER (WHERE machine_id = 0 AND type = '')::DOUBLE
          FROM (SELECT * FROM machine_facts WHERE ${WHERE}) SEMI JOIN (SELECT account_id, hour_epoch FROM account_hours WHERE ${WHERE}) USING (account_id, hour_epoch)
          GROUP BY type`,
  emptySpaces: `SELECT count(*)::DOUBLE FROM (SELECT * FROM cloudspaces WHERE ${WHERE} AND cloudspace_id = 0 AND state = '')
          SEMI JOIN (SELECT account_id, hour_epoch FROM account_hours WHERE ${WHERE}) USING (account_id, hour_epoch)`,
};

/**
 * Account-hours read by one grouped query at most (but for an hour holding more): its hash
 * tables (the cloud spaces of each account-hour, the semi joins with `account_hours`) hold a
 * row per account-hour, so a long period of many accounts is read in runs of whole hours and
 * DuckDB's memory stays that of a run (docs/performance.md). About three weeks of 100 accounts.
 */
export const ACCOUNT_HOURS_PER_QUERY = 50_000;

/** The account-hours of the period per hour. */
const HOURS = `SELECT hour_epoch::DOUBLE, count(*)::DOUBLE FROM account_hours WHERE ${WHERE} GROUP BY ALL ORDER BY ALL`;

/**
 * The query values of `values`'s period cut into runs of whole hours of at most `perQuery`
 * account-hours each (see {@link ACCOUNT_HOURS_PER_QUERY}), in order; none for a period without
 * account-hours. Every grouped figure is a sum of its hours', exact, so the runs' add up to the period's.
 */
export async function hourRuns(
  connection: DuckDBConnection,
  values: Record<string, DuckDBValue>,
  perQuery = ACCOUNT_HOURS_PER_QUERY,
): Promise<Record<string, DuckDBValue>[]> {
  const [hours, counts] = (await columns(connection, HOURS, values)) as ArrayLike<number>[];
  return runsWithin(hours!, counts!, 3600, perQuery).map(([start, end]) => ({
    ...values,
    start: BigInt(start),
    end: BigInt(end),
  }));
}

/** The types of the grouped queries' parameters beyond the period's. */
export const paramTypesOf = (): Record<string, DuckDBType> => {
  const { BIGINT, LIST, VARCHAR } = duckdbApi();
  return { vmType: VARCHAR, publicIpStates: LIST(VARCHAR), cuts: LIST(BIGINT) };
};

/**
 * Runs a query of many rows and returns its columns: numbers (DOUBLE, never NULL) as typed
 * arrays copied from DuckDB's vectors, texts value by value (`readColumns`); a month cut at
 * midnights gives 70,000 rows of VM configurations, too many for row objects (docs/performance.md).
 */
export async function columns(
  connection: DuckDBConnection,
  sql: string,
  values: Record<string, DuckDBValue>,
): Promise<ArrayLike<unknown>[]> {
  return readColumns(connection, sql, values, paramTypesOf());
}

/** Runs a query with the period's and the units' parameters (those it names) and returns its rows. */
export async function rows(
  connection: DuckDBConnection,
  sql: string,
  values: Record<string, DuckDBValue>,
): Promise<unknown[][]> {
  const types: Record<string, DuckDBType> = { ...paramTypes(), ...paramTypesOf() };
  const used = paramsNamedIn(sql, values);
  const reader = await withMemoryToSpare(connection, () =>
    connection.runAndReadAll(sql, used, Object.fromEntries(Object.keys(used).map((k) => [k, types[k]!]))),
  );
  return reader.getRowsJS();
}

/** The parameters of the grouped queries of a period (its account, or every one), its units and cuts. */
export function queryValues(params: Period, units: Units, splitAt: readonly number[]): Record<string, DuckDBValue> {
  const { listValue } = duckdbApi();
  return {
    start: BigInt(params.start),
    end: BigInt(params.end),
    account: params.accountId === undefined ? null : BigInt(params.accountId),
    vmType: units.vmType,
    publicIpStates: listValue([...units.publicIpStates]),
    cuts: listValue(splitAt.map(BigInt)),
  };
}

/** What the engine would have seen of the period's account-hours (see `BillingEngine.seenData`). */
export async function seenOf(
  connection: DuckDBConnection,
  values: Record<string, DuckDBValue>,
  vmType: string,
): Promise<SeenData> {
  return seenOfRuns(connection, [values], vmType);
}

/**
 * {@link seenOf} the period read in runs of hours (see {@link hourRuns}), in order. Each account's
 * hours are read as runs of consecutive hours (`heldRuns`), joined across the runs of the read: a
 * year of 100 accounts is 876,000 account-hours, whose arrays, and the chunks they were read from,
 * raised the year's peak by a fifth (docs/performance.md); their runs are a few numbers an account.
 */
export async function seenOfRuns(
  connection: DuckDBConnection,
  runs: readonly Record<string, DuckDBValue>[],
  vmType: string,
): Promise<SeenData> {
  const seen: SeenData = {
    accountHours: new Map(),
    heldRuns: new Map(),
    unbilledTypes: new Map(),
    emptyMachineHours: 0,
    emptyCloudspaceHours: 0,
  };
  for (const values of runs) {
    const [accountIds, starts, ends] = (await columns(connection, SEEN.heldRuns, values)) as ArrayLike<number>[];
    for (let r = 0; r < accountIds!.length; r++) addHeldRuns(seen.heldRuns!, accountIds![r]!, [starts![r]!, ends![r]!]);
    for (const [type, n, empty] of await rows(connection, SEEN.types, values)) {
      if (type !== vmType)
        seen.unbilledTypes.set(type as string, (seen.unbilledTypes.get(type as string) ?? 0) + (n as number));
      seen.emptyMachineHours += empty as number;
    }
    seen.emptyCloudspaceHours += (await rows(connection, SEEN.emptySpaces, values))[0]![0] as number;
  }
  // the accounts in order, as one query over the period gives them (each one's hours are: the runs come in order)
  if (runs.length > 1) seen.heldRuns = new Map([...seen.heldRuns!].sort(([a], [b]) => a - b));
  return seen;
}
