import type { DuckDBConnection, DuckDBType, DuckDBValue } from "@duckdb/node-api";
import { duckdbApi } from "../base/duckdb.js";

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
export async function readSyncState(
  connection: DuckDBConnection,
  currentHourEpoch: number,
): Promise<{ accounts: Map<number, AccountSyncState>; firstHourEpoch: number | undefined }> {
  const accounts = new Map<number, AccountSyncState>();
  const state = (id: number) => {
    let s = accounts.get(id);
    if (!s)
      accounts.set(
        id,
        (s = {
          syncedUntilEpoch: undefined,
          syncedFromEpoch: undefined,
          firstHourEpoch: undefined,
          lastHourEpoch: undefined,
          missingAskedUntilEpoch: undefined,
        }),
      );
    return s;
  };
  const optional = (value: unknown) => (value === null || value === undefined ? undefined : Number(value));
  for (const row of (
    await connection.runAndReadAll(
      "SELECT account_id, synced_until_epoch, synced_from_epoch, missing_asked_until_epoch FROM sync_state",
    )
  ).getRowObjectsJS()) {
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

/** An account's hours `[startEpoch, endEpoch)`. */
export interface AccountRange {
  accountId: number;
  startEpoch: number;
  endEpoch: number;
}

/** DuckDB list parameters of many rows, a list per column: a statement reads them back as rows with `unnest`. */
function columns<T>(rows: readonly T[], of: Record<string, (row: T) => number | string | null>) {
  const { BIGINT, LIST, VARCHAR, listValue } = duckdbApi();
  const values: Record<string, DuckDBValue> = {};
  const types: Record<string, DuckDBType> = {};
  for (const [name, get] of Object.entries(of)) {
    const text = rows.some((r) => typeof get(r) === "string");
    values[name] = listValue(
      rows.map((r) => {
        const v = get(r);
        return v === null ? null : text ? String(v) : BigInt(v);
      }),
    );
    types[name] = LIST(text ? VARCHAR : BIGINT);
  }
  return { values, types };
}

/**
 * The hours the warehouse holds of each account in its range, in one query (a query per account
 * cost a run of 1,000 accounts seconds): a set, empty when none, for every account of `ranges`.
 */
export async function readHeldHours(
  connection: DuckDBConnection,
  ranges: readonly AccountRange[],
): Promise<Map<number, Set<number>>> {
  const held = new Map<number, Set<number>>(ranges.map((r) => [r.accountId, new Set<number>()]));
  if (ranges.length === 0) return held;
  const { values, types } = columns(ranges, { a: (r) => r.accountId, s: (r) => r.startEpoch, e: (r) => r.endEpoch });
  const rows = await connection.runAndReadAll(
    `SELECT account_id, hour_epoch FROM account_hours JOIN (SELECT unnest($a) AS a, unnest($s) AS s, unnest($e) AS e) q
       ON account_id = q.a AND hour_epoch >= q.s AND hour_epoch < q.e`,
    values,
    types,
  );
  for (const [a, h] of rows.getRows()) held.get(Number(a))!.add(Number(h));
  return held;
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

/** An event of an account, as `sync_log` keeps it. */
type AccountEvent = SyncEvent & { accountId: number };

/** Logs `events` in `sync_log` in one statement, in the caller's transaction. */
async function logEvents(connection: DuckDBConnection, events: readonly AccountEvent[]): Promise<void> {
  if (events.length === 0) return;
  const { values, types } = columns(events, { a: (e) => e.accountId, h: (e) => e.hourEpoch, e: (e) => e.event });
  await connection.run(
    "INSERT INTO sync_log (account_id, hour_epoch, event) SELECT unnest($a), unnest($h), unnest($e)",
    values,
    types,
  );
}

/** Runs `fn` in one transaction of `connection`. */
async function inTransaction(connection: DuckDBConnection, fn: () => Promise<void>): Promise<void> {
  await connection.run("BEGIN TRANSACTION");
  try {
    await fn();
    await connection.run("COMMIT");
  } catch (error) {
    await connection.run("ROLLBACK");
    throw error;
  }
}

/** What a step records of one account's chunks: every hour before `untilEpoch` was asked; where its syncs began; the late and rewritten hours. */
export interface ChunkRecord {
  accountId: number;
  fromEpoch: number;
  untilEpoch: number;
  events: readonly SyncEvent[];
}

/**
 * Records, in one transaction for every account of a step, that every hour of each account
 * before its `untilEpoch` was asked (never moves the mark back; `fromEpoch` is where the
 * account's syncs began, kept from the first), and logs the late and rewritten hours.
 */
export async function recordChunks(connection: DuckDBConnection, records: readonly ChunkRecord[]): Promise<void> {
  if (records.length === 0) return;
  const { values, types } = columns(records, { a: (r) => r.accountId, u: (r) => r.untilEpoch, f: (r) => r.fromEpoch });
  await inTransaction(connection, async () => {
    await connection.run(
      `INSERT INTO sync_state (account_id, synced_until_epoch, synced_from_epoch) SELECT unnest($a), unnest($u), unnest($f)
       ON CONFLICT (account_id) DO UPDATE SET synced_until_epoch = greatest(sync_state.synced_until_epoch, excluded.synced_until_epoch),
         synced_from_epoch = least(coalesce(sync_state.synced_from_epoch, excluded.synced_from_epoch), excluded.synced_from_epoch), synced_at = now()`,
      values,
      types,
    );
    await logEvents(
      connection,
      records.flatMap((r) => r.events.map((e) => ({ ...e, accountId: r.accountId }))),
    );
  });
}

/** How one account's sync of a run ended, as {@link recordResults} keeps it. */
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

/** Records, in one transaction for every account done in a step, how its sync of this run ended, the windows it used, and the hours it gave up; releases the run's claims on their hours (`runId`). */
export async function recordResults(
  connection: DuckDBConnection,
  results: readonly AccountResultRecord[],
  runId?: number,
): Promise<void> {
  if (results.length === 0) return;
  const { values, types } = columns(results, {
    a: (r) => r.accountId,
    f: (r) => r.fromEpoch,
    r: (r) => r.result,
    e: (r) => r.error,
    lb: (r) => r.lookBackHours,
    rt: (r) => r.retentionHours,
    m: (r) => r.missingAskedUntilEpoch ?? null,
  });
  types.e = duckdbApi().LIST(duckdbApi().VARCHAR); // every error null is still a text
  await inTransaction(connection, async () => {
    await connection.run(
      `INSERT INTO sync_state (account_id, synced_until_epoch, synced_from_epoch, last_run_at, last_result, last_error, look_back_hours, retention_hours, missing_asked_until_epoch)
       SELECT a, f, f, now(), r, e, lb, rt, m FROM (SELECT unnest($a) AS a, unnest($f) AS f, unnest($r) AS r, unnest($e) AS e, unnest($lb) AS lb, unnest($rt) AS rt, unnest($m) AS m)
       ON CONFLICT (account_id) DO UPDATE SET last_run_at = now(), last_result = excluded.last_result, last_error = excluded.last_error,
         look_back_hours = excluded.look_back_hours, retention_hours = excluded.retention_hours,
         missing_asked_until_epoch = coalesce(excluded.missing_asked_until_epoch, sync_state.missing_asked_until_epoch)`,
      values,
      types,
    );
    await logEvents(
      connection,
      results.flatMap((r) =>
        r.lost.map((hourEpoch) => ({ accountId: r.accountId, hourEpoch, event: "lost" as const })),
      ),
    );
    // the run is done with these accounts: a sync that starts now asks their hours again
    if (runId !== undefined)
      await connection.run(
        "DELETE FROM sync_claims WHERE run_id = $run AND list_contains($a, account_id)",
        { run: runId, a: values.a! },
        { run: duckdbApi().BIGINT, a: types.a! },
      );
  });
}

/** What {@link readAccountSpans} reads of one account: its hours held from `fromEpoch` (and the retention) up to `untilEpoch`. */
export interface SpanQuery {
  accountId: number;
  fromEpoch: number;
  retentionStartEpoch: number;
  untilEpoch: number;
}

/** What the warehouse holds of an account, as a run that is done with it settles its outcome. */
export interface AccountSpan {
  /** The first and last hour held (not later than the current hour); undefined when none. */
  first: number | undefined;
  last: number | undefined;
  /** Hours held from `fromEpoch` and the retention's start up to `untilEpoch`. */
  recent: number;
  /**
   * The hours not held between its first and last hour held, from `fromEpoch` and before the
   * retention's start, that `sync_log` does not already call `lost`: the hours a run gives up
   * once they leave the platform's retention.
   */
  unloggedHoles: number[];
}

/** The spans of every account of `queries`, in two queries whatever their number, as of the hour `currentHourEpoch`. */
export async function readAccountSpans(
  connection: DuckDBConnection,
  queries: readonly SpanQuery[],
  currentHourEpoch: number,
): Promise<Map<number, AccountSpan>> {
  const spans = new Map<number, AccountSpan>(
    queries.map((q) => [q.accountId, { first: undefined, last: undefined, recent: 0, unloggedHoles: [] }]),
  );
  if (queries.length === 0) return spans;
  const { values, types } = columns(queries, {
    a: (q) => q.accountId,
    f: (q) => q.fromEpoch,
    rt: (q) => q.retentionStartEpoch,
    u: (q) => q.untilEpoch,
  });
  const asked = "(SELECT unnest($a) AS a, unnest($f) AS f, unnest($rt) AS rt, unnest($u) AS u)";
  const params = { ...values, now: currentHourEpoch };
  const rows = await connection.runAndReadAll(
    `SELECT q.a, min(hour_epoch) AS first, max(hour_epoch) AS last,
            count(*) FILTER (WHERE hour_epoch >= greatest(q.f, q.rt) AND hour_epoch < q.u) AS recent
     FROM account_hours JOIN ${asked} q ON account_id = q.a WHERE hour_epoch <= $now GROUP BY q.a`,
    params,
    types,
  );
  for (const [a, first, last, recent] of rows.getRows())
    Object.assign(spans.get(Number(a))!, { first: Number(first), last: Number(last), recent: Number(recent) });
  const holes = await connection.runAndReadAll(
    `WITH q AS ${asked},
     held AS (SELECT account_id, hour_epoch, lead(hour_epoch) OVER (PARTITION BY account_id ORDER BY hour_epoch) AS next
              FROM account_hours WHERE account_id IN (SELECT a FROM q) AND hour_epoch <= $now),
     holes AS (SELECT account_id, unnest(range(hour_epoch + 3600, next, 3600)) AS hour_epoch FROM held WHERE next - hour_epoch > 3600)
     SELECT account_id, hour_epoch FROM holes JOIN q ON account_id = q.a WHERE hour_epoch >= q.f AND hour_epoch < q.rt
       AND NOT EXISTS (SELECT 1 FROM sync_log l WHERE l.account_id = holes.account_id AND l.hour_epoch = holes.hour_epoch AND l.event = 'lost')
     ORDER BY 1, 2`,
    params,
    types,
  );
  for (const [a, h] of holes.getRows()) spans.get(Number(a))!.unloggedHoles.push(Number(h));
  return spans;
}
