import { BadFileError } from "../base/errors.js";
import type { ColumnSelection } from "./columnBatch.js";
import type { DataTable } from "./dataTables.js";
import type { ImpossibleValue } from "./impossibleValues.js";
import { manifestRow, partUnreadable, type Job, type LoadBook } from "./loadBook.js";
import type { LoadTarget } from "./loadSources.js";
import type { StagedGroup, Stager } from "./stageHours.js";

/** How {@link GroupStaging} groups, stages and commits (the defaults applied: see `LoadRules`). */
export interface StagingRules {
  tables: readonly DataTable[];
  columns?: ColumnSelection;
  batchBytes: number;
  batchFiles: number;
  groupBytes: number;
  stopOnError: boolean;
  stager: () => Stager;
}

/**
 * The jobs of a load on their way into its target: gathered into groups, each decoded and
 * staged by the stager (made when the first group is ready; on workers when it has them),
 * applied in input order (manifest rows, replaced hours deleted, columns handed to the
 * target) and committed in batches with their manifest rows and impossible values.
 */
export class GroupStaging {
  private stager: Stager | undefined;
  private group: Job[] = [];
  private bytesInGroup = 0;
  /** The first groups are smaller (1/8, 1/4, 1/2 of groupBytes), so the first rows reach the target while a worker is still starting up. */
  private groupTarget: number;
  private bytesInBatch = 0;
  private filesInBatch = 0;
  private readonly inFlight: { jobs: Job[]; staged: Promise<StagedGroup> }[] = [];
  /** Impossible values of the batch's hours: recorded with its rows and manifest (never an error of the load; billing decides). */
  private impossible: ImpossibleValue[] = [];

  constructor(
    private readonly target: LoadTarget,
    private readonly book: LoadBook,
    private readonly rules: StagingRules,
  ) {
    this.groupTarget = Math.max(1, Math.floor(rules.groupBytes / 8));
  }

  /** Adds a job; hands its group to the stager once full. */
  async push(job: Job): Promise<void> {
    this.group.push(job);
    this.bytesInGroup += job.kept.reduce((sum, s) => sum + s.sizeBytes, 0);
    if (this.bytesInGroup >= this.groupTarget) await this.submit();
  }

  /** After the last job: stages, applies and commits what is left. */
  async finish(): Promise<void> {
    await this.submit();
    await this.drain(0);
    await this.commit();
  }

  /** The taps' sums of the stager (see `Stager.collect`); empty without a tap. */
  async collect(): Promise<unknown[]> {
    return (await this.stager?.collect?.()) ?? [];
  }

  async close(): Promise<void> {
    await this.stager?.close();
  }

  private async submit(): Promise<void> {
    if (this.group.length === 0) return;
    const stager = (this.stager ??= this.rules.stager());
    const jobs = this.group;
    const staged = stager.stage(
      jobs.map((j) => j.hour),
      this.rules.tables,
      this.rules.columns,
    );
    staged.catch(() => {}); // awaited in order by drain; do not report it as unhandled meanwhile
    this.inFlight.push({ jobs, staged });
    this.group = [];
    this.bytesInGroup = 0;
    this.groupTarget = Math.min(this.rules.groupBytes, this.groupTarget * 2);
    await this.drain(stager.inFlight - 1);
  }

  private async drain(keep: number): Promise<void> {
    while (this.inFlight.length > keep) {
      const next = this.inFlight.shift()!;
      await this.apply(next.jobs, await next.staged);
    }
  }

  /** Applies a staged group in input order: manifest rows, replaced hours deleted, columns handed to the target. */
  private async apply(jobs: Job[], staged: StagedGroup): Promise<void> {
    const ok = this.rejectFailed(jobs, staged);
    if (this.rules.stopOnError && this.book.outcome.errors.length > 0) return;
    const replacing = ok.filter((j) => j.replacing);
    if (replacing.length > 0) {
      await this.target.deleteHours?.(replacing.map((j) => j.hour));
      this.book.replaced(replacing);
    }
    let loadedBytes = 0;
    let loadedFiles = 0;
    for (const job of ok) {
      loadedBytes += this.book.loaded(job);
      loadedFiles += job.kept.length;
    }
    this.impossible.push(...staged.impossible);
    await this.target.add?.(staged, loadedBytes, loadedFiles);
    this.bytesInBatch += loadedBytes;
    this.filesInBatch += loadedFiles;
    if (this.bytesInBatch >= this.rules.batchBytes || this.filesInBatch >= this.rules.batchFiles) await this.commit();
  }

  /** Fills in the hashes the stager computed, rejects the jobs whose files failed to decode; returns the others. */
  private rejectFailed(jobs: Job[], staged: StagedGroup): Job[] {
    jobs.forEach((job, i) => {
      job.kept.forEach((s, k) => {
        if (s.sha256 === "") s.sha256 = staged.sha256[i]![k]!;
      });
    });
    const failed = new Map(staged.errors.map((e) => [e.index, e]));
    jobs.forEach((job, i) => {
      const e = failed.get(i);
      if (e === undefined) return;
      const error = new BadFileError(e.code, e.file, e.reason);
      this.book.reject(
        job.kept.map((s) =>
          manifestRow(s, job.hour, "rejected", s.source.name === e.file ? e.reason : partUnreadable(e.file), e.code),
        ),
        error,
      );
    });
    return jobs.filter((_, i) => !failed.has(i));
  }

  /** Ends the batch: its rows and manifest rows commit together (in DuckDB's threads, while reading goes on). */
  private async commit(): Promise<void> {
    this.book.takeReaderErrors();
    const writeManifest = this.book.manifest.take();
    const values = this.impossible;
    this.impossible = [];
    await this.target.commit?.(writeManifest, values);
    this.bytesInBatch = 0;
    this.filesInBatch = 0;
  }
}
