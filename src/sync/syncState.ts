import type { DuckDBConnection } from "@duckdb/node-api";

/** What the warehouse knows about one account, for deciding what its sync asks for. Hours later than the current hour are not counted (only `ingest` keeps them). */
export interface AccountSyncState {
  /** Every hour before this was asked of the service at least once (`sync_state`); undefined before the first sync. */
  syncedUntilEpoch: number | undefined;
  /** Where its syncs began: hours before it are never asked again; undefined when not recorded. */
  syncedFromEpoch: number | undefined;
  /** The first and the latest hour held (`account_hours`), not later than the current hour; undefined when none. */
  firstHourEpoch: number | undefined;
  lastHourEpoch: number | undefined;
  /** The end of the hours of the last run that asked again for the missing hours older than its look-back; undefined when none did. */
  missingAskedUntilEpoch: number | undefined;
}

/** The sync state of every account the warehouse knows, and its earliest hour, as of the hour `currentHourEpoch`. */
export async function readSyncState(connection: DuckDBConnection, currentHourEpoch: number): Promise<{ accounts: Map<number, AccountSyncState>; firstHourEpoch: number | undefined }> {
  const accounts = new Map<number, AccountSyncState>();
  const state = (id: number) => {
    let s = accounts.get(id);
    if (!s) accounts.set(id, (s = { syncedUntilEpoch: undefined, syncedFromEpoch: undefined, firstHourEpoch: undefined, lastHourEpoch: undefined, missingAskedUntilEpoch: undefined }));
    return s;
  };
  const optional = (value: unknown) => (value === null || value === undefined ? undefined : Number(value));
  for (const row of (await connection.runAndReadAll("SELECT account_id, synced_until_epoch, synced_from_epoch, missing_asked_until_epoch FROM sync_state")).getRowObjectsJS()) {
    const s = state(Number(row.account_id));
    s.syncedUntilEpoch = Number(row.synced_until_epoch);
    s.syncedFromEpoch = optional(row.synced_from_epoch);
    s.missingAskedUntilEpoch = optional(row.missing_asked_until_epoch);
  }
  const held = await connection.runAndReadAll(
    "SELECT account_id, min(hour_epoch) AS first, max(hour_epoch) AS last FROM account_hours WHERE hour_epoch <= $now GROUP BY 1",
    { now: currentHourEpoch },
  );
  for (const row of held.getRowObjectsJS()) {
    const s = state(Number(row.account_id));
    s.firstHourEpoch = Number(row.first);
    s.lastHourEpoch = Number(row.last);
  }
  const firsts = [...accounts.values()].flatMap((s) => (s.firstHourEpoch === undefined ? [] : [s.firstHourEpoch]));
  return { accounts, firstHourEpoch: firsts.length === 0 ? undefined : Math.min(...firsts) };
}

/** The hours of `accountId` in `[startEpoch, endEpoch)` the warehouse holds. */
export async function readHeldHours(connection: DuckDBConnection, accountId: number, startEpoch: number, endEpoch: number): Promise<Set<number>> {
  const rows = (await connection.runAndReadAll(
    "SELECT hour_epoch FROM account_hours WHERE account_id = $a AND hour_epoch >= $s AND hour_epoch < $e",
    { a: accountId, s: startEpoch, e: endEpoch },
  )).getRows();
  return new Set(rows.map(([h]) => Number(h)));
}

/** An hour a sync got after first asking for it, or gave up. */
export interface SyncEvent {
  hourEpoch: number;
  /**
   * `late`: written by the platform after an earlier sync asked for it; `rewritten`: its file
   * changed, the held one was replaced; `lost`: never written, and past the platform's retention.
   */
  event: "late" | "rewritten" | "lost";
}

/** Logs `events` of `accountId` in `sync_log`, in the caller's transaction (if any). */
async function logEvents(connection: DuckDBConnection, accountId: number, events: readonly SyncEvent[]): Promise<void> {
  for (const e of events) {
    await connection.run("INSERT INTO sync_log (account_id, hour_epoch, event) VALUES ($a, $h, $e)", { a: accountId, h: e.hourEpoch, e: e.event });
  }
}

/**
 * Records, in one transaction, that every hour of `accountId` before `untilEpoch` was asked
 * (never moves the mark back; `fromEpoch` is where the account's syncs began, kept from the
 * first), and logs the late and rewritten hours of the chunk.
 */
export async function recordChunk(connection: DuckDBConnection, accountId: number, fromEpoch: number, untilEpoch: number, events: readonly SyncEvent[]): Promise<void> {
  await connection.run("BEGIN TRANSACTION");
  try {
    await connection.run(
      `INSERT INTO sync_state (account_id, synced_until_epoch, synced_from_epoch) VALUES ($a, $u, $f)
       ON CONFLICT (account_id) DO UPDATE SET synced_until_epoch = greatest(sync_state.synced_until_epoch, excluded.synced_until_epoch),
         synced_from_epoch = least(coalesce(sync_state.synced_from_epoch, excluded.synced_from_epoch), excluded.synced_from_epoch), synced_at = now()`,
      { a: accountId, u: untilEpoch, f: fromEpoch },
    );
    await logEvents(connection, accountId, events);
    await connection.run("COMMIT");
  } catch (error) {
    await connection.run("ROLLBACK");
    throw error;
  }
}

/** How one account's sync of a run ended, as {@link recordResult} keeps it. */
export interface AccountResultRecord {
  accountId: number;
  /** Where the account's syncs begin. */
  fromEpoch: number;
  /** `synced`, `up-to-date`, `waiting` or `failed`. */
  result: string;
  error: string | null;
  lookBackHours: number;
  retentionHours: number;
  /** The run's end, when it asked again for the missing hours older than its look-back (else the last run's stays). */
  missingAskedUntilEpoch: number | undefined;
  /** Hours given up in this run: logged `lost`. */
  lost: readonly number[];
}

/** Records, in one transaction, how the account's sync of this run ended, the windows it used, and the hours it gave up. */
export async function recordResult(connection: DuckDBConnection, r: AccountResultRecord): Promise<void> {
  await connection.run("BEGIN TRANSACTION");
  try {
    await connection.run(
      `INSERT INTO sync_state (account_id, synced_until_epoch, synced_from_epoch, last_run_at, last_result, last_error, look_back_hours, retention_hours, missing_asked_until_epoch)
       VALUES ($a, $f, $f, now(), $r, $e, $lb, $rt, $m)
       ON CONFLICT (account_id) DO UPDATE SET last_run_at = now(), last_result = excluded.last_result, last_error = excluded.last_error,
         look_back_hours = excluded.look_back_hours, retention_hours = excluded.retention_hours,
         missing_asked_until_epoch = coalesce(excluded.missing_asked_until_epoch, sync_state.missing_asked_until_epoch)`,
      { a: r.accountId, f: r.fromEpoch, r: r.result, e: r.error, lb: r.lookBackHours, rt: r.retentionHours, m: r.missingAskedUntilEpoch ?? null },
    );
    await logEvents(connection, r.accountId, r.lost.map((hourEpoch) => ({ hourEpoch, event: "lost" as const })));
    await connection.run("COMMIT");
  } catch (error) {
    await connection.run("ROLLBACK");
    throw error;
  }
}

/**
 * The hours of `accountId` not held between its first and last hour held (not later than
 * `currentHourEpoch`), from `fromEpoch` and before `beforeEpoch`, that `sync_log` does not
 * already call `lost`: the hours a run gives up once they leave the platform's retention.
 */
export async function readUnloggedHoles(connection: DuckDBConnection, accountId: number, fromEpoch: number, beforeEpoch: number, currentHourEpoch: number): Promise<number[]> {
  const rows = await connection.runAndReadAll(
    `WITH held AS (SELECT hour_epoch, lead(hour_epoch) OVER (ORDER BY hour_epoch) AS next
                   FROM account_hours WHERE account_id = $a AND hour_epoch <= $now),
     holes AS (SELECT unnest(range(hour_epoch + 3600, next, 3600)) AS hour_epoch FROM held WHERE next - hour_epoch > 3600)
     SELECT hour_epoch FROM holes WHERE hour_epoch >= $from AND hour_epoch < $before
       AND hour_epoch NOT IN (SELECT hour_epoch FROM sync_log WHERE account_id = $a AND event = 'lost')
     ORDER BY 1`,
    { a: accountId, now: currentHourEpoch, from: fromEpoch, before: beforeEpoch },
  );
  return rows.getRows().map(([h]) => Number(h));
}
