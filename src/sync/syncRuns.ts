import { hostname } from "node:os";
import type { DuckDBConnection } from "@duckdb/node-api";
import { duckdbApi } from "../base/duckdb.js";
import { hourRanges, type HourRange } from "../base/period.js";
import { processStart } from "../store/writerMarker.js";
import { hoursIn, type AccountPlan } from "./accountPlan.js";
import { syncChunks } from "./syncChunks.js";

/** The process of a sync run, as `sync_runs` keeps it. */
export interface RunProcess {
  host: string;
  pid: number;
  /** The process's start time (`/proc`), so a PID reused by another process is not taken for the run. */
  processStart: string | null;
}

/** This process. */
export function thisProcess(): RunProcess {
  return { host: hostname(), pid: process.pid, processStart: processStart("self") ?? null };
}

/**
 * True when the run's process still runs: on this host, its PID with the same start time; a run
 * of another host (a warehouse on a shared folder) cannot be told, and counts as running.
 */
export function isLive(run: RunProcess): boolean {
  if (run.host !== hostname()) return true;
  return run.processStart !== null && processStart(run.pid) === run.processStart;
}

/** Hours of an account another running sync is downloading, with that run. */
export interface Claim {
  accountId: number;
  startEpoch: number;
  endEpoch: number;
  run: RunProcess & { startedAtEpoch: number };
}

type Row = Record<string, unknown>;

/**
 * Registers this run in `sync_runs` (in the caller's transaction, the plan's open): reads the hours
 * other live runs claim, forgets the claims of runs that are gone and the runs no account's result
 * can be older than. Returns the run's id and the live claims.
 */
export async function registerRun(
  connection: DuckDBConnection,
  accountIds: readonly number[],
  me: RunProcess,
): Promise<{ runId: number; claims: Claim[] }> {
  const rows = async (sql: string) => (await connection.runAndReadAll(sql)).getRowObjectsJS() as Row[];
  const runs = await rows("SELECT run_id, host, pid, process_start, epoch(started_at) AS started FROM sync_runs");
  const processOf = (r: Row): RunProcess => ({
    host: String(r.host),
    pid: Number(r.pid),
    processStart: r.process_start === null ? null : String(r.process_start),
  });
  const live = new Map(
    runs
      .filter((r) => isLive(processOf(r)))
      .map((r) => [Number(r.run_id), { ...processOf(r), startedAtEpoch: Number(r.started) }]),
  );
  const claims = (await rows("SELECT run_id, account_id, start_epoch, end_epoch FROM sync_claims"))
    .filter((r) => live.has(Number(r.run_id)))
    .map((r): Claim => ({
      accountId: Number(r.account_id),
      startEpoch: Number(r.start_epoch),
      endEpoch: Number(r.end_epoch),
      run: live.get(Number(r.run_id))!,
    }));
  const liveIds = [...live.keys()];
  const { BIGINT, LIST, listValue } = duckdbApi();
  const ids = { values: { live: listValue(liveIds.map(BigInt)) }, types: { live: LIST(BIGINT) } };
  await connection.run("DELETE FROM sync_claims WHERE NOT list_contains($live, run_id)", ids.values, ids.types);
  // a run that started before every account's last result can no longer be any account's last sync
  await connection.run(
    "DELETE FROM sync_runs WHERE NOT list_contains($live, run_id) AND started_at < (SELECT min(last_run_at) FROM sync_state)",
    ids.values,
    ids.types,
  );
  const runId = Number((await rows("SELECT coalesce(max(run_id), 0) + 1 AS id FROM sync_runs"))[0]!.id);
  await connection.run(
    "INSERT INTO sync_runs (run_id, host, pid, process_start, account_ids) VALUES ($id, $host, $pid, $start, $accounts)",
    { id: runId, host: me.host, pid: me.pid, start: me.processStart, accounts: listValue(accountIds.map(BigInt)) },
    { id: BIGINT, host: duckdbApi().VARCHAR, pid: BIGINT, start: duckdbApi().VARCHAR, accounts: LIST(BIGINT) },
  );
  return { runId, claims };
}

/** Records the hours this run will download, per account (in the caller's transaction). */
export async function claimChunks(
  connection: DuckDBConnection,
  runId: number,
  plans: readonly AccountPlan[],
): Promise<void> {
  const rows = plans.flatMap((p) =>
    hourRanges(p.chunks.flatMap((c) => hoursIn(c.startEpoch, c.endEpoch))).map(
      (r) => [p.accountId, r.startEpoch, r.endEpoch] as const,
    ),
  );
  if (rows.length === 0) return;
  const { BIGINT, LIST, listValue } = duckdbApi();
  const column = (i: number) => listValue(rows.map((r) => BigInt(r[i]!)));
  await connection.run(
    "INSERT INTO sync_claims (run_id, account_id, start_epoch, end_epoch) SELECT $run, unnest($a), unnest($s), unnest($e)",
    { run: runId, a: column(0), s: column(1), e: column(2) },
    { run: BIGINT, a: LIST(BIGINT), s: LIST(BIGINT), e: LIST(BIGINT) },
  );
}

/**
 * The plan without the hours other live runs are downloading (they ingest them): its chunks made
 * again of the hours left, and how many hours were left to those runs, with the earliest of them.
 */
export function withoutClaimed(
  plan: AccountPlan,
  claims: readonly Claim[],
  chunkSeconds: number,
): { plan: AccountPlan; skipped: number; by: Claim["run"] | undefined } {
  const own = claims.filter((c) => c.accountId === plan.accountId);
  if (own.length === 0) return { plan, skipped: 0, by: undefined };
  const claimed = (h: number) => own.some((c) => h >= c.startEpoch && h < c.endEpoch);
  const hours = plan.chunks.flatMap((c: HourRange) => hoursIn(c.startEpoch, c.endEpoch));
  const left = hours.filter((h) => !claimed(h));
  const chunks = hourRanges(left).flatMap((r) => syncChunks(r.startEpoch, r.endEpoch, chunkSeconds));
  return { plan: { ...plan, chunks }, skipped: hours.length - left.length, by: own[0]!.run };
}

/** An account's latest run that has not recorded its result since it started: its start, and whether it still runs. */
export interface UnfinishedRun {
  startedAtEpoch: number;
  live: boolean;
  host: string;
  pid: number;
}

/**
 * Per account, the latest sync run of it that started after its last recorded result (none when
 * every run recorded one): a run still going, or one that stopped before it could (killed, or the
 * machine refused a write). Empty for a warehouse made before runs were kept.
 */
export async function readUnfinishedRuns(connection: DuckDBConnection): Promise<Map<number, UnfinishedRun>> {
  const present = await connection.runAndReadAll(
    "SELECT count(*) FROM information_schema.columns WHERE table_name = 'sync_runs' OR (table_name = 'sync_state' AND column_name = 'last_run_at')",
  );
  const out = new Map<number, UnfinishedRun>();
  if (Number(present.getRows()[0]![0]) < 7) return out;
  const rows = (
    await connection.runAndReadAll(
      `WITH runs AS (SELECT unnest(account_ids) AS account_id, run_id, host, pid, process_start, started_at FROM sync_runs),
     latest AS (SELECT *, row_number() OVER (PARTITION BY account_id ORDER BY started_at DESC, run_id DESC) AS n FROM runs)
     SELECT r.account_id, host, pid, process_start, epoch(started_at) AS started FROM latest r LEFT JOIN sync_state s USING (account_id)
     WHERE n = 1 AND (s.last_run_at IS NULL OR s.last_run_at < r.started_at)`,
    )
  ).getRowObjectsJS();
  for (const r of rows) {
    const run = {
      host: String(r.host),
      pid: Number(r.pid),
      processStart: r.process_start === null ? null : String(r.process_start),
    };
    out.set(Number(r.account_id), {
      startedAtEpoch: Number(r.started),
      live: isLive(run),
      host: run.host,
      pid: run.pid,
    });
  }
  return out;
}
