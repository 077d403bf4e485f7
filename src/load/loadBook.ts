import type { BadFileError, ConflictError } from "../base/errors.js";
import type { AccountHour } from "../input/types.js";
import type { HashedSource } from "./classifySources.js";
import type { LoadManifest, ManifestRow } from "./loadManifest.js";
import type { SkippedFile } from "./loadReport.js";

/** What a load did (the parts of a LoadReport it knows). */
export interface LoadOutcome {
  filesLoaded: number;
  accountHours: number;
  /** Display names of byte-identical copies dropped. */
  duplicates: string[];
  /** Files skipped under skipBad. */
  skipped: SkippedFile[];
  /** Bad files and conflicts found without skipBad, in input order. */
  errors: (BadFileError | ConflictError)[];
  /** Account-hours replaced (`replace`). */
  replacedHours: number;
  /** Which they were, in load order. */
  replaced: { accountId: number; hourEpoch: number }[];
  /** The taps' sums of the account-hours loaded, one per thread (see `Stager.collect`, `StagerOptions.tap`); empty without a tap. */
  tapped: unknown[];
}

/** An account-hour on its way to the tables: its kept files, duplicates, and whether it replaces a loaded hour. */
export interface Job {
  hour: AccountHour;
  kept: HashedSource[];
  duplicates: (HashedSource & { of: string })[];
  replacing: boolean;
}

/** The manifest reason of a file left out because another file of its account-hour is unreadable. */
export const partUnreadable = (badFile: string): string =>
  `not loaded: ${badFile} of the same account-hour is unreadable`;

/** The manifest row of a file of `hour`. */
export function manifestRow(
  s: HashedSource,
  hour: AccountHour,
  status: ManifestRow["status"],
  reason: string | null,
  code: string | null,
): ManifestRow {
  return {
    sha256: s.sha256,
    source: s.source.name,
    accountId: hour.accountId,
    hourEpoch: hour.hourEpoch,
    sizeBytes: s.sizeBytes,
    status,
    reason,
    code,
  };
}

/**
 * What a load decided, file by file: the outcome it returns and the manifest rows of each
 * decision. A bad file or conflict is an error of the load, or, under `skipBad`, its files are
 * recorded as rejected and skipped. The reader's bad files (`readerBadFiles`, filled while the
 * reader is iterated) are taken in the order it found them.
 */
export class LoadBook {
  readonly outcome: LoadOutcome = {
    filesLoaded: 0,
    accountHours: 0,
    duplicates: [],
    skipped: [],
    errors: [],
    replacedHours: 0,
    replaced: [],
    tapped: [],
  };
  private readerErrorsSeen = 0;

  constructor(
    readonly manifest: LoadManifest,
    readonly skipBad: boolean,
    private readonly readerBadFiles: readonly BadFileError[],
  ) {}

  /** Records `rows` as rejected by `error` (under skipBad), or the error. */
  reject(rows: ManifestRow[], error: BadFileError | ConflictError): void {
    if (!this.skipBad) {
      this.outcome.errors.push(error);
      return;
    }
    for (const r of rows) {
      this.manifest.add(r);
      this.outcome.skipped.push({ file: r.source, code: r.code ?? error.code, reason: r.reason ?? error.message });
    }
  }

  /** The reader's bad files not taken yet (those it found since the last `takeReaderErrors`). */
  newReaderErrors(): readonly BadFileError[] {
    return this.readerBadFiles.slice(this.readerErrorsSeen);
  }

  /** Rejects the reader's bad files found since the last call. */
  takeReaderErrors(): void {
    for (; this.readerErrorsSeen < this.readerBadFiles.length; this.readerErrorsSeen++) {
      const e = this.readerBadFiles[this.readerErrorsSeen]!;
      this.reject(
        [
          {
            sha256: "",
            source: e.file,
            accountId: null,
            hourEpoch: null,
            sizeBytes: 0,
            status: "rejected",
            reason: e.reason,
            code: e.code,
          },
        ],
        e,
      );
    }
  }

  /** Records byte-identical copies dropped from `hour`. */
  duplicates(hour: AccountHour, list: readonly (HashedSource & { of: string })[]): void {
    for (const d of list) {
      this.outcome.duplicates.push(d.source.name);
      this.manifest.add(manifestRow(d, hour, "duplicate", `same bytes as ${d.of}`, null));
    }
  }

  /** Records the replaced account-hours of `jobs` (their loaded files superseded by the jobs'). */
  replaced(jobs: readonly Job[]): void {
    for (const { hour, kept } of jobs) {
      this.manifest.supersede(hour.accountId, hour.hourEpoch, kept.map((s) => s.source.name).join(", "));
      this.outcome.replaced.push({ accountId: hour.accountId, hourEpoch: hour.hourEpoch });
    }
    this.outcome.replacedHours += jobs.length;
  }

  /** Records a job's files as loaded (and its duplicates); returns their bytes. */
  loaded(job: Job): number {
    let bytes = 0;
    for (const s of job.kept) {
      this.manifest.add(manifestRow(s, job.hour, "loaded", null, null));
      bytes += s.sizeBytes;
    }
    this.duplicates(job.hour, job.duplicates);
    this.outcome.filesLoaded += job.kept.length;
    this.outcome.accountHours++;
    return bytes;
  }
}
