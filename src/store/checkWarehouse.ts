import { lostHoursOf } from "../billing/dataQuality.js";
import type { DuckDBConnection } from "@duckdb/node-api";
import { hourRanges, runsWithin } from "../base/period.js";
import { isoUtc } from "../base/time.js";
import { readImpossibleValues, type ImpossibleValue } from "../load/impossibleValues.js";
import type { DataTable } from "./schema.js";
import type { LoadReport, SkippedFile } from "./types.js";
import { clockNow } from "../base/clock.js";

/** The data tables `check` reads (an in-memory load fills only these). */
export const CHECK_TABLES: readonly DataTable[] = ["account_hours", "cloudspaces", "machines", "nics"];

/** Hours without a file inside an account's span: `[fromEpoch, tillEpoch)`. */
export interface MissingRange {
  /** First missing hour, epoch seconds UTC. */
  fromEpoch: number;
  /** The hour after the last missing one (exclusive), epoch seconds UTC. */
  tillEpoch: number;
  /** `fromEpoch` as ISO 8601 UTC. */
  from: string;
  /** `tillEpoch` as ISO 8601 UTC. */
  till: string;
  hours: number;
}

/** One account: its span and the hours missing inside it. */
export interface AccountCheck {
  accountId: number;
  /** First and last hour with a file, ISO 8601 UTC. */
  firstHour: string;
  lastHour: string;
  /** Hours with a file. */
  hours: number;
  /** Hours missing between the first and the last. */
  missingHours: number;
  missing: MissingRange[];
  /** Of the missing hours, those `sync` gave up: never written within the platform's retention ("lost at source"). */
  lostHours: number;
  lost: MissingRange[];
  /** Hours held that are later than the current hour (no platform can have written them): not in the span, counted as nothing else. */
  futureHours: number;
}

/** Machines of one non-`vm`, non-gateway type. */
export interface UnknownTypeCheck {
  type: string;
  machines: number;
  machineHours: number;
}

/** A machine with 0 vCPUs or 0 memory in some hours. */
export interface ZeroResourceCheck {
  accountId: number;
  cloudspaceId: number;
  machineId: number;
  zeroVcpusHours: number;
  zeroMemoryHours: number;
  /** First hour it was seen so, ISO 8601 UTC. */
  firstHour: string;
}

/** NICs of one machine-hour sharing an id. */
export interface NicCollisionCheck {
  accountId: number;
  hour: string;
  cloudspaceId: number;
  machineId: number;
  isGateway: boolean;
  nicId: number;
  nics: number;
}

/** What `check` found; `readable` is false when any file could not be used. */
export interface CheckReport {
  /** True when every file was read and no account-hour was in conflict (exit 0). */
  readable: boolean;
  accounts: AccountCheck[];
  /** Byte-identical duplicates dropped (display names). */
  duplicates: string[];
  /** Files of conflicting account-hours (two different files for one hour). */
  conflicts: SkippedFile[];
  /** Unreadable, unsafe or misplaced files, with reasons. */
  unreadable: SkippedFile[];
  /** Files whose path is not a consumption path, ignored. */
  ignoredPaths: number;
  /** Copies Syncthing left in the inputs (`.stversions` folders, `*.sync-conflict-*` files), never read: display names. */
  syncthingCopies: string[];
  /** Machines whose type is neither `vm` nor the gateway's `routeros`. */
  unknownMachineTypes: UnknownTypeCheck[];
  /** Machines with 0 vCPUs or 0 memory (at most `limit`, the worst first). */
  zeroResources: ZeroResourceCheck[];
  /** Machine-hours with several NICs whose ids are all 0: the platform quirk of docs/input.md, counted, not listed. */
  nicIdsAllZero: { machineHours: number; ofMachineHoursWithSeveralNics: number };
  /** NICs sharing a non-zero id in one machine-hour (at most `limit`). */
  nicIdCollisions: NicCollisionCheck[];
  /**
   * Empty records: machine-hours of machines with id 0 and type "", cloud-space-hours of cloud
   * spaces with id 0 and state "" (what a damaged file's lists of Void read as).
   */
  emptyRecords: { machineHours: number; cloudSpaceHours: number };
  /** Account-hours whose file names another account than its path (`Account.accountId`). */
  accountIdMismatches: { accountId: number; hour: string; fileAccountId: number }[];
  /** Every impossible value (docs/warehouse.md: NaN, ±Infinity, negative) of every measure, billed or not (exit 3 when any). */
  impossibleValues: ImpossibleValue[];
}

/** Options of {@link checkWarehouse}. */
export interface CheckOptions {
  /** Most rows listed per finding (zero resources, NIC collisions, mismatches). Default 100. */
  limit?: number;
  /**
   * Rows of `nics` grouped by one query at most (whole hours: an hour holding more is grouped
   * alone), so DuckDB's memory for the NIC findings stays that of a run whatever the period.
   * Default 100,000.
   */
  nicRowsPerQuery?: number;
}

const num = (v: unknown): number => Number(v);

/** NIC rows grouped in one query of `check` at most (but for an hour holding more): about two days of 2,000 machines. */
const NIC_ROWS_PER_QUERY = 100_000;

/**
 * The periods (`[start, end)`, epoch seconds) that cut the `nics` table into runs of whole
 * hours holding at most `rowsPerRun` rows each (an hour holding more is a run alone).
 */
async function nicHourRuns(connection: DuckDBConnection, rowsPerRun: number): Promise<[number, number][]> {
  const hours = (
    await connection.runAndReadAll("SELECT hour_epoch, count(*) AS n FROM nics GROUP BY ALL ORDER BY ALL")
  ).getRows();
  return runsWithin(
    hours.map(([hour]) => num(hour)),
    hours.map(([, n]) => num(n)),
    3600,
    rowsPerRun,
  );
}

/** The order of NIC id collisions: account, hour, machine, then cloud space, gateway or not, NIC id (as the SQL orders them). */
function byCollision(a: Record<string, unknown>, b: Record<string, unknown>): number {
  for (const key of ["account_id", "hour_epoch", "machine_id", "cloudspace_id", "is_gateway", "nic_id"]) {
    const d = num(a[key]) - num(b[key]);
    if (d !== 0) return d;
  }
  return 0;
}

/** `[fromEpoch, tillEpoch)` as a {@link MissingRange}. */
function missingRange(fromEpoch: number, tillEpoch: number): MissingRange {
  return {
    fromEpoch,
    tillEpoch,
    from: isoUtc(fromEpoch),
    till: isoUtc(tillEpoch),
    hours: (tillEpoch - fromEpoch) / 3600,
  };
}

/** The hours `sync` gave up per account (`sync_log` event `lost`), ascending; none where the table is absent (a load of files). */
async function lostHours(connection: DuckDBConnection): Promise<Map<number, number[]>> {
  return new Map(
    [...(await lostHoursOf(connection))].map(([accountId, hours]) => [accountId, [...hours].sort((x, y) => x - y)]),
  );
}

/** Rows of a query, as objects (`$limit` bound to the report's limit where the query names it). */
type Query = (sql: string) => Promise<Record<string, unknown>[]>;

/**
 * Each account's span, the hours missing inside it (those `sync` gave up marked lost at source),
 * and its hours later than the current one, set apart: they make no span longer, no hour missing.
 */
async function accountChecks(connection: DuckDBConnection): Promise<AccountCheck[]> {
  // hours later than the current one (test or generated data) are set apart: they make no span longer, no hour missing
  const now = { now: Math.floor(clockNow() / 3600) * 3600 };
  const rows = async (sql: string) => (await connection.runAndReadAll(sql, now)).getRowObjectsJS();
  const spans = await rows(`
    SELECT account_id, min(hour_epoch) AS first, max(hour_epoch) AS last, count(*) AS hours
    FROM account_hours WHERE hour_epoch <= $now GROUP BY account_id ORDER BY account_id`);
  const gaps = await rows(`
    SELECT account_id, hour_epoch + 3600 AS from_epoch, next AS till_epoch FROM (
      SELECT account_id, hour_epoch, lead(hour_epoch) OVER (PARTITION BY account_id ORDER BY hour_epoch) AS next
      FROM account_hours WHERE hour_epoch <= $now)
    WHERE next > hour_epoch + 3600 ORDER BY account_id, from_epoch`);
  const future = await rows(
    "SELECT account_id, count(*) AS hours FROM account_hours WHERE hour_epoch > $now GROUP BY 1",
  );
  const lost = await lostHours(connection);
  return spans.map((s) => {
    const accountId = num(s.account_id);
    const missing = gaps
      .filter((g) => num(g.account_id) === accountId)
      .map((g) => missingRange(num(g.from_epoch), num(g.till_epoch)));
    const stillLost = (lost.get(accountId) ?? []).filter((h) =>
      missing.some((m) => h >= m.fromEpoch && h < m.tillEpoch),
    );
    const lostRanges = hourRanges(stillLost).map((r) => missingRange(r.startEpoch, r.endEpoch));
    return {
      accountId,
      firstHour: isoUtc(num(s.first)),
      lastHour: isoUtc(num(s.last)),
      hours: num(s.hours),
      missingHours: missing.reduce((sum, m) => sum + m.hours, 0),
      missing,
      lostHours: lostRanges.reduce((sum, m) => sum + m.hours, 0),
      lost: lostRanges,
      futureHours: num(future.find((f) => num(f.account_id) === accountId)?.hours ?? 0),
    };
  });
}

/** Machines whose type is neither `vm` nor the gateway's, per type. */
async function unknownMachineTypes(all: Query): Promise<UnknownTypeCheck[]> {
  return (
    await all(`
    SELECT type, count(DISTINCT (account_id, machine_id)) AS machines, count(*) AS machine_hours
    FROM machines WHERE type <> 'vm' GROUP BY type ORDER BY machine_hours DESC, type`)
  ).map((r) => ({
    type: String(r.type),
    machines: num(r.machines),
    machineHours: num(r.machine_hours),
  }));
}

/** Machines with 0 vCPUs or 0 memory in some hours, the worst first. */
async function zeroResources(all: Query): Promise<ZeroResourceCheck[]> {
  return (
    await all(`
    SELECT account_id, cloudspace_id, machine_id, count(*) FILTER (WHERE vcpus = 0) AS zero_vcpus,
           count(*) FILTER (WHERE mem_mb = 0) AS zero_mem, min(hour_epoch) AS first
    FROM machines WHERE vcpus = 0 OR mem_mb = 0
    GROUP BY ALL ORDER BY zero_vcpus + zero_mem DESC, account_id, machine_id LIMIT $limit`)
  ).map((r) => ({
    accountId: num(r.account_id),
    cloudspaceId: num(r.cloudspace_id),
    machineId: num(r.machine_id),
    zeroVcpusHours: num(r.zero_vcpus),
    zeroMemoryHours: num(r.zero_mem),
    firstHour: isoUtc(num(r.first)),
  }));
}

/**
 * The NIC findings: machine-hours whose several NICs all have id 0 (counted), and NICs sharing a non-zero id (at most
 * `limit`).
 */
async function nicFindings(
  connection: DuckDBConnection,
  limit: number,
  rowsPerQuery: number,
): Promise<Pick<CheckReport, "nicIdsAllZero" | "nicIdCollisions">> {
  // NICs are grouped per machine-hour: as many groups as machine-hours, so one query over every
  // row held a hash table that grew with the period (and with the machines). Runs of hours
  // holding a bounded number of rows (found by the zone maps of hour_epoch) keep it to a run's.
  const zero = { all_zero: 0, several: 0 };
  let collisions: Record<string, unknown>[] = [];
  for (const [start, end] of await nicHourRuns(connection, rowsPerQuery)) {
    const run = { start, end };
    const owners = (
      await connection.runAndReadAll(
        `
      SELECT count(*) FILTER (WHERE all_zero) AS all_zero, count(*) AS several FROM (
        SELECT account_id, hour_epoch, cloudspace_id, machine_id, is_gateway, bool_and(nic_id = 0) AS all_zero
        FROM nics WHERE hour_epoch >= $start AND hour_epoch < $end GROUP BY ALL HAVING count(*) > 1)`,
        run,
      )
    ).getRowObjectsJS()[0]!;
    zero.all_zero += num(owners.all_zero);
    zero.several += num(owners.several);
    collisions.push(
      ...(
        await connection.runAndReadAll(
          `
      SELECT account_id, hour_epoch, cloudspace_id, machine_id, is_gateway, nic_id, count(*) AS nics
      FROM nics WHERE nic_id <> 0 AND hour_epoch >= $start AND hour_epoch < $end GROUP BY ALL HAVING count(*) > 1
      ORDER BY account_id, hour_epoch, machine_id, cloudspace_id, is_gateway, nic_id LIMIT $limit`,
          { ...run, limit },
        )
      ).getRowObjectsJS(),
    );
    collisions = collisions.sort(byCollision).slice(0, limit);
  }
  return {
    nicIdsAllZero: { machineHours: num(zero.all_zero), ofMachineHoursWithSeveralNics: num(zero.several) },
    nicIdCollisions: collisions.map((r) => ({
      accountId: num(r.account_id),
      hour: isoUtc(num(r.hour_epoch)),
      cloudspaceId: num(r.cloudspace_id),
      machineId: num(r.machine_id),
      isGateway: Boolean(r.is_gateway),
      nicId: num(r.nic_id),
      nics: num(r.nics),
    })),
  };
}

/**
 * Machine-hours with id 0 and type "", cloud-space-hours with id 0 and state "": what a damaged file's lists of Void
 * read as.
 */
async function emptyRecords(all: Query): Promise<CheckReport["emptyRecords"]> {
  const empty = (
    await all(`
    SELECT (SELECT count(*) FROM machines WHERE machine_id = 0 AND type = '') AS machine_hours,
           (SELECT count(*) FROM cloudspaces WHERE cloudspace_id = 0 AND state = '') AS cloudspace_hours`)
  )[0]!;
  return { machineHours: num(empty.machine_hours), cloudSpaceHours: num(empty.cloudspace_hours) };
}

/** Account-hours whose file names another account than its path. */
async function accountIdMismatches(all: Query): Promise<CheckReport["accountIdMismatches"]> {
  return (
    await all(`
    SELECT account_id, hour_epoch, root_account_id FROM account_hours
    WHERE root_account_id IS NOT NULL AND root_account_id <> account_id ORDER BY ALL LIMIT $limit`)
  ).map((r) => ({
    accountId: num(r.account_id),
    hour: isoUtc(num(r.hour_epoch)),
    fileAccountId: num(r.root_account_id),
  }));
}

/**
 * The data-quality report of a warehouse (`check`, docs/warehouse.md): accounts with their first
 * and last hour and the hours missing inside that span (as half-open UTC ranges; those `sync`
 * gave up as lost at source marked; hours later than the current hour set apart),
 * duplicates, conflicts and unreadable files (from the load report), unknown machine
 * types, machines with 0 vCPUs or 0 memory, NIC id collisions (all-zero ids, a platform
 * quirk, only counted), empty records (no id and no type or state), files naming another
 * account than their path, and every impossible value (docs/warehouse.md).
 */
export async function checkWarehouse(
  connection: DuckDBConnection,
  load: LoadReport,
  options: CheckOptions = {},
): Promise<CheckReport> {
  const limit = options.limit ?? 100;
  const all: Query = async (sql) =>
    (await connection.runAndReadAll(sql, /\$limit\b/.test(sql) ? { limit } : undefined)).getRowObjectsJS();
  const accounts = await accountChecks(connection);
  const unknownTypes = await unknownMachineTypes(all);
  const zeroes = await zeroResources(all);
  const nics = await nicFindings(connection, limit, options.nicRowsPerQuery ?? NIC_ROWS_PER_QUERY);
  const empty = await emptyRecords(all);
  const mismatches = await accountIdMismatches(all);
  return {
    readable: load.skipped.length === 0,
    accounts,
    duplicates: load.duplicates,
    conflicts: load.skipped.filter((s) => s.code === "CONFLICT"),
    unreadable: load.skipped.filter((s) => s.code !== "CONFLICT"),
    ignoredPaths: load.ignoredPaths,
    syncthingCopies: load.syncthingCopies ?? [],
    unknownMachineTypes: unknownTypes,
    zeroResources: zeroes,
    ...nics,
    emptyRecords: empty,
    accountIdMismatches: mismatches,
    impossibleValues: await readImpossibleValues(connection),
  };
}
