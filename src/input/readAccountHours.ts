import { BadFileError } from "../base/errors.js";
import { isoUtc } from "../base/time.js";
import { indexInputs, type IndexedSource, type InputIndex } from "./indexInputs.js";
import { streamInputs } from "./streamTree.js";
import { readSource } from "./readSource.js";
import type { AccountHour, ReadOptions, ReadSummary, Source } from "./types.js";

/** Account-hours read ahead of the consumer, at most (see ReadOptions.readAheadHours). */
export const DEFAULT_READ_AHEAD_HOURS = 16;
/** Bytes read ahead of the consumer, at most (see ReadOptions.readAheadBytes): 64 MiB. */
export const DEFAULT_READ_AHEAD_BYTES = 64 * 1024 * 1024;

/**
 * Reads account-hours from zip files and directory trees (docs/input.md): see `readAccountHours`.
 * Iterating indexes the inputs, then yields one account-hour at a time; the archives it opens
 * are closed when iteration ends, throws, or the consumer leaves the loop early (`break`).
 * Each iteration reads the inputs afresh.
 */
export class AccountHourReader implements AsyncIterable<AccountHour> {
  /** What the last iteration did; complete once it ends. */
  summary: ReadSummary = emptySummary();

  constructor(
    private readonly inputs: string[],
    private readonly options: ReadOptions = {},
  ) {}

  async *[Symbol.asyncIterator](): AsyncGenerator<AccountHour, void, undefined> {
    const summary = emptySummary();
    this.summary = summary;
    const { streamAfterBytes } = this.options;
    const index =
      streamAfterBytes === undefined
        ? await indexInputs(this.inputs, this.options)
        : await streamInputs(this.inputs, this.options, streamAfterBytes);
    /** What indexing found besides the files (of a streamed index: complete once its groups end). */
    const indexed = () => {
      summary.ignoredPaths = index.ignoredPaths;
      summary.ignoredExamples = index.ignoredExamples;
      summary.syncthingCopies = index.syncthingCopies;
      summary.badFiles += index.badFiles;
    };
    if (streamAfterBytes === undefined) indexed();
    const progress = () =>
      this.options.onProgress?.({
        filesRead: summary.filesRead,
        bytesRead: summary.bytesRead,
        filesTotal: index.filesTotal,
        bytesTotal: index.bytesTotal,
      });
    progress();

    // Read a few account-hours ahead while the consumer works on the current one, so disk reads
    // and inflating overlap with decoding. Results are taken in order, so bad files are reported
    // and counted in the same order whatever finishes first.
    const maxHours = this.options.readAheadHours ?? DEFAULT_READ_AHEAD_HOURS;
    const maxBytes = this.options.readAheadBytes ?? DEFAULT_READ_AHEAD_BYTES;
    const groups = index.groups();
    const queue: { read: Promise<GroupRead>; bytes: number }[] = [];
    let queuedBytes = 0;
    const fill = () => {
      while (queue.length === 0 || (queue.length < maxHours && queuedBytes < maxBytes)) {
        const group = groups.next();
        if (group.done) return;
        const bytes = group.value.reduce((sum, source) => sum + source.location.sizeBytes, 0);
        const read =
          bytes > index.limits.maxAccountHourBytes
            ? Promise.resolve(tooLargeHour(group.value, bytes, index.limits.maxAccountHourBytes))
            : readGroup(group.value, index, this.options.deferTreeReads ?? false);
        read.catch(() => {}); // taken in order below; never an unhandled rejection meanwhile
        queue.push({ read, bytes });
        queuedBytes += bytes;
      }
    };
    try {
      fill();
      while (queue.length > 0) {
        const { read, bytes } = queue.shift()!;
        queuedBytes -= bytes;
        const { hour, errors } = await read;
        for (const error of errors) {
          if (!this.options.onBadFile) throw error;
          summary.badFiles++;
          this.options.onBadFile(error);
        }
        for (const source of hour?.sources ?? []) {
          summary.filesRead++;
          summary.bytesRead += source.deferred?.sizeBytes ?? source.bytes.length;
        }
        progress();
        fill();
        if (hour) {
          summary.accountHours++;
          yield hour;
        }
      }
      if (streamAfterBytes !== undefined) indexed();
    } finally {
      await Promise.allSettled(queue.map(({ read }) => read));
      await index.close();
    }
  }
}

/** An account-hour read, with the files of it that could not be read. */
interface GroupRead {
  /** Null when no file of the account-hour could be read. */
  hour: AccountHour | null;
  errors: BadFileError[];
}

/** Reads the files of one account-hour; bad files are returned, not thrown. */
async function readGroup(group: IndexedSource[], index: InputIndex, defer: boolean): Promise<GroupRead> {
  const sources: Source[] = [];
  const errors: BadFileError[] = [];
  for (const indexed of group) {
    try {
      sources.push(await readSource(indexed, index.limits, defer));
    } catch (error) {
      if (!(error instanceof BadFileError)) throw error;
      errors.push(error);
    }
  }
  const hour =
    sources.length === 0 ? null : { accountId: group[0]!.accountId, hourEpoch: group[0]!.hourEpoch, sources };
  return { hour, errors };
}

/** An account-hour whose files add up to more than `maxBytes`: none is read, each is named. */
function tooLargeHour(group: IndexedSource[], bytes: number, maxBytes: number): GroupRead {
  const { accountId, hourEpoch } = group[0]!;
  const hour = isoUtc(hourEpoch);
  const reason =
    `account ${accountId}, hour ${hour}: its ${group.length} file${group.length === 1 ? "" : "s"} declare ${bytes} bytes in all, ` +
    `more than the limit of ${maxBytes} for one account-hour; none is read (raise maxAccountHourBytes if the files are trusted)`;
  return {
    hour: null,
    errors: group.map((source) => new BadFileError("INPUT_HOUR_TOO_LARGE", source.location.name, reason)),
  };
}

/**
 * Reads every account-hour of the inputs, as an async iterable, in a deterministic order: by
 * accountId, then hourEpoch; within an account-hour the `Account` file(s) first, then the
 * `CloudSpace` files by cloud space id, ties by display name. The order never depends on the
 * file system or on the order of entries in a zip.
 *
 * Inputs may be zip files (as `accounts/getConsumption` serves them, with or without leading
 * folders), the `{billing_dir}` root, an account folder or any folder below it, or single
 * consumption files. The account id and hour always come from the path
 * `<accountId>/<year>/<month>/<day>/<hour>/` (unpadded or zero-padded, UTC), found in the
 * absolute path of tree files. `account_capnp.bin` has root `Account`; the controller's
 * `<cloudSpaceId>.bin` files have root `CloudSpace`, and all of one account-hour come together.
 *
 * The same account-hour found in several places (a zip and a tree, two zips, padded and
 * unpadded folders) is yielded ONCE, its `sources` holding every file: the consumer (the store)
 * decides by content whether they are duplicates or a conflict. The same file given twice (a
 * folder and its parent, one zip twice) is read once.
 *
 * Memory is bounded by the account-hour yielded (its files add up to `maxAccountHourBytes` at
 * most, default 512 MiB) plus a read-ahead window (default 16
 * account-hours or 64 MiB, whichever is reached first; always at least one account-hour) plus a
 * compact index of names (about 150 bytes per tree file, off the JavaScript heap), never by the inputs' size. Files are read
 * into memory, never extracted to disk.
 *
 * Files that are not at a consumption path are ignored and counted in `summary`. Bad files (an
 * impossible path: `INPUT_BAD_PATH`; an unsafe or damaged zip entry: `ARCHIVE_*`; an unreadable
 * file) throw their BadFileError at the first one, or, with `options.onBadFile`, are reported
 * and left out while reading goes on (an account-hour with none of its files left is not
 * yielded). An input path that does not exist throws a UsageError before anything is read.
 *
 * @example
 * const reader = readAccountHours(["consumption.zip", "/srv/billing/7"], { onBadFile: (e) => bad.push(e) });
 * for await (const hour of reader) store(hour);
 * console.log(reader.summary.ignoredPaths);
 */
export function readAccountHours(inputs: string[], options: ReadOptions = {}): AccountHourReader {
  return new AccountHourReader(inputs, options);
}

function emptySummary(): ReadSummary {
  return {
    filesRead: 0,
    bytesRead: 0,
    accountHours: 0,
    ignoredPaths: 0,
    ignoredExamples: [],
    syncthingCopies: [],
    badFiles: 0,
  };
}
