import type { DuckDBConnection, DuckDBValue } from "@duckdb/node-api";
import { ACCOUNT_HOURS_PER_QUERY, hourRuns } from "./groupedFacts.js";
import type { Period } from "../base/period.js";
import type { BillingEngine } from "./billingEngine.js";
import { nicBytesPerHourValue, type Units } from "./units.js";
import { storedFacts } from "./warehouseFacts.js";
import { addGroupedFacts } from "./groupedFeed.js";
import { CONFIGURATION_FACTS, factColumnsSql, PER_HOUR_FACTS } from "../load/vmFacts.js";
import { EXACT, PARTS, partsOf, queryValues, rows, seenOf, SPACES, WHERE } from "./groupedFacts.js";

/**
 * The levels below the environment from a warehouse's stored facts, grouped (docs/warehouse.md,
 * "Billing the environment"; the environment's and the accounts' grouped roads are
 * `groupedFacts.ts`): an account's hours repeat, and its figures but NU are functions of the
 * hour's facts alone, so one account-hour of each class of identical ones is added, weighted by
 * the hours it stands for, and the bytes (NU's, summed per hour) are summed per entity.
 */

/** True when `x` is a power of two (2^k, k an integer of either sign): multiplying or dividing by it is exact. */
export const powerOfTwo = (x: number): boolean => x > 0 && Number.isFinite(x) && Number.isInteger(Math.log2(x));

/**
 * The account-hours of the period grouped by all they hold but bytes and time: each class of
 * identical account-hours of an account and part of the period (the same cloud spaces and
 * states, machine records and gateways' NICs), its first hour and how many hours it stands for.
 * An account-hour's rows are a multiset: it is known by sums of two hashes of each row, with the
 * count of rows (order-free, and a few numbers per account-hour where lists of its rows took
 * more than 64 MiB for 26 weeks); two different account-hours would share all four by chance,
 * one in about 2^120.
 */
const rowHashes = (columns: string) => {
  const reversed = columns.split(", ").reverse().join(", ");
  return `count(*) AS n, sum(hash(${columns})::HUGEINT) AS h1, sum(hash(${reversed}, 'b')::HUGEINT) AS h2`;
};
const classesSql = (cut: boolean) => `WITH${cut ? ` ${PARTS},` : ""}
  ah AS (SELECT account_id, hour_epoch, part FROM ${partsOf(cut, "account_hours")} WHERE ${WHERE}),
  cs AS (SELECT account_id, hour_epoch, ${rowHashes("cloudspace_id, state")} FROM cloudspaces WHERE ${WHERE} GROUP BY ALL),
  m AS (SELECT account_id, hour_epoch, ${rowHashes(`cloudspace_id, machine_id, type, ${factColumnsSql(CONFIGURATION_FACTS)}`)}
        FROM machine_facts WHERE ${WHERE} GROUP BY ALL),
  g AS (SELECT account_id, hour_epoch, ${rowHashes("cloudspace_id, external_nics")} FROM gateway_facts WHERE ${WHERE} GROUP BY ALL)
  SELECT ah.account_id::DOUBLE, ah.part, min(ah.hour_epoch)::DOUBLE, count(*)::DOUBLE,
    [cs.n, cs.h1, cs.h2, m.n, m.h1, m.h2, g.n, g.h1, g.h2]::VARCHAR
  FROM ah LEFT JOIN cs USING (account_id, hour_epoch) LEFT JOIN m USING (account_id, hour_epoch) LEFT JOIN g USING (account_id, hour_epoch)
  GROUP BY ah.account_id, ah.part, cs.n, cs.h1, cs.h2, m.n, m.h1, m.h2, g.n, g.h1, g.h2`;
const CLASSES = { cut: classesSql(true), whole: classesSql(false) };

/**
 * The external bytes of the period, summed per part and entity: each VM's (`m`), each cloud
 * space's VMs' (`c`) and gateways' (`g`), the cloud spaces of their account-hour only; and the
 * values that are not whole numbers.
 */
const bytesSql = (cut: boolean) => `WITH ${SPACES}${cut ? `, ${PARTS}` : ""},
  ah AS (SELECT account_id, hour_epoch FROM account_hours WHERE ${WHERE}),
  vms AS (SELECT * FROM (SELECT account_id, hour_epoch, cloudspace_id, machine_id, external_bytes FROM machine_facts WHERE ${WHERE} AND type = $vmType)
          SEMI JOIN ah USING (account_id, hour_epoch)),
  vmParts AS ${partsOf(cut, "vms")}
  SELECT 'm', part, account_id::DOUBLE, cloudspace_id::DOUBLE, machine_id::DOUBLE, sum(external_bytes)::DOUBLE,
      count(*) FILTER (WHERE external_bytes <> trunc(external_bytes))::DOUBLE
    FROM vmParts GROUP BY part, account_id, cloudspace_id, machine_id
  UNION ALL
  SELECT 'c', part, account_id::DOUBLE, cloudspace_id::DOUBLE, NULL, sum(external_bytes)::DOUBLE, 0
    FROM vmParts SEMI JOIN spaces USING (account_id, hour_epoch, cloudspace_id) GROUP BY part, account_id, cloudspace_id
  UNION ALL
  SELECT 'g', part, account_id::DOUBLE, cloudspace_id::DOUBLE, NULL, sum(external_bytes)::DOUBLE,
      count(*) FILTER (WHERE external_bytes <> trunc(external_bytes))::DOUBLE
    FROM ${partsOf(cut, `(SELECT * FROM gateway_facts WHERE ${WHERE})`)} SEMI JOIN spaces USING (account_id, hour_epoch, cloudspace_id)
    GROUP BY part, account_id, cloudspace_id`;
const BYTES = { cut: bytesSql(true), whole: bytesSql(false) };

/** The levels below the environment, grouped: the classes of identical account-hours, and the bytes summed per entity. */
interface GroupedLevels {
  /** Per class: its account, its part of the period, its first hour, the hours it stands for. */
  classes: [number, number, number, number][];
  /** Per entity and part: a VM's own bytes (`m`); a cloud space's VMs' and gateways' (`c`, `g`). */
  bytes: { kind: string; part: number; accountId: number; cloudspaceId: number; machineId: number; sum: number }[];
}

/**
 * Reads the levels below the environment grouped (of `params.accountId`, or of every account)
 * in runs of whole hours (`hourRuns`: the classes' and the bytes' hash tables hold a row per
 * account-hour, so DuckDB's memory is a run's, not the period's); undefined unless NU is the
 * bytes scaled by a power of two (the published units) and every byte count is a whole number
 * with sums below 2^53. A class of identical account-hours in several runs is merged by its
 * rows' hashes (its first hour the first run's, its hours summed), and an entity's bytes are
 * summed over the runs (whole numbers: exact below 2^53): the classes and bytes of the period
 * read at once.
 */
async function readLevels(
  connection: DuckDBConnection,
  values: Record<string, DuckDBValue>,
  units: Units,
  cut: boolean,
  accountHoursPerQuery = ACCOUNT_HOURS_PER_QUERY,
): Promise<GroupedLevels | undefined> {
  if (!powerOfTwo(nicBytesPerHourValue(units)) || !powerOfTwo(units.bytesPerNu)) return undefined;
  const byEntity = new Map<string, GroupedLevels["bytes"][number]>();
  // a class of identical account-hours found in several runs (by its rows' hashes) is one class, as read at once
  const classes = new Map<string, GroupedLevels["classes"][number]>();
  for (const run of await hourRuns(connection, values, accountHoursPerQuery)) {
    for (const [kind, part, accountId, cloudspaceId, machineId, sum, fractional] of await rows(
      connection,
      cut ? BYTES.cut : BYTES.whole,
      run,
    )) {
      if ((fractional as number) > 0) return undefined;
      const key = `${kind}/${part}/${accountId}/${cloudspaceId}/${machineId}`;
      const entity = byEntity.get(key);
      if (entity !== undefined) entity.sum += sum as number;
      else
        byEntity.set(key, {
          kind: kind as string,
          part: part as number,
          accountId: accountId as number,
          cloudspaceId: cloudspaceId as number,
          machineId: machineId as number,
          sum: sum as number,
        });
    }
    for (const [accountId, part, first, count, key] of (await rows(
      connection,
      cut ? CLASSES.cut : CLASSES.whole,
      run,
    )) as [number, number, number, number, string][]) {
      const known = classes.get(`${accountId}/${part}/${key}`);
      if (known === undefined) classes.set(`${accountId}/${part}/${key}`, [accountId, part, first, count]);
      else known[3] += count; // the runs come in order: its first hour is the first run's
    }
  }
  const bytes = [...byEntity.values()];
  // whole numbers add up exactly below 2^53: each entity's, and a cloud space's (VMs and gateways) and an account's totals
  const totals = new Map<string, number>();
  for (const b of bytes) {
    if (b.sum >= EXACT) return undefined;
    if (b.kind === "m") continue;
    for (const key of [`${b.part}/${b.accountId}/${b.cloudspaceId}`, `${b.part}/${b.accountId}`])
      totals.set(key, (totals.get(key) ?? 0) + b.sum);
  }
  if ([...totals.values()].some((t) => t >= EXACT)) return undefined;
  return { classes: [...classes.values()], bytes };
}

/**
 * Feeds an engine the levels below the environment grouped: one account-hour of each class,
 * weighted by the hours it stands for, its bytes 0; then the bytes summed per entity.
 */
async function feedLevels(
  connection: DuckDBConnection,
  engine: BillingEngine,
  params: Period,
  units: Units,
  { classes, bytes }: GroupedLevels,
): Promise<void> {
  if (classes.length > 0) {
    // the classes' first hours, of every account at once (those of other classes are passed over)
    const weights = new Map(classes.map(([accountId, , hour, count]) => [`${accountId}/${hour}`, count]));
    const hours = [...new Set(classes.map(([, , hour]) => hour))].sort((a, b) => a - b);
    const within = { start: hours[0]!, end: hours.at(-1)! + 3600, accountId: params.accountId };
    for await (const facts of storedFacts(connection, within, units.externalNicType, hours)) {
      const weight = weights.get(`${facts.accountId}/${facts.hourEpoch}`);
      if (weight === undefined) continue;
      // the class's facts without those summed per hour (the bytes: summed per entity, below)
      const gateways = new Map(
        [...facts.gateways].map(([id, g]) => [id, { externalNics: g.externalNics, externalBytes: 0 }]),
      );
      const zeros = new Array<number>(facts.machines).fill(0);
      const perHour = Object.fromEntries(PER_HOUR_FACTS.map((name) => [name, zeros]));
      engine.grouped.weighted({ ...facts, ...perHour, gateways }, weight);
    }
  }
  const spaces = new Map<
    string,
    { part: number; accountId: number; cloudspaceId: number; vms: number; gateways: number }
  >();
  const accounts = new Map<string, { part: number; accountId: number; sum: number }>();
  for (const b of bytes) {
    if (b.kind === "m") {
      engine.grouped.entityBytes({ ...b, bytes: b.sum });
      continue;
    }
    const key = `${b.part}/${b.accountId}/${b.cloudspaceId}`;
    let s = spaces.get(key);
    if (s === undefined)
      spaces.set(
        key,
        (s = { part: b.part, accountId: b.accountId, cloudspaceId: b.cloudspaceId, vms: 0, gateways: 0 }),
      );
    if (b.kind === "c") s.vms = b.sum;
    else s.gateways = b.sum;
  }
  for (const s of spaces.values()) {
    engine.grouped.entityBytes({ ...s, machineId: null, bytes: s.vms + s.gateways, gatewayBytes: s.gateways });
    const key = `${s.part}/${s.accountId}`;
    let a = accounts.get(key);
    if (a === undefined) accounts.set(key, (a = { part: s.part, accountId: s.accountId, sum: 0 }));
    a.sum += s.vms + s.gateways;
  }
  for (const a of accounts.values())
    engine.grouped.entityBytes({ ...a, cloudspaceId: null, machineId: null, bytes: a.sum });
}

/**
 * Feeds an engine (made with `splitAt`; lines of one account, its cloud spaces and machines)
 * the period of `params.accountId` grouped: one account-hour of each class of identical
 * account-hours (all but bytes), weighted by the hours it stands for; the bytes summed per
 * entity; what data quality reads. An account's hours repeat (26 weeks of the bench's account:
 * 107 classes of 4,368 hours), and its figures but NU are functions of the hour's facts alone.
 * False, having fed nothing, unless NU is the bytes scaled by a power of two (the published
 * units) and every byte count is a whole number with sums below 2^53.
 */
export async function addGroupedAccount(
  connection: DuckDBConnection,
  params: Period,
  units: Units,
  splitAt: readonly number[],
  engine: BillingEngine,
  accountHoursPerQuery = ACCOUNT_HOURS_PER_QUERY,
): Promise<boolean> {
  if (params.accountId === undefined) return false;
  const values = queryValues(params, units, splitAt);
  const cut = splitAt.length > 0;
  const levels = await readLevels(connection, values, units, cut, accountHoursPerQuery);
  if (levels === undefined) return false;
  await feedLevels(connection, engine, params, units, levels);
  engine.grouped.seen(await seenOf(connection, values, units.vmType));
  return true;
}

/**
 * Feeds an engine (made with `splitAt`; every level of every account) the period grouped: the
 * environment from its hours and VM configurations (as `addGroupedFacts`), the accounts, cloud
 * spaces and machines from the classes of identical account-hours of each account, weighted,
 * and the bytes summed per entity (as `addGroupedAccount`); what data quality reads. False,
 * having maybe fed some of the facts, when either way would not be exact.
 */
export async function addGroupedLevels(
  connection: DuckDBConnection,
  params: Period,
  units: Units,
  splitAt: readonly number[],
  engine: BillingEngine,
): Promise<boolean> {
  // the environment and what data quality reads (a road that does not answer leaves its engine)
  if (!(await addGroupedFacts(connection, params, units, splitAt, engine))) return false;
  const levels = await readLevels(connection, queryValues(params, units, splitAt), units, splitAt.length > 0);
  if (levels === undefined) return false;
  await feedLevels(connection, engine, params, units, levels);
  return true;
}
