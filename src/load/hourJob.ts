import { createHash } from "node:crypto";
import { BadFileError, ConflictError } from "../base/errors.js";
import { parseConsumptionPath, type ConsumptionPath } from "../input/parseConsumptionPath.js";
import { readDeferred } from "../input/readSource.js";
import type { AccountHour, Source } from "../input/types.js";
import { classifySources, sourceSlot, type HashedSource } from "./classifySources.js";
import { manifestRow, partUnreadable, type Job, type LoadBook } from "./loadBook.js";
import type { LoadedFile } from "./loadManifest.js";

const sizeOf = (source: Source): number => source.deferred?.sizeBytes ?? source.bytes.byteLength;
const sha256Hex = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex");

/** How {@link jobOf} decides: the decoder that tells a damaged copy from a conflicting one, and `--replace`. */
export interface JobRules {
  /** Decodes one file on its own (as an account-hour of that file), throwing its BadFileError. */
  decode: (hour: AccountHour) => unknown;
  /** A different file for an account-hour already loaded replaces it. */
  replace: boolean;
}

/**
 * What a load does with an account-hour the reader yielded: the job that stages its kept
 * files, or nothing when it is rejected (a bad file or conflict, recorded in `book`) or holds
 * only files already loaded. The reader's bad files found before it are taken first.
 */
export function jobOf(hour: AccountHour, book: LoadBook, rules: JobRules): Job | undefined {
  const lost = unreadPart(hour, book.newReaderErrors()); // the reader reports an hour's bad files just before it
  book.takeReaderErrors();
  if (lost !== undefined) {
    // one bad cloud space rejects its split hour, named (without skipBad, `lost` is already an error)
    if (book.skipBad)
      book.reject(
        hour.sources.map((source) =>
          manifestRow(unhashed(source), hour, "rejected", partUnreadable(lost.file), lost.code),
        ),
        lost,
      );
    return undefined;
  }
  const loaded = book.manifest.loadedFiles(hour.accountId, hour.hourEpoch);
  if (loaded.length === 0 && needsNoComparison(hour.sources))
    return { hour, kept: hour.sources.map(unhashed), duplicates: [], replacing: false };
  const { kept, duplicates, conflicting, bad, incomplete } = classifySources(
    hashedSources(hour),
    (s) => decodesAlone(hour, s, rules.decode),
    new Set(loaded.map((f) => f.sha256)),
  );
  // a file that cannot be read or decoded is bad on its own, with its own reason (docs/cli.md)
  for (const b of bad) book.reject([manifestRow(b, hour, "rejected", b.error.reason, b.error.code)], b.error);
  if (incomplete.length > 0) {
    // one bad cloud space rejects its split hour, naming it (without skipBad, `cause` is already an error)
    const cause = bad[0]!.error;
    if (book.skipBad)
      book.reject(
        incomplete.map((s) => manifestRow(s, hour, "rejected", partUnreadable(cause.file), cause.code)),
        cause,
      );
    return undefined;
  }
  if (conflicting.length > 0) {
    const error = new ConflictError(
      hour.accountId,
      hour.hourEpoch,
      conflicting.map((s) => s.source.name),
    );
    book.reject(
      conflicting.map((s) => manifestRow(s, hour, "rejected", "different files for the same account-hour", "CONFLICT")),
      error,
    );
    return undefined;
  }
  if (kept.length === 0) return undefined;
  const job = { hour: { ...hour, sources: kept.map((s) => s.source) }, kept, duplicates, replacing: false };
  return loaded.length === 0 ? job : againstLoaded(job, loaded, book, rules.replace);
}

/**
 * A job of an account-hour the manifest already holds: nothing when its files are those
 * loaded (the same file again is a no-op; the same bytes under another name a duplicate), the
 * job replacing the loaded hour under `replace`, else a conflict.
 */
function againstLoaded(job: Job, loaded: readonly LoadedFile[], book: LoadBook, replace: boolean): Job | undefined {
  const { hour, kept } = job;
  const loadedBy = new Map(loaded.map((f) => [f.sha256, f.source]));
  if (kept.every((s) => loadedBy.has(s.sha256))) {
    book.duplicates(hour, job.duplicates);
    for (const s of kept) {
      book.outcome.duplicates.push(s.source.name);
      if (loadedBy.get(s.sha256) !== s.source.name)
        book.manifest.add(manifestRow(s, hour, "duplicate", `same bytes as ${loadedBy.get(s.sha256)}`, null));
    }
    return undefined;
  }
  if (!replace) {
    const error = new ConflictError(
      hour.accountId,
      hour.hourEpoch,
      [...loaded.map((f) => `${f.source} (loaded)`), ...kept.map((s) => s.source.name)],
      "use replace: true to load the new file instead",
    );
    book.reject(
      kept.map((s) =>
        manifestRow(
          s,
          hour,
          "rejected",
          `differs from the loaded ${loaded.map((f) => f.source).join(", ")}`,
          "CONFLICT",
        ),
      ),
      error,
    );
    return undefined;
  }
  return { ...job, replacing: true };
}

/** A source whose hash is left to the stager (on a worker when it has them): only the manifest rows need it. */
const unhashed = (source: Source): HashedSource => ({ source, sha256: "", sizeBytes: sizeOf(source) });

/** The sources of an hour read (when deferred) and hashed; one that cannot be read carries its error. */
function hashedSources(hour: AccountHour): (HashedSource & { error?: BadFileError })[] {
  return hour.sources.map((source) => {
    try {
      readDeferred(source);
    } catch (error) {
      if (!(error instanceof BadFileError)) throw error;
      return { ...unhashed(source), error };
    }
    return { source, sha256: sha256Hex(source.bytes), sizeBytes: sizeOf(source) };
  });
}

/** The error of a file of `hour` that does not decode on its own (asked only of files that would otherwise conflict). */
function decodesAlone(hour: AccountHour, s: HashedSource, decode: JobRules["decode"]): BadFileError | undefined {
  try {
    decode({ accountId: hour.accountId, hourEpoch: hour.hourEpoch, sources: [s.source] });
    return undefined;
  } catch (error) {
    if (error instanceof BadFileError) return error;
    throw error;
  }
}

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
    return (
      path?.root === "CloudSpace" &&
      path.accountId === hour.accountId &&
      path.hourEpoch === hour.hourEpoch &&
      !slots.has(sourceSlot({ root: "CloudSpace", name }))
    );
  });
}

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
