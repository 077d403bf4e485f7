import type { DuckDBConnection, DuckDBType, DuckDBValue } from "@duckdb/node-api";
import { paramTypes, periodSql, runsWithin } from "../base/period.js";
import { duckdbApi, paramsNamedIn, withMemoryToSpare } from "../base/duckdb.js";
import type { BillingEngine, SeenData } from "./billingEngine.js";
import { UNIT_NAMES } from "./unitNames.js";
import { catalogUnits } from "./unitCatalog.js";
import type { Units } from "./units.js";
import type { Period } from "../base/period.js";
import { factsReadable } from "./warehouseFacts.js";
import { readColumns } from "./readColumns.js";
import { CONFIGURATION_FACTS, emptyVmFacts, factColumnsSql, VM_FACTS, type VmFacts } from "../load/vmFacts.js";

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
const VM_HOURS_FACTS = 8;

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
const VM_HOURS = {
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
const ENVIRONMENT_HOURS = `WITH ${SPACES}, ${GATEWAYS}
  SELECT h.hour_epoch::DOUBLE, count(*)::DOUBLE, coalesce(sum(g.bytes), 0)::DOUBLE, coalesce(sum(g.piu), 0)::DOUBLE, coalesce(sum(g.fractional), 0)::DOUBLE
  FROM (SELECT account_id, hour_epoch FROM account_hours WHERE ${WHERE}) h LEFT JOIN gateways g USING (account_id, hour_epoch)
  GROUP BY h.hour_epoch ORDER BY 1`;

/** What data quality reads of the account-hours: their hours, the machine records by type, empty records. */
const SEEN = {
  accountHours: `SELECT account_id::DOUBLE, hour_epoch::DOUBLE FROM account_hours WHERE ${WHERE} ORDER BY 1, 2`,
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
const paramTypesOf = (): Record<string, DuckDBType> => {
  const { BIGINT, LIST, VARCHAR } = duckdbApi();
  return { vmType: VARCHAR, publicIpStates: LIST(VARCHAR), cuts: LIST(BIGINT) };
};

/**
 * Runs a query of many rows and returns its columns: numbers (DOUBLE, never NULL) as typed
 * arrays copied from DuckDB's vectors, texts value by value (`readColumns`); a month cut at
 * midnights gives 70,000 rows of VM configurations, too many for row objects (docs/performance.md).
 */
async function columns(
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

/** A VM configuration of the period's VM-hours grouped (its facts but the bytes, 0), with its part of the period and how many VM-hours have it. */
interface VmConfiguration {
  part: number;
  facts: VmFacts;
  count: number;
}

/** The totals of an hour (of an account, or of the environment): its billed VMs' memory and vCPUs, its VMs' and gateways' external bytes, its gateways' public IPs. */
interface HourTotals {
  hourEpoch: number;
  memMb: number;
  vcpus: number;
  bytes: number;
  gatewayPiu: number;
}

/** The accounts' grouped facts: per account-hour its totals; per account and part its VM configurations. */
interface GroupedAccounts {
  hours: (HourTotals & { accountId: number })[];
  configurations: (VmConfiguration & { accountId: number })[];
}

/**
 * Reads the accounts' facts of the period grouped (see the top of this file); undefined when a
 * sum would not be exact (a value that is not whole, or a total of 2^53 or more).
 */
async function readAccounts(
  connection: DuckDBConnection,
  values: Record<string, DuckDBValue>,
  units: Units,
  cut: boolean,
): Promise<GroupedAccounts | undefined> {
  const byKey = new Map<number, HourTotals & { accountId: number }>();
  const key = (accountId: number, hourEpoch: number) => accountId * 2 ** 21 + ((hourEpoch / 3600) % 2 ** 21); // exact for ids below 2^32
  for (const [accountId, hourEpoch, bytes, piu, fractional] of (await rows(
    connection,
    ACCOUNT_HOURS,
    values,
  )) as number[][]) {
    if (fractional! > 0) return undefined;
    byKey.set(key(accountId!, hourEpoch!), {
      accountId: accountId!,
      hourEpoch: hourEpoch!,
      memMb: 0,
      vcpus: 0,
      bytes: bytes!,
      gatewayPiu: piu!,
    });
  }
  const read = await columns(connection, cut ? VM_HOURS.cut : VM_HOURS.whole, values);
  const configurations = addVmHours(read, units, (accountId, hourEpoch) => byKey.get(key(accountId, hourEpoch)));
  const hours = [...byKey.values()];
  // whole numbers add up exactly, in any order, below 2^53 (DuckDB's sums per status are below their account-hour's total)
  if (configurations === undefined || hours.some(inexact)) return undefined;
  return { hours, configurations };
}

const inexact = (h: HourTotals) => h.memMb >= EXACT || h.vcpus >= EXACT || h.bytes >= EXACT;

/**
 * The VM-hours of the period grouped (the columns of `VM_HOURS`): each hour's sums added to
 * the totals `hourOf` finds for it, and the VM configurations returned; undefined when a value
 * is not whole.
 */
function addVmHours(
  read: ArrayLike<unknown>[],
  units: Units,
  hourOf: (accountId: number, hourEpoch: number) => HourTotals | undefined,
): GroupedAccounts["configurations"] | undefined {
  const billable = units.billableStatuses === null ? null : new Set(units.billableStatuses);
  const configurations: GroupedAccounts["configurations"] = [];
  const [hourEpochs, parts, accountIds, counts, memSums, vcpuSums, bytesSums, fractional] = read as ArrayLike<number>[];
  const facts = CONFIGURATION_FACTS.map((name, k) => ({ name, values: read[VM_HOURS_FACTS + k]! }));
  const statuses = facts.find((f) => f.name === "status")!.values as ArrayLike<string>;
  for (let r = 0; r < hourEpochs!.length; r++) {
    if (fractional![r]! > 0) return undefined;
    const accountId = accountIds![r]!;
    if (hourEpochs![r] === -1) {
      const configuration: Record<string, unknown> = emptyVmFacts(); // the facts summed per hour (the bytes) stay 0
      for (const f of facts) configuration[f.name] = f.values[r];
      configurations.push({ part: parts![r]!, accountId, facts: configuration as VmFacts, count: counts![r]! });
      continue;
    }
    const hour = hourOf(accountId, hourEpochs![r]!);
    if (hour === undefined)
      throw new Error(
        `internal: VM-hours of account ${accountId} in hour ${hourEpochs![r]}, which is not one of its account-hours`,
      );
    if (billable === null || billable.has(statuses[r]!)) {
      hour.memMb += memSums![r]!;
      hour.vcpus += vcpuSums![r]!;
    }
    hour.bytes += bytesSums![r]!;
  }
  return configurations;
}

/**
 * The environment's hours and the accounts' VM configurations of the period, grouped per hour
 * in DuckDB (not per account-hour: nothing is held per account-hour, so a year of many
 * accounts costs its hours); undefined when a sum would not be exact. The values are whole
 * and never negative (an impossible value is stored as NULL), so DuckDB's sums, in any order,
 * are exact while each hour's totals are below 2^53.
 */
async function readEnvironment(
  connection: DuckDBConnection,
  runs: readonly Record<string, DuckDBValue>[],
  units: Units,
  cut: boolean,
): Promise<
  { hours: (HourTotals & { accounts: number })[]; configurations: GroupedAccounts["configurations"] } | undefined
> {
  const byHour = new Map<number, HourTotals & { accounts: number }>();
  const configurations: GroupedAccounts["configurations"] = [];
  for (const values of runs) {
    const [hourEpochs, accounts, bytes, piu, fractional] = (await columns(
      connection,
      ENVIRONMENT_HOURS,
      values,
    )) as ArrayLike<number>[];
    for (let r = 0; r < hourEpochs!.length; r++) {
      if (fractional![r]! > 0) return undefined;
      const hourEpoch = hourEpochs![r]!;
      byHour.set(hourEpoch, {
        hourEpoch,
        accounts: accounts![r]!,
        memMb: 0,
        vcpus: 0,
        bytes: bytes![r]!,
        gatewayPiu: piu![r]!,
      });
    }
    const read = await columns(connection, cut ? VM_HOURS.environmentCut : VM_HOURS.environmentWhole, values);
    // a configuration in several runs comes once from each, with its VM-hours there: fed so, its counts add up exactly
    const ofRun = addVmHours(read, units, (_, hourEpoch) => byHour.get(hourEpoch));
    if (ofRun === undefined) return undefined;
    for (const c of ofRun) configurations.push(c);
  }
  const hours = [...byHour.values()];
  if (hours.some(inexact)) return undefined;
  return { hours, configurations };
}

/**
 * The environment's hours from its accounts': per hour the Σ of its account-hours' totals and
 * their number; undefined when an hour's total would not be exact. (Its VM configurations are
 * the accounts': each goes into the environment's exact sums as it is, merged or not.)
 */
function environmentHours(hours: GroupedAccounts["hours"]): (HourTotals & { accounts: number })[] | undefined {
  const byHour = new Map<number, HourTotals & { accounts: number }>();
  for (const h of hours) {
    const hour = byHour.get(h.hourEpoch);
    if (hour === undefined)
      byHour.set(h.hourEpoch, {
        hourEpoch: h.hourEpoch,
        accounts: 1,
        memMb: h.memMb,
        vcpus: h.vcpus,
        bytes: h.bytes,
        gatewayPiu: h.gatewayPiu,
      });
    else {
      hour.accounts++;
      hour.memMb += h.memMb;
      hour.vcpus += h.vcpus;
      hour.bytes += h.bytes;
      hour.gatewayPiu += h.gatewayPiu;
    }
  }
  const totals = [...byHour.values()];
  return totals.some(inexact) ? undefined : totals;
}

/** Feeds an engine the environment's grouped facts: its hours' totals (`environmentHours` of the accounts'), its VM configurations per part. */
export function feedEnvironment(
  engine: BillingEngine,
  hours: NonNullable<ReturnType<typeof environmentHours>>,
  configurations: GroupedAccounts["configurations"],
): void {
  for (const h of hours) engine.grouped.hourTotals(h);
  for (const c of configurations) engine.grouped.vmHours(c.part, c.facts, c.count);
}

/**
 * Feeds an engine of the environment alone (made with `splitAt` cutting `[start, end)` into
 * parts) the grouped facts of the period: its VM configurations per part, its hours, and what
 * data quality reads. False, having fed nothing, when a sum would not be exact (a value that is
 * not whole, or a total of 2^53 or more): billing then reads the facts row by row.
 */
export async function addGroupedFacts(
  connection: DuckDBConnection,
  params: Period,
  units: Units,
  splitAt: readonly number[],
  engine: BillingEngine,
  accountHoursPerQuery = ACCOUNT_HOURS_PER_QUERY,
): Promise<boolean> {
  const runs = await hourRuns(connection, queryValues(params, units, splitAt), accountHoursPerQuery);
  const environment = await readEnvironment(connection, runs, units, splitAt.length > 0);
  if (environment === undefined) return false;
  feedEnvironment(engine, environment.hours, environment.configurations);
  engine.grouped.seen(await seenOfRuns(connection, runs, units.vmType));
  return true;
}

/** What the engine would have seen of the period's account-hours (see `BillingEngine.seenData`). */
export async function seenOf(
  connection: DuckDBConnection,
  values: Record<string, DuckDBValue>,
  vmType: string,
): Promise<SeenData> {
  return seenOfRuns(connection, [values], vmType);
}

/** {@link seenOf} the period read in runs of hours (see {@link hourRuns}), in order. */
async function seenOfRuns(
  connection: DuckDBConnection,
  runs: readonly Record<string, DuckDBValue>[],
  vmType: string,
): Promise<SeenData> {
  const seen: SeenData = {
    accountHours: new Map(),
    unbilledTypes: new Map(),
    emptyMachineHours: 0,
    emptyCloudspaceHours: 0,
  };
  for (const values of runs) {
    // as typed columns: a year of 100 accounts is 876,000 account-hours, too many for a row array each
    const [accountIds, hourEpochs] = (await columns(connection, SEEN.accountHours, values)) as ArrayLike<number>[];
    for (let r = 0; r < accountIds!.length; r++) {
      const list = seen.accountHours.get(accountIds![r]!);
      if (list === undefined) seen.accountHours.set(accountIds![r]!, [hourEpochs![r]!]);
      else list.push(hourEpochs![r]!);
    }
    for (const [type, n, empty] of await rows(connection, SEEN.types, values)) {
      if (type !== vmType)
        seen.unbilledTypes.set(type as string, (seen.unbilledTypes.get(type as string) ?? 0) + (n as number));
      seen.emptyMachineHours += empty as number;
    }
    seen.emptyCloudspaceHours += (await rows(connection, SEEN.emptySpaces, values))[0]![0] as number;
  }
  // the accounts in order, as one query over the period gives them (each one's hours are: the runs come in order)
  if (runs.length > 1) seen.accountHours = new Map([...seen.accountHours].sort(([a], [b]) => a - b));
  return seen;
}

/** The account-hours' totals and the accounts' VM configurations of the period, grouped, and the environment's hours of them; undefined when a sum would not be exact. */
export async function readGroupedAccounts(
  connection: DuckDBConnection,
  params: Period,
  units: Units,
  splitAt: readonly number[],
) {
  const values = queryValues(params, units, splitAt);
  const accounts = await readAccounts(connection, values, units, splitAt.length > 0);
  const hours = accounts && environmentHours(accounts.hours);
  return accounts === undefined || hours === undefined ? undefined : { values, accounts, hours };
}

/**
 * Feeds an engine (made with `splitAt`; the lines of the environment and the accounts, none
 * below) the period grouped: each account-hour's totals and each account's VM configurations
 * per part (the account's own CU, NU and public IPs from the first, its summed units from the
 * second), the environment from their sums (as `addGroupedFacts`); what data quality reads.
 * Nothing per machine: an overview of a month of 26 weeks' warehouse read 7,000 classes of
 * account-hours, one a day and hour, for the levels below. False, having fed nothing, when a sum
 * would not be exact.
 */
export async function addGroupedAccounts(
  connection: DuckDBConnection,
  params: Period,
  units: Units,
  splitAt: readonly number[],
  engine: BillingEngine,
): Promise<boolean> {
  const grouped = await readGroupedAccounts(connection, params, units, splitAt);
  if (grouped === undefined) return false;
  const { values, accounts } = grouped;
  feedEnvironment(engine, grouped.hours, accounts.configurations);
  for (const h of accounts.hours) engine.grouped.accountHourTotals(h);
  for (const c of accounts.configurations) {
    engine.grouped.accountVmHours(c.part, c.accountId, c.facts, c.count);
  }
  engine.grouped.seen(await seenOf(connection, values, units.vmType));
  return true;
}
