import type { DuckDBConnection } from "@duckdb/node-api";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BadInputError, CloudunitsError, EnvironmentError, FetchError, SyncIncompleteError, UsageError } from "../base/errors.js";
import { consumptionFileName, makeSyncFolder } from "../fetch/consumptionFile.js";
import { downloadConsumption } from "../fetch/downloadConsumption.js";
import { listAccounts, listCloudspaces } from "../fetch/listEntities.js";
import { openSession } from "../fetch/serviceSession.js";
import type { FetchAuth, RequestPolicy } from "../fetch/types.js";
import { writeEntityNames, type ListedName } from "../store/entityNames.js";
import { ingestInto, writeWarehouse, type OpenedWarehouse } from "../store/ingest.js";
import { parseTime } from "../base/time.js";
import { checkKnownIds } from "../base/unknownIds.js";
import { CHUNK_SECONDS, HOUR_SECONDS, hourCeil, syncChunks, type SyncChunk } from "./syncChunks.js";
import { DEFAULT_LOOK_BACK_HOURS, DEFAULT_SETTLE_HOURS, hourRanges, lookBackStart, planHours } from "./syncPlan.js";
import { readHeldHours, readSyncState, recordChunk, recordResult, type AccountSyncState, type SyncEvent } from "./syncState.js";

/**
 * How long a sync waits for readers to let go of the warehouse before each write, seconds, by
 * default: a sync from cron has the hour; a report read from the file takes seconds.
 */
export const DEFAULT_SYNC_WAIT_SECONDS = 300;

/**
 * Archive bytes a sync gathers, by default, before it ingests them in one step: the chunks of
 * an account are downloaded one after another and ingested together once their archives reach
 * this, or the account's chunks end. Each step costs an open of the warehouse and a checkpoint
 * that rewrites the last, partly filled block of rows of every table it appended to (about half
 * a second whatever the step's size, measured): a step per day of a backfill paid it 31 times a
 * month. 8 MiB of archives are about 36 MB of files (4.5 : 1 measured on generated data), about
 * one ingest batch (32 MiB), so a step holds the file about as long as one batch's commit and
 * readers wait no longer than that, however large the account; an hourly run is one step.
 */
export const DEFAULT_STEP_BYTES = 8 * 1024 * 1024;

/** Options of {@link sync}. */
export interface SyncOptions extends RequestPolicy {
  /** The service base address `{base_url}`, e.g. `https://cloud.example.com`. */
  url: string;
  auth: FetchAuth;
  /** The warehouse file, created when missing. */
  db: string;
  /** The accounts to sync, each one `accounts/list` names (else UsageError UNKNOWN_ID). Default: every account of `accounts/list`. */
  accountIds?: number[];
  /**
   * First hour to ask for (epoch seconds or ISO 8601; rounded up to the hour), for every
   * account: every hour from it is asked again. Default: the hours after those the account's
   * last sync asked for (else the hour after its last hour held, else the warehouse's first
   * hour), with the look-back and settle windows; an empty warehouse needs it.
   */
  since?: number | string;
  /** End of the hours asked for, exclusive (rounded up to the hour). Default, and at most: the current hour's start, so only whole hours. */
  until?: number | string;
  /**
   * Hours before `until` in which every hour not held is asked again on each run (the
   * platform writes hours late). Past it, an hour never written is given up: "missing".
   * Default {@link DEFAULT_LOOK_BACK_HOURS}.
   */
  lookBackHours?: number;
  /** Hours before `until` asked again on each run even when held, so a rewritten hour replaces the held one. Default {@link DEFAULT_SETTLE_HOURS}. */
  settleHours?: number;
  /**
   * Hours per `getConsumption` call: `day` (default), `week` or `month` (calendar months, UTC).
   * Ingests go by steps of {@link SyncOptions.stepBytes}, whatever the chunk.
   */
  chunk?: SyncChunk;
  /**
   * A different file for a held account-hour (the platform rewrote it) replaces it: logged as
   * `rewritten`, the old file kept in the manifest as superseded. Default true; false makes it
   * a conflict (the account fails).
   */
  replace?: boolean;
  /** Passed to ingest: record bad files and conflicts as rejected and go on. Default false. */
  skipBad?: boolean;
  /**
   * Archive bytes downloaded before they are ingested in one step (one open of the warehouse).
   * Default {@link DEFAULT_STEP_BYTES}; 0 ingests each chunk as it arrives. A run killed
   * mid-step asks its chunks again.
   */
  stepBytes?: number;
  /** Before each write, wait up to this many seconds for readers of the warehouse to let go. Default {@link DEFAULT_SYNC_WAIT_SECONDS}. */
  waitSeconds?: number;
  /**
   * Where chunk archives wait to be ingested (each removed after), in a folder of this run; the
   * folders that killed syncs of this host left there are removed. Default: the system's temporary directory.
   */
  tempDir?: string;
  /** Progress, for a progress bar: called at each step of each chunk and as bytes arrive. */
  onProgress?: (progress: SyncProgress) => void;
  /** Called as each account is done (synced, up to date, or failed). */
  onAccount?: (account: SyncedAccount) => void;
}

/** Where a sync is. Hours count every hour asked of every account. */
export interface SyncProgress {
  phase: "download" | "ingest";
  accountId: number;
  /** The chunk in hand, `[chunkStartEpoch, chunkEndEpoch)`: the one downloading, or from the first to the last of the step ingesting. */
  chunkStartEpoch: number;
  chunkEndEpoch: number;
  /** Hours of finished chunks, over every account. */
  hoursDone: number;
  /** Hours to sync, over every account. */
  hoursTotal: number;
  /** Bytes of the current download received so far. */
  receivedBytes: number;
}

/** What a sync did for one account. */
export interface SyncedAccount {
  accountId: number;
  /** `synced`: every chunk done and the warehouse changed; `up-to-date`: every chunk done, nothing new; `failed`: stopped at `error`. */
  status: "synced" | "up-to-date" | "failed";
  /** The hours asked for lie in `[fromEpoch, untilEpoch)` (the look-back and settle windows, then the new hours). */
  fromEpoch: number;
  untilEpoch: number;
  /** Hours asked for. */
  hoursAsked: number;
  /** Chunks downloaded and ingested. */
  chunksDone: number;
  chunks: number;
  /** Account-hours in the downloaded archives (new or already held). */
  accountHoursDownloaded: number;
  /** Account-hours new to the warehouse. */
  accountHoursLoaded: number;
  /** Hours the platform wrote after an earlier sync asked for them, got now. */
  lateHours: number[];
  /** Hours whose file the platform changed: the held one was replaced. */
  rewrittenHours: number[];
  /** Hours asked for and not written yet, still inside the look-back window: asked again by the next runs. */
  awaitingHours: number[];
  /** Hours never written that left the look-back window in this run, before the account's last held hour: given up, "missing" (those after it are "not yet synced"). */
  missingHours: number[];
  /** Bytes downloaded. */
  bytes: number;
  /** Why it failed (status `failed`). */
  error?: Error;
}

/** What {@link sync} did. */
export interface SyncReport {
  accounts: SyncedAccount[];
  /** Names stored from `accounts/list` and `cloudspaces/list`. */
  namesStored: { accounts: number; cloudspaces: number };
  /** Account-hours in the warehouse after the sync. */
  totalAccountHours: number;
}

interface AccountPlan {
  accountId: number;
  /** Where this account's syncs begin (recorded the first time). */
  floorEpoch: number;
  /** The first new hour (hours before it were asked by earlier runs). */
  newFromEpoch: number;
  /** Which hours of the look-back window were held at the start. */
  heldBefore: Set<number>;
  /** Hours never written that leave the look-back window in this run. */
  givenUp: number[];
  chunks: { startEpoch: number; endEpoch: number }[];
}

function checkAccountIds(ids: number[]): void {
  for (const id of ids) {
    if (!Number.isInteger(id) || id < 1 || id > 2 ** 32 - 1) throw new UsageError(`bad account id ${String(id)}: use a positive whole number`);
  }
  if (new Set(ids).size !== ids.length) throw new UsageError("an account id is given twice");
}

function checkHours(value: number | undefined, what: string): number | undefined {
  if (value !== undefined && !(Number.isInteger(value) && value >= 0)) throw new UsageError(`bad ${what} ${String(value)}: use a whole number of hours, 0 or more`);
  return value;
}

/** Where each account's new hours start (see SyncOptions.since). */
function startOf(sinceEpoch: number | undefined, state: AccountSyncState | undefined, firstHourEpoch: number | undefined): number | undefined {
  if (sinceEpoch !== undefined) return sinceEpoch;
  if (state?.syncedUntilEpoch !== undefined) return state.syncedUntilEpoch;
  if (state?.lastHourEpoch !== undefined) return state.lastHourEpoch + HOUR_SECONDS;
  return firstHourEpoch;
}

type Connection = OpenedWarehouse["connection"];

/** Account-hours in the warehouse. */
async function countAccountHours(connection: Connection): Promise<number> {
  return Number((await connection.runAndReadAll("SELECT count(*) AS n FROM account_hours")).getRowObjectsJS()[0]!.n);
}

/**
 * Settles the account's status once its steps are done (or it failed) and its missing hours in
 * order, and records its result (`floorEpoch`: where its syncs begin); the warehouse's
 * account-hours after it.
 */
async function recordAccount(connection: DuckDBConnection, result: SyncedAccount, floorEpoch: number): Promise<number> {
  if (result.status !== "failed" && (result.accountHoursLoaded > 0 || result.rewrittenHours.length > 0)) result.status = "synced";
  // an hour after the account's last held hour is "not yet synced", not "missing" (docs/operations.md): an
  // account the platform stopped writing is stale (status --max-lag), not a warning every run
  const last = (await connection.runAndReadAll("SELECT max(hour_epoch) FROM account_hours WHERE account_id = $a", { a: result.accountId })).getRows()[0]?.[0];
  result.missingHours = result.missingHours.filter((h) => last !== null && last !== undefined && h < Number(last)).sort((a, b) => a - b);
  await recordResult(connection, result.accountId, floorEpoch, result.status, result.error?.message ?? null);
  return countAccountHours(connection);
}

/** A bug, the warehouse taken or damaged, or the machine refusing a write (every account would meet it): not one account's failure. */
function stopsSync(error: unknown): boolean {
  return !(error instanceof CloudunitsError) || error.code.startsWith("DB_") || error instanceof EnvironmentError;
}

/** Hours in the chunks. */
function hoursOf(chunks: readonly { startEpoch: number; endEpoch: number }[]): number {
  return chunks.reduce((sum, c) => sum + (c.endEpoch - c.startEpoch) / HOUR_SECONDS, 0);
}

/** The hours in `[startEpoch, endEpoch)`. */
function hoursIn(startEpoch: number, endEpoch: number): number[] {
  const hours: number[] = [];
  for (let h = startEpoch; h < endEpoch; h += HOUR_SECONDS) hours.push(h);
  return hours;
}

/**
 * Keeps a warehouse file current from the live service. Logs in once; lists the accounts
 * (`accounts/list`: an `accountIds` it does not name is a UsageError) and cloud spaces
 * (`cloudspaces/list`) and stores their names; then, account by account, downloads
 * `getConsumption` in chunks of a day, a week or a month and ingests the archives in steps
 * of up to `stepBytes` (an account's chunks downloaded since its last step).
 *
 * What it asks for converges on the platform's archive whatever the timing of publication and
 * of runs: an hour is complete once its files are in the warehouse; each run asks for the new
 * hours (after those earlier runs asked for), again for every hour of the look-back window not
 * held (the platform writes hours late), and again for the settle window's hours, held or not
 * (a rewritten hour replaces the held one, logged in `sync_log`, the old file kept in the
 * manifest as superseded). Hours never written are asked until they leave the look-back
 * window, then given up ("missing"). Files are named in the manifest by where they came
 * from (`getConsumption(account N)!path`), so an unchanged hour asked again changes nothing.
 *
 * The warehouse is opened to write once to plan (and store the names), then once per step:
 * the step's ingest, its record and, with an account's last step, the account's result, in
 * one open (an account that fails or has nothing to ask records its result in one more). It
 * is closed between, never held across a download, so readers get it between steps; each
 * open waits up to `waitSeconds` for readers to let go (then WarehouseBusyError, which stops
 * the sync).
 *
 * Idempotent and resumable: a chunk is recorded only once ingested, so a run killed at any
 * point and run again gives the warehouse of one clean run. The platform's `end` includes
 * its hour, so each chunk `[s, e)` is asked as `start=s, end=e-3600`. A download refused with
 * 401 (a token that expired during a long sync) logs in again, once per chunk.
 *
 * An account that fails (download, bad data, conflict) stops at that chunk and the others go
 * on; at the end a SyncIncompleteError (a FetchError, exit 4) names each failed account.
 * Throws UsageError for bad options (an empty warehouse without `since`, an unknown account),
 * FetchError when it cannot log in or list. No message holds a secret.
 */
export async function sync(options: SyncOptions): Promise<SyncReport> {
  const chunkSeconds = CHUNK_SECONDS[options.chunk ?? "day"];
  if (chunkSeconds === undefined) throw new UsageError(`bad chunk ${String(options.chunk)}: use day, week or month`);
  if (options.accountIds) checkAccountIds(options.accountIds);
  const lookBackHours = checkHours(options.lookBackHours, "look-back") ?? DEFAULT_LOOK_BACK_HOURS;
  const settleHours = checkHours(options.settleHours, "settle") ?? DEFAULT_SETTLE_HOURS;
  const waitSeconds = options.waitSeconds ?? DEFAULT_SYNC_WAIT_SECONDS;
  const stepBytes = options.stepBytes ?? DEFAULT_STEP_BYTES;
  if (!(stepBytes >= 0)) throw new UsageError(`bad stepBytes ${String(options.stepBytes)}: use 0 or more bytes`);
  const sinceEpoch = options.since === undefined ? undefined : hourCeil(parseTime(options.since, "since"));
  // never past the current hour: the platform writes an hour after it ends
  const currentHourEpoch = Math.floor(Date.now() / 1000 / HOUR_SECONDS) * HOUR_SECONDS;
  const untilEpoch = Math.min(currentHourEpoch, options.until === undefined ? currentHourEpoch : hourCeil(parseTime(options.until, "until")));
  if (sinceEpoch !== undefined && untilEpoch <= sinceEpoch) throw new UsageError(`the end (${String(options.until ?? "now")}) must be after the start (${String(options.since)})`);
  /**
   * Opens the warehouse to write (as ingest does), runs `fn`, checkpoints and closes: each
   * write of the sync is one open, so readers get the file between two of them.
   */
  const withDatabase = <T>(fn: (connection: Connection, opened: OpenedWarehouse) => Promise<T>): Promise<T> =>
    writeWarehouse(options.db, waitSeconds, (opened) => fn(opened.connection, opened));
  let totalAccountHours: number | undefined;

  let session = await openSession(options.url, options.auth, options);
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

  const plans = await withDatabase(async (connection) => {
    const state = await readSyncState(connection);
    const planned: AccountPlan[] = [];
    for (const accountId of accountIds) {
      const account = state.accounts.get(accountId);
      const newFromEpoch = startOf(sinceEpoch, account, state.firstHourEpoch);
      if (newFromEpoch === undefined) {
        throw new UsageError(`${options.db} holds no hours yet: give --since T (the first hour to download) for the first sync`);
      }
      const floorEpoch = sinceEpoch ?? account?.syncedFromEpoch ?? newFromEpoch;
      const window = { untilEpoch, floorEpoch, lookBackHours };
      // hours that leave the look-back window in this run: from where the last run's window began
      const givenUpStart = Math.max(floorEpoch, (account?.syncedUntilEpoch ?? untilEpoch) - lookBackHours * HOUR_SECONDS);
      const givenUpEnd = Math.min(lookBackStart(window), newFromEpoch);
      const heldStart = Math.min(givenUpStart, lookBackStart(window));
      const heldBefore = await readHeldHours(connection, accountId, heldStart, Math.max(newFromEpoch, heldStart));
      const givenUp = hoursIn(givenUpStart, givenUpEnd).filter((h) => !heldBefore.has(h));
      // an hour leaving the window is asked a last time before it is given up: after runs
      // further apart than the look-back (a host down for days), the platform may have
      // written it since the run that last asked (syncs converge whatever the timing of the runs)
      const ranges = [...hourRanges(givenUp), ...planHours({ fromEpoch: newFromEpoch, untilEpoch, floorEpoch, lookBackHours, settleHours, held: (h) => heldBefore.has(h) })];
      const chunks = ranges.flatMap((r) => syncChunks(r.startEpoch, r.endEpoch, chunkSeconds));
      planned.push({ accountId, floorEpoch, newFromEpoch, heldBefore, givenUp, chunks });
    }
    await writeEntityNames(connection, names);
    return planned;
  });

  const hoursTotal = plans.reduce((sum, p) => sum + hoursOf(p.chunks), 0);
  let hoursDone = 0;
  const tempDir = await makeSyncFolder(options.tempDir ?? tmpdir());
  const results: SyncedAccount[] = [];
  try {
    for (const plan of plans) {
      const result: SyncedAccount = {
        accountId: plan.accountId,
        status: "up-to-date",
        fromEpoch: plan.chunks[0]?.startEpoch ?? Math.min(plan.newFromEpoch, untilEpoch),
        untilEpoch: Math.max(plan.newFromEpoch, untilEpoch),
        hoursAsked: hoursOf(plan.chunks),
        chunksDone: 0,
        chunks: plan.chunks.length,
        accountHoursDownloaded: 0,
        accountHoursLoaded: 0,
        lateHours: [],
        rewrittenHours: [],
        awaitingHours: [],
        missingHours: [], // the given-up hours are asked a last time: those still not written are added as their chunk is done
        bytes: 0,
      };
      const windowStart = lookBackStart({ untilEpoch, floorEpoch: plan.floorEpoch, lookBackHours });
      type Chunk = (typeof plan.chunks)[number];
      let recorded = false;
      // the chunks downloaded and not yet ingested, their files and archive bytes
      let pending: Chunk[] = [];
      let files: string[] = [];
      let pendingBytes = 0;
      const progress = (phase: SyncProgress["phase"], first: Chunk, last: Chunk, receivedBytes: number) =>
        options.onProgress?.({ phase, accountId: plan.accountId, chunkStartEpoch: first.startEpoch, chunkEndEpoch: last.endEpoch, hoursDone, hoursTotal, receivedBytes });
      /**
       * One step: the pending chunks' ingest, then their record (the mark and the log) after
       * the ingest's commits, so a run killed before asks them again, which changes nothing
       * held; with the account's last chunk, its result too. One open of the warehouse, never
       * held across a download.
       */
      const ingestPending = async (lastOfAccount: boolean) => {
        const step = pending;
        const first = step[0]!;
        const last = step.at(-1)!;
        await withDatabase(async (connection, opened) => {
          const events: SyncEvent[] = [];
          if (files.length > 0) {
            progress("ingest", first, last, 0);
            const { report, errors } = await ingestInto(opened, files, {
              db: options.db,
              inputNames: files.map(() => `getConsumption(account ${plan.accountId})`),
              replace: options.replace ?? true,
              skipBad: options.skipBad,
            });
            if (errors.length > 0) throw new BadInputError(errors);
            result.accountHoursLoaded += report.accountHours - report.replacedHours;
            for (const r of report.replaced) {
              result.rewrittenHours.push(r.hourEpoch);
              events.push({ hourEpoch: r.hourEpoch, event: "rewritten" });
            }
          }
          const held = await readHeldHours(connection, plan.accountId, first.startEpoch, last.endEpoch);
          for (const chunk of step) {
            for (const h of hoursIn(chunk.startEpoch, chunk.endEpoch)) {
              if (!held.has(h)) (h < windowStart ? result.missingHours : result.awaitingHours).push(h);
              else if (h < plan.newFromEpoch && !plan.heldBefore.has(h)) {
                result.lateHours.push(h);
                events.push({ hourEpoch: h, event: "late" });
              }
            }
          }
          await recordChunk(connection, plan.accountId, plan.floorEpoch, last.endEpoch, events);
          if (lastOfAccount) {
            totalAccountHours = await recordAccount(connection, result, plan.floorEpoch);
            recorded = true;
          }
        });
        for (const file of files) await rm(file, { force: true });
        pending = [];
        files = [];
        pendingBytes = 0;
        result.chunksDone += step.length;
        hoursDone += hoursOf(step);
      };
      let downloading = false;
      try {
        for (const [index, chunk] of plan.chunks.entries()) {
          downloading = true;
          const file = join(tempDir, consumptionFileName(plan.accountId, chunk.startEpoch, chunk.endEpoch));
          progress("download", chunk, chunk, 0);
          const request = { accountId: plan.accountId, startEpoch: chunk.startEpoch, endEpoch: chunk.endEpoch - HOUR_SECONDS };
          const download = () => downloadConsumption(session, request, file, (received) => progress("download", chunk, chunk, received));
          const { bytes, accountHours } = await download().catch(async (error: unknown) => {
            // a token or key that expired during a long sync: log in again, once per chunk
            if (!(error instanceof FetchError && error.code === "FETCH_AUTH" && error.status === 401)) throw error;
            session = await openSession(options.url, options.auth, options);
            return download();
          });
          downloading = false;
          result.bytes += bytes;
          result.accountHoursDownloaded += accountHours;
          pending.push(chunk);
          pendingBytes += bytes;
          if (accountHours > 0) files.push(file);
          else await rm(file, { force: true });
          const lastChunk = index === plan.chunks.length - 1;
          if (lastChunk || pendingBytes >= stepBytes) await ingestPending(lastChunk);
        }
      } catch (error) {
        // a bug, the warehouse taken or damaged, or the machine refusing a write stops the whole sync
        if (stopsSync(error)) throw error;
        // a failed download: the chunks downloaded before it are ingested and recorded all the same
        if (downloading && pending.length > 0) {
          await ingestPending(false).catch((second: unknown) => {
            if (stopsSync(second)) throw second;
          });
        }
        result.status = "failed";
        result.error = error as CloudunitsError;
        hoursDone += hoursOf(plan.chunks.slice(result.chunksDone));
      }
      if (!recorded) {
        // a failed account, or one with nothing to ask: its result in an open of its own
        await withDatabase(async (connection) => {
          totalAccountHours = await recordAccount(connection, result, plan.floorEpoch);
        });
      }
      results.push(result);
      options.onAccount?.(result);
    }
  } finally {
    await rm(tempDir, { recursive: true, force: true });
  }
  const failures = results.filter((r) => r.status === "failed").map((r) => ({ accountId: r.accountId, error: r.error! }));
  if (failures.length > 0) throw new SyncIncompleteError(failures, results.length);
  // read with the last account's result (no open of its own); a sync of no account opens for it
  totalAccountHours ??= await withDatabase(countAccountHours);
  return {
    accounts: results,
    namesStored: { accounts: names.filter((n) => n.kind === "account").length, cloudspaces: cloudspaces.length },
    totalAccountHours,
  };
}
