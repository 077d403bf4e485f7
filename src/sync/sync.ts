import type { DuckDBConnection } from "@duckdb/node-api";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { SyncIncompleteError, UsageError } from "../base/errors.js";
import { makeSyncFolder } from "../fetch/consumptionFile.js";
import { listAccounts, listCloudspaces } from "../fetch/listEntities.js";
import { openSession } from "../fetch/serviceSession.js";
import { parseTime, isoUtc } from "../base/time.js";
import { checkKnownIds } from "../base/unknownIds.js";
import { writeEntityNames, type ListedName } from "../store/entityNames.js";
import { writeWarehouse, type OpenedWarehouse } from "../store/ingest.js";
import { accountBounds, planAccount, type AccountPlan, type RunWindows } from "./accountPlan.js";
import { AccountSync, countAccountHours, hoursOf, type RunContext } from "./syncAccount.js";
import { DEFAULT_DOWNLOADS, syncAccounts } from "./syncSteps.js";
import { CHUNK_SECONDS, HOUR_SECONDS, hourCeil } from "./syncChunks.js";
import {
  DEFAULT_ASK_MISSING_EVERY_HOURS,
  DEFAULT_LOOK_BACK_HOURS,
  DEFAULT_RETENTION_HOURS,
  DEFAULT_SETTLE_HOURS,
} from "./syncPlan.js";
import { readHeldHours, readSyncState } from "./syncState.js";
import type { SyncOptions, SyncReport } from "./syncTypes.js";
import { claimChunks, registerRun, thisProcess, withoutClaimed } from "./syncRuns.js";
import { clockNow } from "../base/clock.js";

export type { SyncOptions, SyncProgress, SyncReport, SyncedAccount } from "./syncTypes.js";

/**
 * How long a sync waits for readers to let go of the warehouse before each write, seconds, by
 * default: a sync from cron has the hour, and a report reading the file ends well within it.
 */
export const DEFAULT_SYNC_WAIT_SECONDS = 300;

/**
 * Archive bytes a sync gathers, by default, before it ingests them in one step: the chunks of
 * the accounts are downloaded (several accounts at once, each account's chunks in order) and
 * ingested together once their archives reach this, or nothing is left to ask. Each step costs
 * an open of the warehouse and a checkpoint that rewrites the last, partly filled block of rows
 * of every table it appended to (the same whatever the step's size: docs/performance.md): a step
 * per day of a backfill paid it 31 times a month, and a step per account made an hourly run of
 * 100 accounts take 100 of them. 8 MiB of archives unpack to about one ingest batch (32 MiB) of
 * files, so a step holds the file about as long as one batch's commit and readers wait no
 * longer than that; an hourly run is one step.
 */
export const DEFAULT_STEP_BYTES = 8 * 1024 * 1024;

type Connection = DuckDBConnection;

function checkAccountIds(ids: number[]): void {
  for (const id of ids) {
    if (!Number.isInteger(id) || id < 1 || id > 2 ** 32 - 1)
      throw new UsageError(`bad account id ${String(id)}: use a positive whole number`);
  }
  if (new Set(ids).size !== ids.length) throw new UsageError("an account id is given twice");
}

function checkWhole(value: number | undefined, what: string, unit: string): number | undefined {
  if (value !== undefined && !(Number.isInteger(value) && value >= 0))
    throw new UsageError(`bad ${what} ${String(value)}: use a whole number of ${unit}, 0 or more`);
  return value;
}

/** The run's clock and windows from the options (UsageError for a bad one); `currentHourEpoch` is the start of the hour now. */
function windowsOf(options: SyncOptions, currentHourEpoch: number): RunWindows {
  const chunkSeconds = CHUNK_SECONDS[options.chunk ?? "day"];
  if (chunkSeconds === undefined) throw new UsageError(`bad chunk ${String(options.chunk)}: use day, week or month`);
  const sinceEpoch = options.since === undefined ? undefined : hourCeil(parseTime(options.since, "since"));
  const askedUntil = options.until === undefined ? currentHourEpoch : hourCeil(parseTime(options.until, "until"));
  // the hour now has not ended: an end within it means "up to now"; one after it asks what the platform cannot have written
  if (askedUntil > currentHourEpoch + HOUR_SECONDS) {
    throw new UsageError(
      `bad until ${isoUtc(askedUntil)}: it is after the current hour (${isoUtc(currentHourEpoch)}), and the platform cannot have written those hours; leave it out to sync up to the current hour`,
    );
  }
  const untilEpoch = Math.min(currentHourEpoch, askedUntil);
  if (sinceEpoch !== undefined && untilEpoch <= sinceEpoch)
    throw new UsageError(
      `the end (${String(options.until ?? "now")}) must be after the start (${String(options.since)})`,
    );
  const askMissingEveryHours =
    checkWhole(options.askMissingEveryHours, "ask-missing-every", "hours") ?? DEFAULT_ASK_MISSING_EVERY_HOURS;
  if (askMissingEveryHours === 0)
    throw new UsageError("bad ask-missing-every 0: use a whole number of hours, 1 or more");
  return {
    untilEpoch,
    sinceEpoch,
    lookBackHours: checkWhole(options.lookBackHours, "look-back", "hours") ?? DEFAULT_LOOK_BACK_HOURS,
    settleHours: checkWhole(options.settleHours, "settle", "hours") ?? DEFAULT_SETTLE_HOURS,
    retentionHours: checkWhole(options.retentionHours, "retention", "hours") ?? DEFAULT_RETENTION_HOURS,
    askMissingEveryHours,
    verifyDays: checkWhole(options.verifyDays, "verify", "days") ?? 0,
    chunkSeconds,
  };
}

/**
 * The run's `stepBytes` and `downloads` (defaults applied), and its `accountIds`, checked: a UsageError names a bad
 * one.
 */
function checkedSizes(options: SyncOptions): { stepBytes: number; downloads: number } {
  if (options.accountIds) checkAccountIds(options.accountIds);
  const stepBytes = options.stepBytes ?? DEFAULT_STEP_BYTES;
  if (!(stepBytes >= 0)) throw new UsageError(`bad stepBytes ${String(options.stepBytes)}: use 0 or more bytes`);
  const downloads = options.downloads ?? DEFAULT_DOWNLOADS;
  if (!(Number.isInteger(downloads) && downloads >= 1))
    throw new UsageError(`bad downloads ${String(options.downloads)}: use a whole number, 1 or more`);
  return { stepBytes, downloads };
}

/**
 * The service's session, logged in again once when a download finds it stale (the downloads waiting on that one
 * login).
 */
function renewableSession(session: RunContext["service"]["session"], options: SyncOptions): RunContext["service"] {
  let renewing: Promise<void> | undefined;
  const service: RunContext["service"] = {
    session,
    renew: async (stale) => {
      if (service.session !== stale) return; // another download logged in again since
      renewing ??= openSession(options.url, options.auth, options)
        .then((fresh) => {
          service.session = fresh;
        })
        .finally(() => {
          renewing = undefined;
        });
      await renewing;
    },
  };
  return service;
}

/** The sync of one account's plan, saying which of its hours another live run is downloading. */
function accountSync(planned: ReturnType<typeof withoutClaimed>, run: RunContext): AccountSync {
  const account = new AccountSync(planned.plan, run);
  account.result.leftToOtherRun = planned.skipped;
  const by = planned.by;
  if (by) account.result.otherRun = { host: by.host, pid: by.pid, startedAtEpoch: by.startedAtEpoch };
  return account;
}

/** Logs in, lists the accounts (an `accountIds` the list does not name is a UsageError) and cloud spaces: the session, the accounts to sync and their names. */
async function listService(options: SyncOptions) {
  const session = await openSession(options.url, options.auth, options);
  const listed = await listAccounts(session);
  const known = [...new Set(listed.map((a) => a.id))].sort((a, b) => a - b);
  if (options.accountIds) checkKnownIds("account", options.accountIds, known, `${options.url}'s accounts/list`);
  const accountIds = options.accountIds ?? known;
  const selected = new Set(accountIds);
  const cloudspaces = (await listCloudspaces(session)).filter((c) => selected.has(c.accountId));
  const names: ListedName[] = [
    ...listed.filter((a) => selected.has(a.id)).map((a): ListedName => ({ kind: "account", id: a.id, name: a.name })),
    ...cloudspaces.map((c): ListedName => ({ kind: "cloudspace", id: c.id, name: c.name, accountId: c.accountId })),
  ];
  return { session, accountIds, names, cloudspaceCount: cloudspaces.length };
}

/** What the run asks of each account, from the warehouse's state (an empty warehouse without `since` is a UsageError). */
async function planRun(
  connection: Connection,
  db: string,
  accountIds: readonly number[],
  windows: RunWindows,
  currentHourEpoch: number,
): Promise<AccountPlan[]> {
  const state = await readSyncState(connection, currentHourEpoch);
  const bounds = accountIds.map((accountId) => {
    const b = accountBounds(accountId, state.accounts.get(accountId), state.firstHourEpoch, windows);
    if (b === undefined)
      throw new UsageError(`${db} holds no hours yet: give since: T (the first hour to download) for the first sync`);
    return b;
  });
  const held = await readHeldHours(
    connection,
    bounds.map((b) => ({ accountId: b.accountId, startEpoch: b.heldFromEpoch, endEpoch: b.heldToEpoch })),
  );
  return bounds.map((b) => planAccount(b, state.accounts.get(b.accountId), windows, held.get(b.accountId)!));
}

/**
 * Keeps a warehouse file current from the live service. Logs in once; lists the accounts
 * (`accounts/list`: an `accountIds` it does not name is a UsageError) and cloud spaces
 * (`cloudspaces/list`) and stores their names; then downloads each account's `getConsumption`
 * in chunks of a day, a week or a month (`downloads` at once, each account's chunks in order)
 * and ingests the archives in steps of up to `stepBytes` (every account's chunks downloaded
 * since the last step, in one load).
 *
 * What it asks for converges on the platform's archive whatever the timing of publication and
 * of runs, a stall of any length included (see `planAccount`): an hour is complete once its
 * files are in the warehouse; each run asks for the new hours, again for every hour of the
 * look-back window not held (the platform writes hours late), for the settle window's hours,
 * held or not (a rewritten hour replaces the held one, logged in `sync_log`, the old file kept in
 * the manifest as superseded), for the missing hours older than the look-back once every
 * `askMissingEveryHours` (at once when the platform writes again after a stall), and with
 * `verifyDays` for the held hours of those days to compare. A missing hour is asked until it
 * leaves the platform's retention, then given up as "lost" (logged). Files are named in the
 * manifest by where they came from (`getConsumption(account N)!path`), so an unchanged hour
 * asked again changes nothing. Hours later than the current hour held in the warehouse (from
 * `ingest`) are ignored: the platform cannot have written them.
 *
 * Two runs at once never download an hour twice: each registers itself as it plans (`sync_runs`:
 * host, PID, process start) with the hours it will download (`sync_claims`, released as it records
 * each account's result), and leaves to a live run the hours that run claims (`leftToOtherRun`).
 *
 * The warehouse is opened to write once to plan (and store the names), then once per step:
 * the step's ingest, the record of each account's chunks and, with an account's last chunk (or
 * its failure, or when it has nothing to ask), the account's result, in one open and a few
 * statements whatever the number of accounts. It is closed between, never held across a
 * download, so readers get it between steps; each open waits up to `waitSeconds` for readers
 * to let go (then WarehouseBusyError, which stops the sync).
 *
 * Idempotent and resumable: a chunk is recorded only once ingested, so a run killed at any
 * point and run again gives the warehouse of one clean run (chunks downloaded and not yet
 * written are asked again). The platform's `end` includes
 * its hour, so each chunk `[s, e)` is asked as `start=s, end=e-3600`. A download refused with
 * 401 (a token that expired during a long sync) logs in again, once per chunk.
 *
 * An account that fails (download, bad data, conflict) stops at that chunk and the others go
 * on; at the end a SyncIncompleteError (a FetchError, exit 4) names each failed account. The
 * machine refusing a write (EnvironmentError) stops the whole sync, as does a busy warehouse.
 * Throws UsageError for bad options (an empty warehouse without `since`, an unknown account,
 * an `until` after the current hour), FetchError when it cannot log in or list. No message
 * holds a secret.
 */
export async function sync(options: SyncOptions): Promise<SyncReport> {
  const { stepBytes, downloads } = checkedSizes(options);
  const currentHourEpoch = Math.floor(clockNow() / HOUR_SECONDS) * HOUR_SECONDS;
  const windows = windowsOf(options, currentHourEpoch);
  const waitSeconds = options.waitSeconds ?? DEFAULT_SYNC_WAIT_SECONDS;
  const withDatabase = <T>(fn: (connection: Connection, opened: OpenedWarehouse) => Promise<T>): Promise<T> =>
    writeWarehouse(options.db, waitSeconds, (opened) => fn(opened.connection, opened));

  const listed = await listService(options);
  const { runId, plans } = await withDatabase(async (connection) => {
    const all = await planRun(connection, options.db, listed.accountIds, windows, currentHourEpoch);
    // registered once planned (a run refused for its options never ran); the hours another live run is downloading are left to it
    const registered = await registerRun(connection, listed.accountIds, thisProcess());
    const planned = all.map((p) => withoutClaimed(p, registered.claims, windows.chunkSeconds));
    await claimChunks(
      connection,
      registered.runId,
      planned.map((p) => p.plan),
    );
    await writeEntityNames(connection, listed.names);
    return { runId: registered.runId, plans: planned };
  });

  const tempDir = await makeSyncFolder(options.tempDir ?? tmpdir());
  const service = renewableSession(listed.session, options);
  const run: RunContext = {
    db: options.db,
    replace: options.replace ?? true,
    skipBad: options.skipBad,
    stepBytes,
    windows,
    currentHourEpoch,
    tempDir,
    service,
    withDatabase,
    progress: {
      hoursDone: 0,
      hoursTotal: plans.reduce((sum, p) => sum + hoursOf(p.plan.chunks), 0),
      onProgress: options.onProgress,
    },
    runId,
  };
  const accounts = plans.map((planned) => accountSync(planned, run));
  try {
    await syncAccounts(accounts, run, downloads, (a) => options.onAccount?.(a.result));
  } finally {
    await rm(tempDir, { recursive: true, force: true });
  }
  const results = accounts.map((a) => a.result);
  const failures = results
    .filter((r) => r.status === "failed")
    .map((r) => ({ accountId: r.accountId, error: r.error! }));
  if (failures.length > 0) throw new SyncIncompleteError(failures, results.length);
  return {
    accounts: results,
    namesStored: {
      accounts: listed.names.filter((n) => n.kind === "account").length,
      cloudspaces: listed.cloudspaceCount,
    },
    // read with the last account's result (no open of its own); a sync of no account opens for it
    totalAccountHours: run.totalAccountHours ?? (await withDatabase(countAccountHours)),
  };
}
