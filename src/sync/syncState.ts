import type { DuckDBConnection } from "@duckdb/node-api";

/** What the warehouse knows about one account, for deciding what its sync asks for. */
export interface AccountSyncState {
  /** Every hour before this was asked of the service at least once (`sync_state`); undefined before the first sync. */
  syncedUntilEpoch: number | undefined;
  /** Where its syncs began: hours before it are never asked again; undefined when not recorded. */
  syncedFromEpoch: number | undefined;
  /** The latest hour held (`account_hours`); undefined when none. */
  lastHourEpoch: number | undefined;
}

/** The sync state of every account the warehouse knows, and its earliest hour. */
export async function readSyncState(connection: DuckDBConnection): Promise<{ accounts: Map<number, AccountSyncState>; firstHourEpoch: number | undefined }> {
  const accounts = new Map<number, AccountSyncState>();
  const state = (id: number) => {
    let s = accounts.get(id);
    if (!s) accounts.set(id, (s = { syncedUntilEpoch: undefined, syncedFromEpoch: undefined, lastHourEpoch: undefined }));
    return s;
  };
  for (const row of (await connection.runAndReadAll("SELECT account_id, synced_until_epoch, synced_from_epoch FROM sync_state")).getRowObjectsJS()) {
    const s = state(Number(row.account_id));
    s.syncedUntilEpoch = Number(row.synced_until_epoch);
    s.syncedFromEpoch = row.synced_from_epoch === null ? undefined : Number(row.synced_from_epoch);
  }
  for (const row of (await connection.runAndReadAll("SELECT account_id, max(hour_epoch) AS last FROM account_hours GROUP BY 1")).getRowObjectsJS()) {
    state(Number(row.account_id)).lastHourEpoch = Number(row.last);
  }
  const first = (await connection.runAndReadAll("SELECT min(hour_epoch) AS first FROM account_hours")).getRowObjectsJS()[0]!.first;
  return { accounts, firstHourEpoch: first === null ? undefined : Number(first) };
}

/** The hours of `accountId` in `[startEpoch, endEpoch)` the warehouse holds. */
export async function readHeldHours(connection: DuckDBConnection, accountId: number, startEpoch: number, endEpoch: number): Promise<Set<number>> {
  const rows = (await connection.runAndReadAll(
    "SELECT hour_epoch FROM account_hours WHERE account_id = $a AND hour_epoch >= $s AND hour_epoch < $e",
    { a: accountId, s: startEpoch, e: endEpoch },
  )).getRows();
  return new Set(rows.map(([h]) => Number(h)));
}

/** An hour a sync got after first asking for it. */
export interface SyncEvent {
  hourEpoch: number;
  /** `late`: written by the platform after an earlier sync asked for it; `rewritten`: its file changed, the held one was replaced. */
  event: "late" | "rewritten";
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
    for (const e of events) {
      await connection.run("INSERT INTO sync_log (account_id, hour_epoch, event) VALUES ($a, $h, $e)", { a: accountId, h: e.hourEpoch, e: e.event });
    }
    await connection.run("COMMIT");
  } catch (error) {
    await connection.run("ROLLBACK");
    throw error;
  }
}

/** Records how the account's sync of this run ended (`status`), and why it failed. */
export async function recordResult(connection: DuckDBConnection, accountId: number, fromEpoch: number, result: string, error: string | null): Promise<void> {
  await connection.run(
    `INSERT INTO sync_state (account_id, synced_until_epoch, synced_from_epoch, last_run_at, last_result, last_error) VALUES ($a, $f, $f, now(), $r, $e)
     ON CONFLICT (account_id) DO UPDATE SET last_run_at = now(), last_result = excluded.last_result, last_error = excluded.last_error`,
    { a: accountId, f: fromEpoch, r: result, e: error },
  );
}
