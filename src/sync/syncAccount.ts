import { rm } from "node:fs/promises";
import { join } from "node:path";
import type { DuckDBConnection } from "@duckdb/node-api";
import { CloudunitsError, EnvironmentError, FetchError } from "../base/errors.js";
import { consumptionFileName } from "../fetch/consumptionFile.js";
import { downloadConsumption } from "../fetch/downloadConsumption.js";
import type { ServiceSession } from "../fetch/serviceSession.js";
import type { OpenedWarehouse } from "../store/ingest.js";
import { hoursIn, recoveryHours, type AccountPlan, type RunWindows } from "./accountPlan.js";
import { HOUR_SECONDS, syncChunks } from "./syncChunks.js";
import { hourRanges, type HourRange } from "../base/period.js";
import type { AccountResultRecord, AccountSpan, ChunkRecord, SpanQuery, SyncEvent } from "./syncState.js";
import type { SyncedAccount, SyncProgress } from "./syncTypes.js";

/** What every account of a run shares: the warehouse, the service, the clock, the progress. */
export interface RunContext {
  db: string;
  replace: boolean;
  skipBad: boolean | undefined;
  stepBytes: number;
  windows: RunWindows;
  currentHourEpoch: number;
  /** The folder of this run where chunk archives wait to be ingested. */
  tempDir: string;
  /** The session in use; `renew` logs in again (a token that expired during a long sync), unless another download did since `stale` was in use. */
  service: { session: ServiceSession; renew(stale: ServiceSession): Promise<void> };
  /** Opens the warehouse to write, runs `fn`, checkpoints and closes: one write of the run. */
  withDatabase<T>(fn: (connection: DuckDBConnection, opened: OpenedWarehouse) => Promise<T>): Promise<T>;
  /** Hours done and to do over every account, for the progress callback. */
  progress: { hoursDone: number; hoursTotal: number; onProgress?: (progress: SyncProgress) => void };
  /** Account-hours in the warehouse, as the last account's record read them. */
  totalAccountHours?: number;
  /** This run's row of `sync_runs`: its claims are released as each account's result is recorded. */
  runId: number;
}

/** Account-hours in the warehouse. */
export async function countAccountHours(connection: DuckDBConnection): Promise<number> {
  return Number((await connection.runAndReadAll("SELECT count(*) AS n FROM account_hours")).getRowObjectsJS()[0]!.n);
}

/** Hours in the chunks. */
export function hoursOf(chunks: readonly HourRange[]): number {
  return chunks.reduce((sum, c) => sum + (c.endEpoch - c.startEpoch) / HOUR_SECONDS, 0);
}

/** A bug, the warehouse taken or damaged, or the machine refusing a write (every account would meet it): not one account's failure. */
export function stopsSync(error: unknown): boolean {
  return !(error instanceof CloudunitsError) || error.code.startsWith("DB_") || error instanceof EnvironmentError;
}

/** What the step's ingest did for one account: the account-hours it loaded and replaced, or the account's bad files. */
export interface AccountIngest {
  loadedHours: number;
  replaced: number[];
  error?: CloudunitsError;
}

/**
 * One account's part of a run: its chunks downloaded one after another (the run downloads
 * several accounts at once) and written in the run's steps, each one open of the warehouse for
 * every account with chunks downloaded: their archives ingested together, then each account's
 * record of its chunks, and with an account's last chunk its result. Owns the archives waiting
 * in the run's folder.
 */
export class AccountSync {
  readonly result: SyncedAccount;
  private readonly chunks: HourRange[];
  /** The next chunk to download. */
  private next = 0;
  /** The chunks downloaded and not yet written, their files and archive bytes. */
  private pending: HourRange[] = [];
  private pendingFiles: string[] = [];
  private downloading = false;
  /** A download failed: the account asks nothing more, and fails once its chunks downloaded are written. */
  private failure: unknown;
  private recorded = false;
  private asksMissing: boolean;

  constructor(
    private readonly plan: AccountPlan,
    private readonly run: RunContext,
  ) {
    const { windows } = run;
    this.chunks = [...plan.chunks];
    this.asksMissing = plan.asksMissing;
    this.result = {
      accountId: plan.accountId,
      status: "up-to-date",
      fromEpoch: plan.chunks[0]?.startEpoch ?? Math.min(plan.newFromEpoch, windows.untilEpoch),
      untilEpoch: Math.max(plan.newFromEpoch, windows.untilEpoch),
      hoursAsked: hoursOf(plan.chunks),
      chunksDone: 0,
      chunks: plan.chunks.length,
      accountHoursDownloaded: 0,
      accountHoursLoaded: 0,
      lateHours: [],
      rewrittenHours: [],
      awaitingHours: [],
      missingHours: [], // hours leaving the look-back are asked a last time: those still not written are added as their chunk is done
      missingAsked: plan.missingAsked,
      lostHours: [],
      verifiedHours: plan.verifiedHours,
      bytes: 0,
      leftToOtherRun: 0,
    };
  }

  get accountId(): number {
    return this.plan.accountId;
  }

  /** True when a chunk is left to download and none is downloading. */
  get wantsDownload(): boolean {
    return !this.downloading && !this.recorded && this.failure === undefined && this.next < this.chunks.length;
  }

  /** True when the account downloads nothing more until the next step (it may ask missing hours at once then). */
  get downloadsDone(): boolean {
    return !this.downloading && (this.recorded || this.failure !== undefined || this.next >= this.chunks.length);
  }

  /** True when the next step has something of this account to write: chunks downloaded, or its result (nothing more to download). */
  get wantsStep(): boolean {
    return (
      !this.recorded &&
      !this.downloading &&
      (this.pending.length > 0 || this.failure !== undefined || this.next >= this.chunks.length)
    );
  }

  /** The archives downloaded for the next step. */
  get files(): readonly string[] {
    return this.pendingFiles;
  }

  /** The hours the next step's archives may hold (the download refuses any other). */
  get stepScope(): { accountId: number; startEpoch: number; endEpoch: number } | undefined {
    return this.pending.length === 0
      ? undefined
      : {
          accountId: this.plan.accountId,
          startEpoch: this.pending[0]!.startEpoch,
          endEpoch: this.pending.at(-1)!.endEpoch,
        };
  }

  private reportProgress(phase: SyncProgress["phase"], first: HourRange, last: HourRange, receivedBytes: number): void {
    const { hoursDone, hoursTotal, onProgress } = this.run.progress;
    onProgress?.({
      phase,
      accountId: this.plan.accountId,
      chunkStartEpoch: first.startEpoch,
      chunkEndEpoch: last.endEpoch,
      hoursDone,
      hoursTotal,
      receivedBytes,
    });
  }

  /** Says the step ingests this account's chunks downloaded (for a progress bar). */
  reportIngest(): void {
    if (this.pending.length > 0) this.reportProgress("ingest", this.pending[0]!, this.pending.at(-1)!, 0);
  }

  /**
   * Downloads the next chunk into the run's folder (logging in again once when the session
   * expired), pending the next step; its archive bytes. A failure that is the account's stops
   * its downloads (the chunks downloaded before are written all the same, then it fails); one
   * that stops the sync is thrown.
   */
  async download(): Promise<number> {
    const chunk = this.chunks[this.next++]!;
    this.downloading = true;
    try {
      const { accountId } = this.plan;
      const file = join(this.run.tempDir, consumptionFileName(accountId, chunk.startEpoch, chunk.endEpoch));
      this.reportProgress("download", chunk, chunk, 0);
      const request = { accountId, startEpoch: chunk.startEpoch, endEpoch: chunk.endEpoch - HOUR_SECONDS };
      const session = this.run.service.session;
      const get = () =>
        downloadConsumption(this.run.service.session, request, file, (received) =>
          this.reportProgress("download", chunk, chunk, received),
        );
      const { bytes, accountHours } = await get().catch(async (error: unknown) => {
        // a token or key that expired during a long sync: log in again, once per chunk
        if (!(error instanceof FetchError && error.code === "FETCH_AUTH" && error.status === 401)) throw error;
        await this.run.service.renew(session);
        return get();
      });
      this.result.bytes += bytes;
      this.result.accountHoursDownloaded += accountHours;
      this.pending.push(chunk);
      if (accountHours > 0) this.pendingFiles.push(file);
      else await rm(file, { force: true });
      return bytes;
    } catch (error) {
      if (stopsSync(error)) throw error;
      this.failure = error;
      return 0;
    } finally {
      this.downloading = false;
    }
  }

  /** True when the step settles the account's result: its chunks are done (or it failed). */
  private finishing = false;

  /**
   * The account's part of a step, after the step's ingest (`ingested`: what it did for this
   * account; undefined when it had no archive; `held`: its hours held in the step's chunks): the
   * record of its chunks (the mark and the log), written after the ingest's commits, so a run
   * killed before asks them again, which changes nothing held; none when its ingest failed.
   * With the account's last chunk, or its failure, it is {@link finishing} (or, after a stall,
   * asks the missing hours at once, in the next steps of this run).
   */
  stepRecord(ingested: AccountIngest | undefined, held: ReadonlySet<number>): ChunkRecord | undefined {
    const step = this.pending;
    let record: ChunkRecord | undefined;
    if (ingested?.error) this.fail(ingested.error);
    else if (step.length > 0) {
      const events: SyncEvent[] = [];
      if (ingested) {
        this.result.accountHoursLoaded += ingested.loadedHours;
        for (const hourEpoch of ingested.replaced) {
          this.result.rewrittenHours.push(hourEpoch);
          events.push({ hourEpoch, event: "rewritten" });
        }
      }
      for (const chunk of step) events.push(...this.classify(chunk, held));
      record = {
        accountId: this.plan.accountId,
        fromEpoch: this.plan.floorEpoch,
        untilEpoch: step.at(-1)!.endEpoch,
        events,
      };
      this.result.chunksDone += step.length;
      this.run.progress.hoursDone += hoursOf(step);
    }
    if (this.failure !== undefined) this.fail(this.failure);
    else if (this.next >= this.chunks.length) {
      const again = this.asksMissing ? [] : recoveryHours(this.plan, this.result.accountHoursLoaded);
      if (again.length > 0) this.askAtOnce(again);
      else this.finishing = true;
    }
    return record;
  }

  /** The account fails (a download, or its ingest): it asks nothing more, and the step records its result. */
  private fail(error: unknown): void {
    if (this.result.status === "failed") return;
    this.result.status = "failed";
    this.result.error = error as CloudunitsError;
    this.run.progress.hoursDone += hoursOf(this.chunks.slice(this.result.chunksDone));
    this.next = this.chunks.length;
    this.finishing = true;
  }

  /** What the step reads to settle the result of a finishing account, else undefined. */
  get spanQuery(): SpanQuery | undefined {
    if (!this.finishing) return undefined;
    const { accountId, floorEpoch, retentionStartEpoch } = this.plan;
    return { accountId, fromEpoch: floorEpoch, retentionStartEpoch, untilEpoch: this.run.windows.untilEpoch };
  }

  /** After the step's open: its archives removed. True when the account is done (its result recorded). */
  async endStep(): Promise<boolean> {
    for (const file of this.pendingFiles) await rm(file, { force: true });
    this.pending = [];
    this.pendingFiles = [];
    return this.recorded;
  }

  /** What became of each hour of a chunk: late (held now, not before), awaiting (inside the look-back), missing (leaving it); older ones stay missing. */
  private classify(chunk: HourRange, held: ReadonlySet<number>): SyncEvent[] {
    const late: SyncEvent[] = [];
    for (const h of hoursIn(chunk.startEpoch, chunk.endEpoch)) {
      if (held.has(h)) {
        if (h < this.plan.newFromEpoch && !this.plan.heldBefore.has(h)) {
          this.result.lateHours.push(h);
          late.push({ hourEpoch: h, event: "late" });
        }
      } else if (h >= this.plan.lookBackStartEpoch) this.result.awaitingHours.push(h);
      // missing once: leaving the look-back now, or asked the first time already older than it (a backfill)
      else if (this.plan.leavingLookBack.has(h) || h >= this.plan.newFromEpoch) this.result.missingHours.push(h);
    }
    return late;
  }

  /** The platform writes again after a stall longer than the look-back: the missing hours it did not ask are asked now, in this run. */
  private askAtOnce(hours: readonly number[]): void {
    const chunks = hourRanges(hours).flatMap((r) =>
      syncChunks(r.startEpoch, r.endEpoch, this.run.windows.chunkSeconds),
    );
    this.chunks.push(...chunks);
    this.asksMissing = true;
    this.result.missingAsked += hours.length;
    this.result.chunks += chunks.length;
    this.result.hoursAsked += hours.length;
    this.result.fromEpoch = Math.min(this.result.fromEpoch, chunks[0]!.startEpoch);
    this.run.progress.hoursTotal += hours.length;
  }

  /**
   * Settles the account's outcome from what the warehouse holds of it (`span`), as the step
   * records it: its status; the missing hours in order (those between its first and last hour
   * held, the others being "not yet synced" or before it existed); the hours given up for good
   * (holes older than the retention, logged `lost`).
   */
  settle(span: AccountSpan): AccountResultRecord {
    const { accountId, floorEpoch, retentionStartEpoch } = this.plan;
    const { windows } = this.run;
    const r = this.result;
    const { first, last } = span;
    r.missingHours = r.missingHours
      .filter((h) => first !== undefined && last !== undefined && h > first && h < last && h >= retentionStartEpoch)
      .sort((a, b) => a - b);
    r.lostHours = first === undefined ? [] : span.unloggedHoles;
    if (r.status !== "failed") {
      // up to date only when every hour of its retention (from its first hour held) up to the end is held
      const expected = Math.max(
        0,
        (windows.untilEpoch - Math.max(floorEpoch, retentionStartEpoch, first ?? floorEpoch)) / HOUR_SECONDS,
      );
      r.status =
        r.accountHoursLoaded > 0 || r.rewrittenHours.length > 0
          ? "synced"
          : span.recent < expected
            ? "waiting"
            : "up-to-date";
    }
    this.recorded = true;
    this.finishing = false;
    return {
      accountId,
      fromEpoch: floorEpoch,
      result: r.status,
      error: r.error?.message ?? null,
      lookBackHours: windows.lookBackHours,
      retentionHours: windows.retentionHours,
      missingAskedUntilEpoch: this.asksMissing && r.status !== "failed" ? windows.untilEpoch : undefined,
      lost: r.lostHours,
    };
  }
}
