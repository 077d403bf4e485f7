import type { FetchAuth, RequestPolicy } from "../fetch/types.js";
import type { SyncChunk } from "./syncChunks.js";

/** Options of `sync`. */
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
  /**
   * End of the hours asked for, exclusive (rounded up to the hour). Default, and at most: the
   * current hour's start, so only whole hours; a time after the current hour is a UsageError
   * (the platform cannot have written those hours).
   */
  until?: number | string;
  /**
   * Hours before `until` in which every hour not held is asked again on each run (the
   * platform writes hours late). Past it, an hour never written is "missing", said once, and
   * asked again every `askMissingEveryHours` until it leaves the retention.
   * Default {@link DEFAULT_LOOK_BACK_HOURS}.
   */
  lookBackHours?: number;
  /** Hours before `until` asked again on each run even when held, so a rewritten hour replaces the held one. Default {@link DEFAULT_SETTLE_HOURS}. */
  settleHours?: number;
  /**
   * How long the platform keeps its hours, in hours before `until`: a missing hour is asked for
   * until it is older, then given up as "lost at source" (logged, said by the run, listed by
   * `status` and `check`). Default {@link DEFAULT_RETENTION_HOURS} (two months).
   */
  retentionHours?: number;
  /**
   * The missing hours older than the look-back are asked again by the first run this many
   * hours or more after the last that asked them (and at once by a run that finds the platform
   * writing again after a stall). Default {@link DEFAULT_ASK_MISSING_EVERY_HOURS}.
   */
  askMissingEveryHours?: number;
  /**
   * Verification: the held hours of this many days before `until` (those before the settle
   * window) are downloaded again and their files' SHA-256 compared; a changed hour replaces the
   * held one, as in the settle window (logged `rewritten`, the old file kept in the manifest as
   * superseded). Default 0: none. Costs a download of those days per account.
   */
  verifyDays?: number;
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
  /**
   * Downloads at once (each account's chunks stay one after another, in order). Default
   * {@link DEFAULT_DOWNLOADS}.
   */
  downloads?: number;
  /** Before each write, wait up to this many seconds for readers of the warehouse to let go. Default {@link DEFAULT_SYNC_WAIT_SECONDS}. */
  waitSeconds?: number;
  /**
   * Where chunk archives wait to be ingested (each removed after), in a folder of this run; the
   * folders that killed syncs of this host left there are removed. Default: the system's temporary directory.
   */
  tempDir?: string;
  /** Progress, for a progress bar: called at each step of each chunk and as bytes arrive. */
  onProgress?: (progress: SyncProgress) => void;
  /** Called as each account is done (synced, up to date, waiting, or failed). */
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
  /** Hours to sync, over every account (it grows when a run asks missing hours at once, see SyncedAccount.missingAsked). */
  hoursTotal: number;
  /** Bytes of the current download received so far. */
  receivedBytes: number;
}

/** What a sync did for one account. Hour lists are epochs, ascending. */
export interface SyncedAccount {
  accountId: number;
  /**
   * `synced`: every chunk done and the warehouse changed; `up-to-date`: every chunk done, nothing
   * new, and every hour of the account's retention up to `untilEpoch` held; `waiting`: nothing
   * new, and hours not written yet (they are asked again); `failed`: stopped at `error`.
   */
  status: "synced" | "up-to-date" | "waiting" | "failed";
  /** The hours asked for lie in `[fromEpoch, untilEpoch)` (the windows, then the new hours). */
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
  /** Hours whose file the platform changed: the held one was replaced (found in the settle window or by verification). */
  rewrittenHours: number[];
  /** Hours asked for and not written yet, inside the look-back window: asked again by the next runs. */
  awaitingHours: number[];
  /**
   * Hours never written that left the look-back window in this run, between the account's first
   * and last hour held: "missing", said once, and asked again on the slower cadence until they
   * leave the retention (those after the last hour held are "not yet synced").
   */
  missingHours: number[];
  /** Missing hours older than the look-back this run asked again (their cadence, or the platform writing again after a stall). */
  missingAsked: number;
  /** Hours given up in this run: never written, and now past the platform's retention ("lost at source", logged for good). */
  lostHours: number[];
  /** Held hours downloaded again to compare their files (verification). */
  verifiedHours: number;
  /** Bytes downloaded. */
  bytes: number;
  /**
   * Hours of its plan another sync of the warehouse was downloading when this one planned (two runs
   * at once, from cron): left to that run, which ingests them, and not asked here; 0 when none.
   */
  leftToOtherRun: number;
  /** That run's process and start, when some were left to it. */
  otherRun?: { host: string; pid: number; startedAtEpoch: number };
  /** Why it failed (status `failed`). */
  error?: Error;
}

/** What `sync` did. */
export interface SyncReport {
  accounts: SyncedAccount[];
  /** Names stored from `accounts/list` and `cloudspaces/list`. */
  namesStored: { accounts: number; cloudspaces: number };
  /** Account-hours in the warehouse after the sync. */
  totalAccountHours: number;
}
