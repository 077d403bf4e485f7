import type { DuckDBConnection } from "@duckdb/node-api";

/** What the warehouse knows about one account, for deciding where its sync starts. */
export interface AccountSyncState {
  /** Every hour before this was asked of the service and ingested (`sync_state`); undefined before the first sync. */
  syncedUntilEpoch: number | undefined;
  /** The latest hour held (`account_hours`); undefined when none. */
  lastHourEpoch: number | undefined;
}

/** The sync state of every account the warehouse knows, and its earliest hour. */
export async function readSyncState(connection: DuckDBConnection): Promise<{ accounts: Map<number, AccountSyncState>; firstHourEpoch: number | undefined }> {
  const accounts = new Map<number, AccountSyncState>();
  const state = (id: number) => {
    let s = accounts.get(id);
    if (!s) accounts.set(id, (s = { syncedUntilEpoch: undefined, lastHourEpoch: undefined }));
    return s;
  };
  for (const row of (await connection.runAndReadAll("SELECT account_id, synced_until_epoch FROM sync_state")).getRowObjectsJS()) {
    state(Number(row.account_id)).syncedUntilEpoch = Number(row.synced_until_epoch);
  }
  for (const row of (await connection.runAndReadAll("SELECT account_id, max(hour_epoch) AS last FROM account_hours GROUP BY 1")).getRowObjectsJS()) {
    state(Number(row.account_id)).lastHourEpoch = Number(row.last);
  }
  const first = (await connection.runAndReadAll("SELECT min(hour_epoch) AS first FROM account_hours")).getRowObjectsJS()[0]!.first;
  return { accounts, firstHourEpoch: first === null ? undefined : Number(first) };
}

/** Records that every hour of `accountId` before `untilEpoch` was synced (never moves the mark back). */
export async function advanceSyncState(connection: DuckDBConnection, accountId: number, untilEpoch: number): Promise<void> {
  await connection.run(
    `INSERT INTO sync_state (account_id, synced_until_epoch) VALUES ($a, $u)
     ON CONFLICT (account_id) DO UPDATE SET synced_until_epoch = greatest(sync_state.synced_until_epoch, excluded.synced_until_epoch), synced_at = now()`,
    { a: accountId, u: untilEpoch },
  );
}
