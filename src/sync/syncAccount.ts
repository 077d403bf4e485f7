import { rm } from "node:fs/promises";
import { join } from "node:path";
import type { DuckDBConnection } from "@duckdb/node-api";
import { BadInputError, CloudunitsError, EnvironmentError, FetchError } from "../base/errors.js";
import { consumptionFileName } from "../fetch/consumptionFile.js";
import { downloadConsumption } from "../fetch/downloadConsumption.js";
import type { ServiceSession } from "../fetch/serviceSession.js";
import { ingestInto, type OpenedWarehouse } from "../store/ingest.js";
import { hoursIn, recoveryHours, type AccountPlan, type RunWindows } from "./accountPlan.js";
import { HOUR_SECONDS, syncChunks } from "./syncChunks.js";
import { hourRanges, type HourRange } from "../base/period.js";
import { readHeldHours, readUnloggedHoles, recordChunk, recordResult, type SyncEvent } from "./syncState.js";
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
  /** The session in use; `renew` logs in again (a token that expired during a long sync). */
  service: { session: ServiceSession; renew(): Promise<void> };
  /** Opens the warehouse to write, runs `fn`, checkpoints and closes: one write of the run. */
  withDatabase<T>(fn: (connection: DuckDBConnection, opened: OpenedWarehouse) => Promise<T>): Promise<T>;
  /** Hours done and to do over every account, for the progress callback. */
  progress: { hoursDone: number; hoursTotal: number; onProgress?: (progress: SyncProgress) => void };
  /** Account-hours in the warehouse, as the last account's record read them. */
  totalAccountHours?: number;
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

/**
 * One account's part of a run: its chunks downloaded one after another and ingested in steps
 * (an account's archives since its last step, once they reach `stepBytes` or its chunks end),
 * each step one open of the warehouse: the ingest, then the record of its chunks, and with the
 * account's last chunk its result. Owns the archives waiting in the run's folder.
 */
export class AccountSync {
  readonly result: SyncedAccount;
  private readonly chunks: HourRange[];
  /** The chunks downloaded and not yet ingested, their files and archive bytes. */
  private pending: HourRange[] = [];
  private files: string[] = [];
  private pendingBytes = 0;
  private downloading = false;
  private recorded = false;
  private asksMissing: boolean;

  constructor(private readonly plan: AccountPlan, private readonly run: RunContext) {
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
    };
  }

  /** Syncs the account: every chunk, or until one fails (the account `failed`, the run goes on); its result recorded either way. */
  async sync(): Promise<SyncedAccount> {
    try {
      for (let index = 0; index < this.chunks.length; index++) {
        await this.download(this.chunks[index]!);
        // the last step may add chunks (the missing hours, asked at once after a stall)
        const last = index === this.chunks.length - 1;
        if (last || this.pendingBytes >= this.run.stepBytes) await this.step(last);
      }
    } catch (error) {
      await this.fail(error);
    }
    // a failed account, or one with nothing to ask: its result in an open of its own
    if (!this.recorded) await this.run.withDatabase((connection) => this.record(connection));
    return this.result;
  }

  private reportProgress(phase: SyncProgress["phase"], first: HourRange, last: HourRange, receivedBytes: number): void {
    const { hoursDone, hoursTotal, onProgress } = this.run.progress;
    onProgress?.({ phase, accountId: this.plan.accountId, chunkStartEpoch: first.startEpoch, chunkEndEpoch: last.endEpoch, hoursDone, hoursTotal, receivedBytes });
  }

  /** Downloads one chunk into the run's folder (logging in again once when the session expired), pending its step. */
  private async download(chunk: HourRange): Promise<void> {
    this.downloading = true;
    const { accountId } = this.plan;
    const file = join(this.run.tempDir, consumptionFileName(accountId, chunk.startEpoch, chunk.endEpoch));
    this.reportProgress("download", chunk, chunk, 0);
    const request = { accountId, startEpoch: chunk.startEpoch, endEpoch: chunk.endEpoch - HOUR_SECONDS };
    const get = () => downloadConsumption(this.run.service.session, request, file, (received) => this.reportProgress("download", chunk, chunk, received));
    const { bytes, accountHours } = await get().catch(async (error: unknown) => {
      // a token or key that expired during a long sync: log in again, once per chunk
      if (!(error instanceof FetchError && error.code === "FETCH_AUTH" && error.status === 401)) throw error;
      await this.run.service.renew();
      return get();
    });
    this.downloading = false;
    this.result.bytes += bytes;
    this.result.accountHoursDownloaded += accountHours;
    this.pending.push(chunk);
    this.pendingBytes += bytes;
    if (accountHours > 0) this.files.push(file);
    else await rm(file, { force: true });
  }

  /**
   * One step: the pending chunks' ingest, then their record (the mark and the log) after the
   * ingest's commits, so a run killed before asks them again, which changes nothing held; with
   * the account's last chunk, its result too (or, after a stall, the missing hours to ask at once).
   */
  private async step(lastOfAccount: boolean): Promise<void> {
    const step = this.pending;
    const first = step[0]!;
    const last = step.at(-1)!;
    await this.run.withDatabase(async (connection, opened) => {
      const events = this.files.length > 0 ? await this.ingest(opened, first, last) : [];
      const held = await readHeldHours(connection, this.plan.accountId, first.startEpoch, last.endEpoch);
      for (const chunk of step) events.push(...this.classify(chunk, held));
      await recordChunk(connection, this.plan.accountId, this.plan.floorEpoch, last.endEpoch, events);
      if (!lastOfAccount) return;
      const again = this.asksMissing ? [] : recoveryHours(this.plan, this.result.accountHoursLoaded);
      if (again.length > 0) this.askAtOnce(again);
      else await this.record(connection);
    });
    for (const file of this.files) await rm(file, { force: true });
    this.pending = [];
    this.files = [];
    this.pendingBytes = 0;
    this.result.chunksDone += step.length;
    this.run.progress.hoursDone += hoursOf(step);
  }

  /** Ingests the step's archives as `ingest` does; the rewritten hours as events. */
  private async ingest(opened: OpenedWarehouse, first: HourRange, last: HourRange): Promise<SyncEvent[]> {
    this.reportProgress("ingest", first, last, 0);
    const { report, errors } = await ingestInto(opened, this.files, {
      db: this.run.db,
      inputNames: this.files.map(() => `getConsumption(account ${this.plan.accountId})`),
      replace: this.run.replace,
      skipBad: this.run.skipBad,
    });
    if (errors.length > 0) throw new BadInputError(errors);
    this.result.accountHoursLoaded += report.accountHours - report.replacedHours;
    return report.replaced.map((r) => {
      this.result.rewrittenHours.push(r.hourEpoch);
      return { hourEpoch: r.hourEpoch, event: "rewritten" as const };
    });
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
    const chunks = hourRanges(hours).flatMap((r) => syncChunks(r.startEpoch, r.endEpoch, this.run.windows.chunkSeconds));
    this.chunks.push(...chunks);
    this.asksMissing = true;
    this.result.missingAsked += hours.length;
    this.result.chunks += chunks.length;
    this.result.hoursAsked += hours.length;
    this.result.fromEpoch = Math.min(this.result.fromEpoch, chunks[0]!.startEpoch);
    this.run.progress.hoursTotal += hours.length;
  }

  /** A download or an ingest failed: the chunks downloaded before a failed download are ingested and recorded all the same. */
  private async fail(error: unknown): Promise<void> {
    if (stopsSync(error)) throw error;
    if (this.downloading && this.pending.length > 0) {
      await this.step(false).catch((second: unknown) => {
        if (stopsSync(second)) throw second;
      });
    }
    this.result.status = "failed";
    this.result.error = error as CloudunitsError;
    this.run.progress.hoursDone += hoursOf(this.chunks.slice(this.result.chunksDone));
  }

  /**
   * Settles the account's outcome and records it: its status; the missing hours in order (those
   * between its first and last hour held, the others being "not yet synced" or before it
   * existed); the hours given up for good (holes older than the retention, logged `lost`).
   */
  private async record(connection: DuckDBConnection): Promise<void> {
    const { accountId, floorEpoch, retentionStartEpoch } = this.plan;
    const { windows, currentHourEpoch } = this.run;
    const r = this.result;
    const span = (await connection.runAndReadAll(
      `SELECT min(hour_epoch) AS first, max(hour_epoch) AS last,
              count(*) FILTER (WHERE hour_epoch >= greatest($from, $retention) AND hour_epoch < $until) AS recent
       FROM account_hours WHERE account_id = $a AND hour_epoch <= $now`,
      { a: accountId, now: currentHourEpoch, from: floorEpoch, retention: retentionStartEpoch, until: windows.untilEpoch },
    )).getRowObjectsJS()[0]!;
    const first = span.first === null ? undefined : Number(span.first);
    const last = span.last === null ? undefined : Number(span.last);
    r.missingHours = r.missingHours.filter((h) => first !== undefined && last !== undefined && h > first && h < last && h >= retentionStartEpoch).sort((a, b) => a - b);
    r.lostHours = first === undefined ? [] : await readUnloggedHoles(connection, accountId, floorEpoch, retentionStartEpoch, currentHourEpoch);
    if (r.status !== "failed") {
      // up to date only when every hour of its retention (from its first hour held) up to the end is held
      const expected = Math.max(0, (windows.untilEpoch - Math.max(floorEpoch, retentionStartEpoch, first ?? floorEpoch)) / HOUR_SECONDS);
      r.status = r.accountHoursLoaded > 0 || r.rewrittenHours.length > 0 ? "synced" : Number(span.recent) < expected ? "waiting" : "up-to-date";
    }
    await recordResult(connection, {
      accountId,
      fromEpoch: floorEpoch,
      result: r.status,
      error: r.error?.message ?? null,
      lookBackHours: windows.lookBackHours,
      retentionHours: windows.retentionHours,
      missingAskedUntilEpoch: this.asksMissing && r.status !== "failed" ? windows.untilEpoch : undefined,
      lost: r.lostHours,
    });
    this.run.totalAccountHours = await countAccountHours(connection);
    this.recorded = true;
  }
}
