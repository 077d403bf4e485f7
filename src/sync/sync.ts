import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CloudunitsError, FetchError, SyncIncompleteError, UsageError } from "../errors.js";
import { consumptionFileName, makeSyncFolder } from "../fetch/consumptionFile.js";
import { downloadConsumption } from "../fetch/downloadConsumption.js";
import { listAccounts, listCloudspaces } from "../fetch/listEntities.js";
import { openSession } from "../fetch/serviceSession.js";
import type { FetchAuth, RequestPolicy } from "../fetch/types.js";
import { writeEntityNames, type ListedName } from "../store/entityNames.js";
import { ingest } from "../store/ingest.js";
import { openDatabaseFile } from "../store/openDatabaseFile.js";
import { parseTime } from "../time.js";
import { CHUNK_SECONDS, HOUR_SECONDS, hourCeil, syncChunks, type SyncChunk } from "./syncChunks.js";
import { advanceSyncState, readSyncState, type AccountSyncState } from "./syncState.js";

/** Options of {@link sync}. */
export interface SyncOptions extends RequestPolicy {
  /** The service base address `{base_url}`, e.g. `https://cloud.example.com`. */
  url: string;
  auth: FetchAuth;
  /** The warehouse file, created when missing. */
  db: string;
  /** The accounts to sync. Default: every account of `accounts/list`. */
  accountIds?: number[];
  /**
   * First hour to ask for (epoch seconds or ISO 8601; rounded up to the hour), for every
   * account. Default: where the account's last sync ended (else the hour after its last hour
   * held, else the warehouse's first hour); an empty warehouse needs it.
   */
  since?: number | string;
  /** End of the hours asked for, exclusive (rounded up to the hour). Default, and at most: the current hour's start, so only whole hours. */
  until?: number | string;
  /** Hours per `getConsumption` call and ingest: `day` (default) or `week`. */
  chunk?: SyncChunk;
  /** Passed to ingest: a different file for a loaded account-hour replaces it. Default false. */
  replace?: boolean;
  /** Passed to ingest: record bad files and conflicts as rejected and go on. Default false. */
  skipBad?: boolean;
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
  /** The chunk in hand, `[chunkStartEpoch, chunkEndEpoch)`. */
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
  /** `synced`: every chunk done; `up-to-date`: nothing to ask; `failed`: stopped at `error`. */
  status: "synced" | "up-to-date" | "failed";
  /** The hours asked for, `[fromEpoch, untilEpoch)`. */
  fromEpoch: number;
  untilEpoch: number;
  /** Chunks downloaded and ingested. */
  chunksDone: number;
  chunks: number;
  /** Account-hours in the downloaded archives (new or already held). */
  accountHoursDownloaded: number;
  /** Account-hours new to the warehouse. */
  accountHoursLoaded: number;
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
  fromEpoch: number;
  chunks: { startEpoch: number; endEpoch: number }[];
}

function checkAccountIds(ids: number[]): void {
  for (const id of ids) {
    if (!Number.isInteger(id) || id < 1 || id > 2 ** 32 - 1) throw new UsageError(`bad account id ${String(id)}: use a positive whole number`);
  }
  if (new Set(ids).size !== ids.length) throw new UsageError("an account id is given twice");
}

/** Where each account's sync starts (see SyncOptions.since). */
function startOf(sinceEpoch: number | undefined, state: AccountSyncState | undefined, firstHourEpoch: number | undefined): number | undefined {
  if (sinceEpoch !== undefined) return sinceEpoch;
  if (state?.syncedUntilEpoch !== undefined) return state.syncedUntilEpoch;
  if (state?.lastHourEpoch !== undefined) return state.lastHourEpoch + HOUR_SECONDS;
  return firstHourEpoch;
}

async function withDatabase<T>(db: string, fn: (connection: Awaited<ReturnType<typeof openDatabaseFile>>["connection"]) => Promise<T>): Promise<T> {
  const { instance, connection } = await openDatabaseFile(db);
  try {
    return await fn(connection);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/**
 * Keeps a warehouse file current from the live service. Logs in once; lists the accounts
 * (`accounts/list`, unless `accountIds` are given) and cloud spaces (`cloudspaces/list`) and
 * stores their names; then, account by account, downloads `getConsumption` in chunks of a
 * day or a week for the hours after the last ones synced (or `since`) up to `until`, checks
 * each archive, ingests it, and records the chunk as synced.
 *
 * Idempotent and resumable: a chunk is recorded only once ingested, ingest drops hours it
 * already holds (byte-identical files), so a run killed at any point and run again gives the
 * warehouse of one clean run. The platform's `end` includes its hour, so each chunk
 * `[s, e)` is asked as `start=s, end=e-3600`.
 *
 * A download refused with 401 (a token or session key that expired during a long sync) logs in
 * again and is retried once.
 *
 * An account that fails (download, bad data, conflict) stops at that chunk and the others go
 * on; at the end a SyncIncompleteError (a FetchError, exit 4) names each failed account.
 * Throws UsageError for bad options (an empty warehouse without `since`), FetchError when it
 * cannot log in or list. No message holds a secret.
 */
export async function sync(options: SyncOptions): Promise<SyncReport> {
  const chunkSeconds = CHUNK_SECONDS[options.chunk ?? "day"];
  if (chunkSeconds === undefined) throw new UsageError(`bad chunk ${String(options.chunk)}: use day or week`);
  if (options.accountIds) checkAccountIds(options.accountIds);
  const sinceEpoch = options.since === undefined ? undefined : hourCeil(parseTime(options.since, "since"));
  // never past the current hour: hours recorded as synced are never asked again
  const currentHourEpoch = Math.floor(Date.now() / 1000 / HOUR_SECONDS) * HOUR_SECONDS;
  const untilEpoch = Math.min(currentHourEpoch, options.until === undefined ? currentHourEpoch : hourCeil(parseTime(options.until, "until")));
  if (sinceEpoch !== undefined && untilEpoch <= sinceEpoch) throw new UsageError(`the end (${String(options.until ?? "now")}) must be after the start (${String(options.since)})`);

  let session = await openSession(options.url, options.auth, options);
  const state = await withDatabase(options.db, readSyncState);

  const listed = options.accountIds === undefined ? await listAccounts(session) : undefined;
  const accountIds = options.accountIds ?? [...new Set(listed!.map((a) => a.id))].sort((a, b) => a - b);
  const selected = new Set(accountIds);
  const cloudspaces = (await listCloudspaces(session)).filter((c) => selected.has(c.accountId));
  const names: ListedName[] = [
    ...(listed ?? []).map((a): ListedName => ({ kind: "account", id: a.id, name: a.name })),
    ...cloudspaces.map((c): ListedName => ({ kind: "cloudspace", id: c.id, name: c.name, accountId: c.accountId })),
  ];

  const plans: AccountPlan[] = [];
  const needSince: number[] = [];
  for (const accountId of accountIds) {
    const fromEpoch = startOf(sinceEpoch, state.accounts.get(accountId), state.firstHourEpoch);
    if (fromEpoch === undefined) needSince.push(accountId);
    else plans.push({ accountId, fromEpoch, chunks: syncChunks(fromEpoch, untilEpoch, chunkSeconds) });
  }
  if (needSince.length > 0) {
    throw new UsageError(`${options.db} holds no hours yet: give --since T (the first hour to download) for the first sync`);
  }
  await withDatabase(options.db, (connection) => writeEntityNames(connection, names));

  const hoursTotal = plans.reduce((sum, p) => sum + p.chunks.reduce((s, c) => s + (c.endEpoch - c.startEpoch) / HOUR_SECONDS, 0), 0);
  let hoursDone = 0;
  const tempDir = await makeSyncFolder(options.tempDir ?? tmpdir());
  const results: SyncedAccount[] = [];
  try {
    for (const plan of plans) {
      const result: SyncedAccount = {
        accountId: plan.accountId,
        status: plan.chunks.length === 0 ? "up-to-date" : "synced",
        fromEpoch: plan.fromEpoch,
        untilEpoch: Math.max(plan.fromEpoch, untilEpoch),
        chunksDone: 0,
        chunks: plan.chunks.length,
        accountHoursDownloaded: 0,
        accountHoursLoaded: 0,
        bytes: 0,
      };
      let syncedUntil: number | undefined;
      let recorded: number | undefined;
      const recordSynced = async () => {
        if (syncedUntil === undefined || syncedUntil === recorded) return;
        const until = syncedUntil;
        await withDatabase(options.db, (connection) => advanceSyncState(connection, plan.accountId, until));
        recorded = until;
      };
      for (const chunk of plan.chunks) {
        const progress = (phase: SyncProgress["phase"], receivedBytes: number) =>
          options.onProgress?.({ phase, accountId: plan.accountId, chunkStartEpoch: chunk.startEpoch, chunkEndEpoch: chunk.endEpoch, hoursDone, hoursTotal, receivedBytes });
        try {
          const file = join(tempDir, consumptionFileName(plan.accountId, chunk.startEpoch, chunk.endEpoch));
          progress("download", 0);
          const request = { accountId: plan.accountId, startEpoch: chunk.startEpoch, endEpoch: chunk.endEpoch - HOUR_SECONDS };
          const download = () => downloadConsumption(session, request, file, (received) => progress("download", received));
          const { bytes, accountHours } = await download().catch(async (error: unknown) => {
            // a token or key that expired during a long sync: log in again, once per chunk
            if (!(error instanceof FetchError && error.code === "FETCH_AUTH" && error.status === 401)) throw error;
            session = await openSession(options.url, options.auth, options);
            return download();
          });
          result.bytes += bytes;
          result.accountHoursDownloaded += accountHours;
          if (accountHours > 0) {
            progress("ingest", bytes);
            const report = await ingest([file], { db: options.db, replace: options.replace, skipBad: options.skipBad });
            result.accountHoursLoaded += report.accountHours;
          }
          await rm(file, { force: true });
          syncedUntil = chunk.endEpoch;
          // the mark is written after each ingest and at the account's end: a run killed after
          // empty chunks only asks them again
          if (accountHours > 0) await recordSynced();
          result.chunksDone++;
          hoursDone += (chunk.endEpoch - chunk.startEpoch) / HOUR_SECONDS;
        } catch (error) {
          // a bug, or the warehouse taken by another process, stops the whole sync
          if (!(error instanceof CloudunitsError) || error.code.startsWith("DB_")) throw error;
          result.status = "failed";
          result.error = error;
          hoursDone += plan.chunks.slice(result.chunksDone).reduce((s, c) => s + (c.endEpoch - c.startEpoch) / HOUR_SECONDS, 0);
          break;
        }
      }
      await recordSynced();
      results.push(result);
      options.onAccount?.(result);
    }
  } finally {
    await rm(tempDir, { recursive: true, force: true });
  }
  const failures = results.filter((r) => r.status === "failed").map((r) => ({ accountId: r.accountId, error: r.error! }));
  if (failures.length > 0) throw new SyncIncompleteError(failures, results.length);
  const totalAccountHours = await withDatabase(options.db, async (connection) =>
    Number((await connection.runAndReadAll("SELECT count(*) AS n FROM account_hours")).getRowObjectsJS()[0]!.n),
  );
  return {
    accounts: results,
    namesStored: { accounts: listed?.length ?? 0, cloudspaces: cloudspaces.length },
    totalAccountHours,
  };
}
