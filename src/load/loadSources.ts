import { createHash } from "node:crypto";
import type { DuckDBConnection } from "@duckdb/node-api";
import { decodeAccountHour } from "../capnp/decodeAccountHour.js";
import { BadFileError, ConflictError } from "../base/errors.js";
import { parseConsumptionPath, type ConsumptionPath } from "../input/parseConsumptionPath.js";
import { readDeferred } from "../input/readSource.js";
import type { AccountHour, Source } from "../input/types.js";
import type { ColumnSelection } from "./columnBatch.js";
import { classifySources, sourceSlot, type HashedSource } from "./classifySources.js";
import type { ImpossibleValue } from "./impossibleValues.js";
import type { LoadManifest, ManifestRow } from "./loadManifest.js";
import { DATA_TABLES, type DataTable } from "./dataTables.js";
import { inlineStager, type StagedGroup, type Stager } from "./stageHours.js";
import type { SkippedFile } from "./loadReport.js";

/** The manifest reason of a file left out because another file of its account-hour is unreadable. */
const partUnreadable = (badFile: string) => `not loaded: ${badFile} of the same account-hour is unreadable`;

/**
 * Where a load's staged account-hours go (a database's tables, or nowhere but the taps' own
 * sums when billing files as they stream), batch by batch, in input order. A target implements
 * only what it needs: billing from files keeps the impossible values of each commit, nothing else.
 */
export interface LoadTarget {
  /** Before the first group. */
  begin?(): Promise<void>;
  /** The staged rows of a group's loaded account-hours, `loadedBytes` of input. */
  add?(staged: StagedGroup, loadedBytes: number): Promise<void>;
  /** Ends a batch: `writeManifest` and the batch's impossible values commit with its rows. */
  commit?(writeManifest: (connection: DuckDBConnection) => Promise<void>, impossible: ImpossibleValue[]): Promise<void>;
  /** Deletes the rows of account-hours loaded by an earlier run, which this one replaces. */
  deleteHours?(hours: readonly { accountId: number; hourEpoch: number }[]): Promise<void>;
  /** After the last commit: waits for the writes. */
  settle?(): Promise<void>;
  /** After an error: drops what is not committed. */
  abort?(): Promise<void>;
  /** After the load, whatever its outcome. */
  end?(): Promise<void>;
}

/** How {@link loadSources} treats what it finds. */
export interface LoadRules {
  /** Record bad files and conflicts as skipped (manifest `rejected`) and go on. Default false: collect them as errors. */
  skipBad?: boolean;
  /** A different file for an account-hour already in the manifest replaces it (`ingest --replace`). Default false: a conflict. */
  replace?: boolean;
  /** Once an error is found (and not skipBad), stop appending data (the load will fail anyway). Default false. */
  stopOnError?: boolean;
  /** The data tables to fill. Default: all. */
  tables?: readonly DataTable[];
  /** The columns to fill, by table (the tables must have only these). Default: all. */
  columns?: ColumnSelection;
  /** Commit after this many input bytes. Default 32 MiB. */
  batchBytes?: number;
  /** Input bytes per group handed to the stager (decoded and staged together; the first groups are smaller). Default 1 MiB. */
  groupBytes?: number;
  /**
   * Decodes one file on its own (as an account-hour of that file), throwing its BadFileError:
   * asked only of files that would otherwise conflict, to tell a damaged copy (bad on its
   * own) from a conflicting one. Default: the Cap'n Proto decoder.
   */
  decode?: (hour: AccountHour) => unknown;
  /** Makes the stager that decodes groups (called once, when the first group is ready). Default: decode in this thread. */
  stager?: () => Stager;
}

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
interface Job {
  hour: AccountHour;
  kept: HashedSource[];
  duplicates: (HashedSource & { of: string })[];
  replacing: boolean;
}

const sizeOf = (source: Source): number => source.deferred?.sizeBytes ?? source.bytes.byteLength;

/**
 * A cloud-space file of this split hour that the reader could not read (a bad zip entry), when
 * no other file of that cloud space was read: the hour would be loaded without that cloud space.
 */
function unreadPart(hour: AccountHour, readerErrors: readonly BadFileError[]): BadFileError | undefined {
  if (hour.sources.some((s) => s.root !== "CloudSpace")) return undefined;
  const slots = new Set(hour.sources.map(sourceSlot));
  return readerErrors.find((e) => {
    const name = e.file.slice(e.file.lastIndexOf("!") + 1);
    let path: ConsumptionPath | null;
    try {
      path = parseConsumptionPath(name);
    } catch {
      return false; // an impossible path belongs to no hour
    }
    return path?.root === "CloudSpace" && path.accountId === hour.accountId && path.hourEpoch === hour.hourEpoch
      && !slots.has(sourceSlot({ root: "CloudSpace", name }));
  });
}

const sha256Hex = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex");

/**
 * True when the files of an account-hour cannot be duplicates or a conflict whatever their
 * bytes: one kind of root and one file per slot. Their hashes are then left to the stager
 * (on a worker when it has them), and only needed for the manifest rows.
 */
function needsNoComparison(sources: readonly Source[]): boolean {
  if (sources.length === 1) return true;
  const root = sources[0]!.root;
  const slots = new Set<string>();
  for (const s of sources) {
    if (s.root !== root) return false;
    slots.add(sourceSlot(s));
  }
  return slots.size === sources.length;
}

/**
 * Loads account-hours into a target and the manifest: hashes every file, drops
 * byte-identical duplicates, finds conflicts (within the inputs, and with the hours the
 * manifest already holds), decodes and stages groups of hours (on workers when the stager
 * has them, results applied in input order), and hands them to the target in batches, each
 * committed with its manifest rows. Files the reader left unread (`deferred`) are read where
 * they are decoded. Bad files reported by the reader are passed in `readerBadFiles` (filled
 * while iterating) and handled like decode errors.
 */
export async function loadSources(
  target: LoadTarget,
  hours: AsyncIterable<AccountHour>,
  manifest: LoadManifest,
  readerBadFiles: BadFileError[],
  rules: LoadRules = {},
): Promise<LoadOutcome> {
  const skipBad = rules.skipBad ?? false;
  const decode = rules.decode ?? decodeAccountHour;
  const tables = rules.tables ?? DATA_TABLES;
  const batchBytes = rules.batchBytes ?? 32 * 1024 * 1024;
  const groupBytes = rules.groupBytes ?? 1024 * 1024;
  // The first groups are smaller (1/8, 1/4, 1/2 of groupBytes), so the first staged rows reach
  // DuckDB while the worker is still starting up and compiling.
  let groupTarget = Math.max(1, Math.floor(groupBytes / 8));
  const outcome: LoadOutcome = { filesLoaded: 0, accountHours: 0, duplicates: [], skipped: [], errors: [], replacedHours: 0, replaced: [], tapped: [] };
  let readerErrorsSeen = 0;
  let stager: Stager | undefined;
  let bytesInBatch = 0;
  let group: Job[] = [];
  let bytesInGroup = 0;
  const inFlight: { jobs: Job[]; staged: Promise<StagedGroup> }[] = [];
  /** Impossible values of the batch's hours: recorded with its rows and manifest (never an error of the load; billing decides). */
  let impossible: ImpossibleValue[] = [];

  const row = (s: HashedSource, hour: AccountHour, status: ManifestRow["status"], reason: string | null, code: string | null): ManifestRow => ({
    sha256: s.sha256, source: s.source.name, accountId: hour.accountId, hourEpoch: hour.hourEpoch,
    sizeBytes: s.sizeBytes, status, reason, code,
  });
  const reject = (rows: ManifestRow[], error: BadFileError | ConflictError): void => {
    if (!skipBad) {
      outcome.errors.push(error);
      return;
    }
    for (const r of rows) {
      manifest.add(r);
      outcome.skipped.push({ file: r.source, code: r.code ?? error.code, reason: r.reason ?? error.message });
    }
  };
  const takeReaderErrors = (): void => {
    for (; readerErrorsSeen < readerBadFiles.length; readerErrorsSeen++) {
      const e = readerBadFiles[readerErrorsSeen]!;
      reject([{ sha256: "", source: e.file, accountId: null, hourEpoch: null, sizeBytes: 0, status: "rejected", reason: e.reason, code: e.code }], e);
    }
  };
  const recordDuplicates = (hour: AccountHour, list: (HashedSource & { of: string })[]): void => {
    for (const d of list) {
      outcome.duplicates.push(d.source.name);
      manifest.add(row(d, hour, "duplicate", `same bytes as ${d.of}`, null));
    }
  };

  /** Ends the batch: its rows and manifest rows commit together (in DuckDB's threads, while reading goes on). */
  const commit = async (): Promise<void> => {
    takeReaderErrors();
    const writeManifest = manifest.take();
    const values = impossible;
    impossible = [];
    await target.commit?.(writeManifest, values);
    bytesInBatch = 0;
  };

  /** Applies a staged group in input order: manifest rows, replaced hours deleted, columns handed to the writer. */
  const apply = async (jobs: Job[], staged: StagedGroup): Promise<void> => {
    jobs.forEach((job, i) => {
      job.kept.forEach((s, k) => {
        if (s.sha256 === "") s.sha256 = staged.sha256[i]![k]!;
      });
    });
    const failed = new Map(staged.errors.map((e) => [e.index, e]));
    const ok = jobs.filter((_, i) => !failed.has(i));
    jobs.forEach((job, i) => {
      const e = failed.get(i);
      if (e === undefined) return;
      const error = new BadFileError(e.code, e.file, e.reason);
      reject(job.kept.map((s) => row(s, job.hour, "rejected",
        s.source.name === e.file ? e.reason : partUnreadable(e.file), e.code)), error);
    });
    if (rules.stopOnError && outcome.errors.length > 0) return;
    const replacing = ok.filter((j) => j.replacing);
    if (replacing.length > 0) {
      await target.deleteHours?.(replacing.map((j) => j.hour));
      for (const { hour, kept } of replacing) manifest.supersede(hour.accountId, hour.hourEpoch, kept.map((s) => s.source.name).join(", "));
      outcome.replacedHours += replacing.length;
      for (const { hour } of replacing) outcome.replaced.push({ accountId: hour.accountId, hourEpoch: hour.hourEpoch });
    }
    let loadedBytes = 0;
    for (const job of ok) {
      for (const s of job.kept) {
        manifest.add(row(s, job.hour, "loaded", null, null));
        loadedBytes += s.sizeBytes;
      }
      recordDuplicates(job.hour, job.duplicates);
      outcome.filesLoaded += job.kept.length;
      outcome.accountHours++;
    }
    impossible.push(...staged.impossible);
    await target.add?.(staged, loadedBytes);
    bytesInBatch += loadedBytes;
    if (bytesInBatch >= batchBytes) await commit();
  };
  const drain = async (keep: number): Promise<void> => {
    while (inFlight.length > keep) {
      const next = inFlight.shift()!;
      await apply(next.jobs, await next.staged);
    }
  };
  const submit = async (): Promise<void> => {
    if (group.length === 0) return;
    stager ??= (rules.stager ?? inlineStager)();
    const jobs = group;
    const staged = stager.stage(jobs.map((j) => j.hour), tables, rules.columns);
    staged.catch(() => {}); // awaited in order by drain; do not report it as unhandled meanwhile
    inFlight.push({ jobs, staged });
    group = [];
    bytesInGroup = 0;
    groupTarget = Math.min(groupBytes, groupTarget * 2);
    await drain(stager.inFlight - 1);
  };

  await target.begin?.();
  try {
    for await (const hour of hours) {
      const lost = unreadPart(hour, readerBadFiles.slice(readerErrorsSeen)); // the reader reports an hour's bad files just before it
      takeReaderErrors();
      if (lost !== undefined) {
        // one bad cloud space rejects its split hour, named (without skipBad, `lost` is already an error)
        const reason = partUnreadable(lost.file);
        if (skipBad) reject(hour.sources.map((source) => row({ source, sha256: "", sizeBytes: sizeOf(source) }, hour, "rejected", reason, lost.code)), lost);
        continue;
      }
      if (needsNoComparison(hour.sources) && manifest.loadedFiles(hour.accountId, hour.hourEpoch).length === 0) {
        const kept = hour.sources.map((source) => ({ source, sha256: "", sizeBytes: sizeOf(source) }));
        group.push({ hour, kept, duplicates: [], replacing: false });
        bytesInGroup += kept.reduce((sum, s) => sum + s.sizeBytes, 0);
        if (bytesInGroup >= groupTarget) await submit();
        continue;
      }
      const loaded = manifest.loadedFiles(hour.accountId, hour.hourEpoch);
      const hashed = hour.sources.map((source) => {
        try {
          readDeferred(source);
        } catch (error) {
          if (!(error instanceof BadFileError)) throw error;
          return { source, sha256: "", sizeBytes: sizeOf(source), error };
        }
        return { source, sha256: sha256Hex(source.bytes), sizeBytes: sizeOf(source) };
      });
      const decodesAlone = (s: HashedSource): BadFileError | undefined => {
        try {
          decode({ accountId: hour.accountId, hourEpoch: hour.hourEpoch, sources: [s.source] });
          return undefined;
        } catch (error) {
          if (error instanceof BadFileError) return error;
          throw error;
        }
      };
      const { kept, duplicates, conflicting, bad, incomplete } = classifySources(hashed, decodesAlone, new Set(loaded.map((f) => f.sha256)));
      // a file that cannot be read or decoded is bad on its own, with its own reason (docs/cli.md)
      for (const b of bad) reject([row(b, hour, "rejected", b.error.reason, b.error.code)], b.error);
      if (incomplete.length > 0) {
        // one bad cloud space rejects its split hour, naming it (without skipBad, `cause` is already an error)
        const cause = bad[0]!.error;
        const reason = partUnreadable(cause.file);
        if (skipBad) reject(incomplete.map((s) => row(s, hour, "rejected", reason, cause.code)), cause);
        continue;
      }
      if (conflicting.length > 0) {
        const error = new ConflictError(hour.accountId, hour.hourEpoch, conflicting.map((s) => s.source.name));
        reject(conflicting.map((s) => row(s, hour, "rejected", "different files for the same account-hour", "CONFLICT")), error);
        continue;
      }
      if (kept.length === 0) continue;
      let replacing = false;
      if (loaded.length > 0) {
        const loadedBy = new Map(loaded.map((f) => [f.sha256, f.source]));
        if (kept.every((s) => loadedBy.has(s.sha256))) {
          recordDuplicates(hour, duplicates);
          for (const s of kept) {
            // The same file again is a no-op; the same bytes under another name is recorded as a duplicate.
            outcome.duplicates.push(s.source.name);
            if (loadedBy.get(s.sha256) !== s.source.name) manifest.add(row(s, hour, "duplicate", `same bytes as ${loadedBy.get(s.sha256)}`, null));
          }
          continue;
        }
        if (!rules.replace) {
          const error = new ConflictError(
            hour.accountId, hour.hourEpoch,
            [...loaded.map((f) => `${f.source} (loaded)`), ...kept.map((s) => s.source.name)],
            "use --replace to load the new file instead",
          );
          reject(kept.map((s) => row(s, hour, "rejected", `differs from the loaded ${loaded.map((f) => f.source).join(", ")}`, "CONFLICT")), error);
          continue;
        }
        replacing = true;
      }
      group.push({ hour: { ...hour, sources: kept.map((s) => s.source) }, kept, duplicates, replacing });
      bytesInGroup += kept.reduce((sum, s) => sum + s.sizeBytes, 0);
      if (bytesInGroup >= groupTarget) await submit();
    }
    await submit();
    await drain(0);
    await commit();
    await target.settle?.();
    outcome.tapped = (await stager?.collect?.()) ?? [];
  } catch (error) {
    await target.abort?.();
    throw error;
  } finally {
    await stager?.close();
    await target.end?.();
  }
  return outcome;
}
