import { statSync } from "node:fs";
import { isoUtc } from "../base/time.js";
import type { Warehouse } from "../store/types.js";
import { hourRanges } from "../base/period.js";
import { HOUR_SECONDS } from "./syncChunks.js";
import { DEFAULT_LOOK_BACK_HOURS } from "./syncPlan.js";
import { readUnfinishedRuns, type UnfinishedRun } from "./syncRuns.js";
import { clockNow } from "../base/clock.js";

/** Hours `[fromEpoch, toEpoch]`, both included. */
export interface HourSpan {
  fromEpoch: number;
  toEpoch: number;
  hours: number;
}

/** How fresh one account of the warehouse is. Hours later than the current hour (`future`) count as none of the others. */
export interface AccountStatus {
  accountId: number;
  /** The name `sync` stored, when it did. */
  name: string | null;
  /** First and last hour held, not later than the current hour; null when none. */
  firstHourEpoch: number | null;
  lastHourEpoch: number | null;
  /** Every hour before this is held, missing or lost: the hour after the last hour held (else where its syncs began). */
  completeUntilEpoch: number | null;
  /** Whole hours from `completeUntilEpoch` to the current hour's start: hours that ended and are not held yet ("not yet synced"). */
  lagHours: number | null;
  /** Hours not held between the first and the last hour held, not given up (the platform never wrote them, or not yet): `sync` asks them again until the retention ends. */
  missing: HourSpan[];
  /** The part of `missing` inside the last sync's look-back window, asked again by every sync (older ones once a day); none for a warehouse `sync` never kept. */
  insideLookBack: HourSpan[];
  /** Missing hours `sync` gave up: never written, and past the platform's retention ("lost at source", for good). */
  lost: HourSpan[];
  /** The part of `lost` an operator accepted (`status --accept-lost HOUR`, logged `accepted`): listed, no longer alarming. */
  acceptedLost: HourSpan[];
  /** The hours after the last one held up to the current hour: not yet synced (not missing). */
  notYetSynced: HourSpan | null;
  /** Hours held that are later than the current hour (loaded by `ingest`: the platform cannot have written them). */
  future: HourSpan[];
  /** Hours that arrived after an earlier sync had asked for them, and hours the platform rewrote (the held one replaced). */
  late: HourSpan[];
  rewritten: HourSpan[];
  /**
   * The account's last sync (its look-back and retention, hours, when it recorded them); null when `sync` never ran for it.
   * A run that started after the last recorded result is the last sync: `running` while its process runs, else `failed`
   * (it stopped before it could record one: killed, or the machine refused a write), `atEpoch` its start.
   */
  lastSync: {
    atEpoch: number | null;
    result: string | null;
    error: string | null;
    /** Every hour before it was asked (null when no run recorded any). */
    syncedUntilEpoch: number | null;
    lookBackHours: number | null;
    retentionHours: number | null;
  } | null;
}

/** What `cloudunits status` reports of a warehouse. */
export interface WarehouseStatus {
  /** The warehouse file ("" for one in memory). */
  db: string;
  /** Its size, bytes (0 in memory). */
  sizeBytes: number;
  /** The current hour's start when the status was taken. */
  currentHourEpoch: number;
  /** First and last hour held over every account, not later than the current hour; null when empty. */
  period: { firstHourEpoch: number; lastHourEpoch: number } | null;
  accountHours: number;
  accounts: AccountStatus[];
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/** Consecutive hours (ascending epochs) as spans. */
function spans(hours: readonly number[]): HourSpan[] {
  return hourRanges(hours).map((r) => ({
    fromEpoch: r.startEpoch,
    toEpoch: r.endEpoch - HOUR_SECONDS,
    hours: (r.endEpoch - r.startEpoch) / HOUR_SECONDS,
  }));
}

/** The hours of spans, ascending. */
function hoursOf(list: readonly HourSpan[]): number[] {
  return list.flatMap((s) => Array.from({ length: s.hours }, (_, i) => s.fromEpoch + i * HOUR_SECONDS));
}

type Row = Record<string, unknown>;

/** The columns a warehouse has of `sync_state` and whether it has `sync_log` (one made before sync kept them, opened read-only, is not brought up to date). */
async function syncColumns(rows: (sql: string) => Promise<Row[]>): Promise<Set<string>> {
  return new Set(
    (
      await rows(
        "SELECT table_name || '.' || column_name AS c FROM information_schema.columns WHERE table_name IN ('sync_state', 'sync_log')",
      )
    ).map((r) => String(r.c)),
  );
}

/** The state of each account's last sync, whichever columns the warehouse has. */
function syncStateSql(known: Set<string>): string {
  const column = (name: string, fallback = "NULL") =>
    known.has(`sync_state.${name}`) ? name : `${fallback} AS ${name}`;
  return `SELECT account_id, synced_until_epoch, ${column("synced_from_epoch")}, epoch(${known.has("sync_state.last_run_at") ? "last_run_at" : "synced_at"}) AS at,
            ${column("last_result")}, ${column("last_error")}, ${column("look_back_hours")}, ${column("retention_hours")} FROM sync_state`;
}

/**
 * The freshness of every account of a warehouse (those with hours, and those `sync` knows):
 * complete-until, lag behind the current hour, missing hours (and which are still inside the
 * last sync's look-back), lost hours, hours not yet synced, hours later than the current hour,
 * late and rewritten hours (`sync_log`), and the last sync (when, result).
 */
export async function warehouseStatus(
  store: Pick<Warehouse, "connection" | "db">,
  nowEpoch = clockNow(),
): Promise<WarehouseStatus> {
  const { connection, db = "" } = store;
  const currentHourEpoch = Math.floor(nowEpoch / HOUR_SECONDS) * HOUR_SECONDS;
  const read = await readStatusRows(connection, currentHourEpoch);
  const unfinished = await readUnfinishedRuns(connection);
  const ids = [
    ...new Set([
      ...read.held.map((r) => Number(r.account_id)),
      ...read.state.map((r) => Number(r.account_id)),
      ...read.future.map((r) => Number(r.account_id)),
      ...unfinished.keys(),
    ]),
  ].sort((a, b) => a - b);
  const accounts = ids.map((accountId) => accountStatus(accountId, read, unfinished.get(accountId), currentHourEpoch));
  const firsts = read.held.map((r) => Number(r.first));
  const lasts = read.held.map((r) => Number(r.last));
  return {
    db,
    sizeBytes: db === "" ? 0 : statSync(db).size,
    currentHourEpoch,
    period: firsts.length === 0 ? null : { firstHourEpoch: Math.min(...firsts), lastHourEpoch: Math.max(...lasts) },
    accountHours: read.held.reduce((sum, r) => sum + Number(r.n), 0),
    accounts,
  };
}

/**
 * What the status is made of, every account's rows: hours held (to the current hour) and later, sync state, names,
 * holes, the sync log's events.
 */
interface StatusRows {
  held: Row[];
  future: Row[];
  state: Row[];
  names: Row[];
  gaps: Row[];
  log: Row[];
}

/** Reads the rows of the status, hours later than `currentHourEpoch` apart. */
async function readStatusRows(connection: Warehouse["connection"], currentHourEpoch: number): Promise<StatusRows> {
  const rows = async (sql: string, params?: Record<string, number>) =>
    (await connection.runAndReadAll(sql, params)).getRowObjectsJS();
  const now = { now: currentHourEpoch };
  const held = await rows(
    "SELECT account_id, min(hour_epoch) AS first, max(hour_epoch) AS last, count(*) AS n FROM account_hours WHERE hour_epoch <= $now GROUP BY 1",
    now,
  );
  const future = await rows(
    "SELECT account_id, hour_epoch FROM account_hours WHERE hour_epoch > $now ORDER BY 1, 2",
    now,
  );
  const known = await syncColumns(rows);
  const state = await rows(syncStateSql(known));
  const names = await rows("SELECT id, name FROM entity_names WHERE kind = 'account'");
  // the holes between held hours (3600: an hour, in seconds)
  const gaps = await rows(
    `
    SELECT account_id, prev + 3600 AS gap_from, hour_epoch - 3600 AS gap_to
    FROM (SELECT account_id, hour_epoch, lag(hour_epoch) OVER (PARTITION BY account_id ORDER BY hour_epoch) AS prev FROM account_hours WHERE hour_epoch <= $now)
    WHERE hour_epoch - prev > 3600 ORDER BY account_id, gap_from`,
    now,
  );
  const log = known.has("sync_log.event")
    ? await rows("SELECT DISTINCT account_id, event, hour_epoch FROM sync_log ORDER BY account_id, event, hour_epoch")
    : [];
  return { held, future, state, names, gaps, log };
}

/**
 * One account's status from the rows read: its span, how far behind, its holes (missing, lost, accepted), late and
 * rewritten hours, last sync.
 */
function accountStatus(
  accountId: number,
  read: StatusRows,
  unfinished: UnfinishedRun | undefined,
  currentHourEpoch: number,
): AccountStatus {
  const h = read.held.find((r) => Number(r.account_id) === accountId);
  const s = read.state.find((r) => Number(r.account_id) === accountId);
  const lastHourEpoch = num(h?.last);
  const completeUntilEpoch =
    lastHourEpoch !== null ? lastHourEpoch + HOUR_SECONDS : (num(s?.synced_from_epoch) ?? num(s?.synced_until_epoch));
  const lagHours =
    completeUntilEpoch === null ? null : Math.max(0, (currentHourEpoch - completeUntilEpoch) / HOUR_SECONDS);
  const logged = (event: string) =>
    read.log.filter((r) => Number(r.account_id) === accountId && r.event === event).map((r) => Number(r.hour_epoch));
  const holes = hoursOf(
    read.gaps
      .filter((r) => Number(r.account_id) === accountId)
      .map((r) => ({
        fromEpoch: Number(r.gap_from),
        toEpoch: Number(r.gap_to),
        hours: (Number(r.gap_to) - Number(r.gap_from)) / HOUR_SECONDS + 1,
      })),
  );
  const lost = new Set(logged("lost"));
  const accepted = new Set(logged("accepted"));
  // the last sync asks again on every run for the hours of its look-back; a warehouse never synced has none
  const lookBackStartEpoch =
    s && s.synced_until_epoch !== null
      ? Number(s.synced_until_epoch) - (num(s.look_back_hours) ?? DEFAULT_LOOK_BACK_HOURS) * HOUR_SECONDS
      : Number.POSITIVE_INFINITY;
  return {
    accountId,
    name: (read.names.find((r) => Number(r.id) === accountId)?.name as string | undefined) ?? null,
    firstHourEpoch: num(h?.first),
    lastHourEpoch,
    completeUntilEpoch,
    lagHours,
    missing: spans(holes.filter((hour) => !lost.has(hour))),
    insideLookBack: spans(holes.filter((hour) => !lost.has(hour) && hour >= lookBackStartEpoch)),
    lost: spans(holes.filter((hour) => lost.has(hour))),
    acceptedLost: spans(holes.filter((hour) => lost.has(hour) && accepted.has(hour))),
    notYetSynced:
      completeUntilEpoch !== null && lagHours! > 0
        ? { fromEpoch: completeUntilEpoch, toEpoch: currentHourEpoch - HOUR_SECONDS, hours: lagHours! }
        : null,
    future: spans(read.future.filter((r) => Number(r.account_id) === accountId).map((r) => Number(r.hour_epoch))),
    late: spans(logged("late")),
    rewritten: spans(logged("rewritten")),
    lastSync: lastSyncOf(s, unfinished),
  };
}

/** The last sync of an account: its recorded result, or the run that started since and did not record one. */
function lastSyncOf(s: Row | undefined, run: UnfinishedRun | undefined): AccountStatus["lastSync"] {
  const recorded = s && {
    atEpoch: num(s.at),
    result: (s.last_result as string | null) ?? null,
    error: (s.last_error as string | null) ?? null,
    syncedUntilEpoch: Number(s.synced_until_epoch),
    lookBackHours: num(s.look_back_hours),
    retentionHours: num(s.retention_hours),
  };
  if (run === undefined) return recorded ?? null;
  return {
    syncedUntilEpoch: null,
    lookBackHours: null,
    retentionHours: null,
    ...recorded,
    atEpoch: run.startedAtEpoch,
    result: run.live ? "running" : "failed",
    error: run.live
      ? null
      : `the sync that started at ${isoUtc(run.startedAtEpoch)} (PID ${run.pid} on ${run.host}) stopped before it recorded a result: killed, or the machine refused a write (its exit code and output say which)`,
  };
}

const hoursIn = (list: readonly HourSpan[]) => list.reduce((sum, span) => sum + span.hours, 0);

/** Hours of an account that alarm (`status` exits 7): missing, and lost at source but not accepted. */
export function alarmingHours(a: AccountStatus): { missingHours: number; lostHours: number } {
  return { missingHours: hoursIn(a.missing), lostHours: hoursIn(a.lost) - hoursIn(a.acceptedLost) };
}
