import { statSync } from "node:fs";
import type { Warehouse } from "../store/types.js";
import { HOUR_SECONDS } from "./syncChunks.js";

/** Hours `[fromEpoch, toEpoch]`, both included. */
export interface HourSpan {
  fromEpoch: number;
  toEpoch: number;
  hours: number;
}

/** How fresh one account of the warehouse is. */
export interface AccountStatus {
  accountId: number;
  /** The name `sync` stored, when it did. */
  name: string | null;
  /** First and last hour held; null when none. */
  firstHourEpoch: number | null;
  lastHourEpoch: number | null;
  /** Every hour before this is complete or missing for good: the hour after the last hour held (else where its syncs began). */
  completeUntilEpoch: number | null;
  /** Whole hours from `completeUntilEpoch` to the current hour's start: hours that ended and are not held yet ("not yet synced"). */
  lagHours: number | null;
  /** Hours not held between the first and the last hour held (the platform never wrote them, or not yet). */
  missing: HourSpan[];
  /** The hours after the last one held up to the current hour: not yet synced (not missing). */
  notYetSynced: HourSpan | null;
  /** Hours that arrived after an earlier sync had asked for them, and hours the platform rewrote (the held one replaced). */
  late: HourSpan[];
  rewritten: HourSpan[];
  /** The account's last sync; null when `sync` never ran for it. */
  lastSync: { atEpoch: number | null; result: string | null; error: string | null; syncedUntilEpoch: number } | null;
}

/** What `cloudunits status` reports of a warehouse. */
export interface WarehouseStatus {
  /** The warehouse file ("" for one in memory). */
  db: string;
  /** Its size, bytes (0 in memory). */
  sizeBytes: number;
  /** The current hour's start when the status was taken. */
  currentHourEpoch: number;
  /** First and last hour held over every account; null when empty. */
  period: { firstHourEpoch: number; lastHourEpoch: number } | null;
  accountHours: number;
  accounts: AccountStatus[];
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/** Consecutive hours (ascending epochs) as spans. */
function spans(hours: readonly number[]): HourSpan[] {
  const out: HourSpan[] = [];
  for (const h of hours) {
    const last = out.at(-1);
    if (last && last.toEpoch + HOUR_SECONDS === h) {
      last.toEpoch = h;
      last.hours++;
    } else out.push({ fromEpoch: h, toEpoch: h, hours: 1 });
  }
  return out;
}

/**
 * The freshness of every account of a warehouse (those with hours, and those `sync` knows):
 * complete-until, lag behind the current hour, missing hours, hours not yet synced, late and
 * rewritten hours (`sync_log`), and the last sync (when, result).
 */
export async function warehouseStatus(store: Pick<Warehouse, "connection" | "db">, nowEpoch = Date.now() / 1000): Promise<WarehouseStatus> {
  const { connection, db = "" } = store;
  const currentHourEpoch = Math.floor(nowEpoch / HOUR_SECONDS) * HOUR_SECONDS;
  const rows = async (sql: string) => (await connection.runAndReadAll(sql)).getRowObjectsJS();
  const held = await rows("SELECT account_id, min(hour_epoch) AS first, max(hour_epoch) AS last, count(*) AS n FROM account_hours GROUP BY 1");
  // a warehouse made before sync kept its results has neither the columns nor the log (opened read-only, it is not brought up to date)
  const known = new Set((await rows(
    "SELECT table_name || '.' || column_name AS c FROM information_schema.columns WHERE table_name IN ('sync_state', 'sync_log')",
  )).map((r) => String(r.c)));
  const state = await rows(known.has("sync_state.last_result")
    ? "SELECT account_id, synced_until_epoch, synced_from_epoch, epoch(last_run_at) AS at, last_result, last_error FROM sync_state"
    : "SELECT account_id, synced_until_epoch, NULL AS synced_from_epoch, epoch(synced_at) AS at, NULL AS last_result, NULL AS last_error FROM sync_state");
  const names = await rows("SELECT id, name FROM entity_names WHERE kind = 'account'");
  // the holes between held hours (3600: an hour, in seconds)
  const gaps = await rows(`
    SELECT account_id, prev + 3600 AS gap_from, hour_epoch - 3600 AS gap_to
    FROM (SELECT account_id, hour_epoch, lag(hour_epoch) OVER (PARTITION BY account_id ORDER BY hour_epoch) AS prev FROM account_hours)
    WHERE hour_epoch - prev > 3600 ORDER BY account_id, gap_from`);
  const log = known.has("sync_log.event") ? await rows("SELECT DISTINCT account_id, event, hour_epoch FROM sync_log ORDER BY account_id, event, hour_epoch") : [];

  const ids = [...new Set([...held.map((r) => Number(r.account_id)), ...state.map((r) => Number(r.account_id))])].sort((a, b) => a - b);
  const accounts = ids.map((accountId): AccountStatus => {
    const h = held.find((r) => Number(r.account_id) === accountId);
    const s = state.find((r) => Number(r.account_id) === accountId);
    const lastHourEpoch = num(h?.last);
    const completeUntilEpoch = lastHourEpoch !== null ? lastHourEpoch + HOUR_SECONDS : num(s?.synced_from_epoch) ?? num(s?.synced_until_epoch);
    const lagHours = completeUntilEpoch === null ? null : Math.max(0, (currentHourEpoch - completeUntilEpoch) / HOUR_SECONDS);
    const events = (event: string) => spans(log.filter((r) => Number(r.account_id) === accountId && r.event === event).map((r) => Number(r.hour_epoch)));
    return {
      accountId,
      name: (names.find((r) => Number(r.id) === accountId)?.name as string | undefined) ?? null,
      firstHourEpoch: num(h?.first),
      lastHourEpoch,
      completeUntilEpoch,
      lagHours,
      missing: gaps.filter((r) => Number(r.account_id) === accountId).map((r) => ({
        fromEpoch: Number(r.gap_from), toEpoch: Number(r.gap_to), hours: (Number(r.gap_to) - Number(r.gap_from)) / HOUR_SECONDS + 1,
      })),
      notYetSynced: completeUntilEpoch !== null && lagHours! > 0
        ? { fromEpoch: completeUntilEpoch, toEpoch: currentHourEpoch - HOUR_SECONDS, hours: lagHours! }
        : null,
      late: events("late"),
      rewritten: events("rewritten"),
      lastSync: s ? { atEpoch: num(s.at), result: (s.last_result as string | null) ?? null, error: (s.last_error as string | null) ?? null, syncedUntilEpoch: Number(s.synced_until_epoch) } : null,
    };
  });
  const firsts = held.map((r) => Number(r.first));
  const lasts = held.map((r) => Number(r.last));
  return {
    db,
    sizeBytes: db === "" ? 0 : statSync(db).size,
    currentHourEpoch,
    period: firsts.length === 0 ? null : { firstHourEpoch: Math.min(...firsts), lastHourEpoch: Math.max(...lasts) },
    accountHours: held.reduce((sum, r) => sum + Number(r.n), 0),
    accounts,
  };
}
