import { stat as statCallback } from "node:fs";
import { realpath, stat } from "node:fs/promises";
import { resolve } from "node:path";
import { BadFileError, UsageError } from "../errors.js";
import { resolveLimits } from "./limits.js";
import { parseConsumptionPath, type ConsumptionPath } from "./parseConsumptionPath.js";
import type { AccountHourSelection, InputLimits, ListOptions, SourceLocation } from "./types.js";
import { walkTree } from "./walkTree.js";
import { mapConcurrently } from "./concurrency.js";
import { indexZip } from "./indexZip.js";
import { tooLargeFile, unreadableFile } from "./readSource.js";
import type { ZipArchive, ZipEntry } from "./zipArchive.js";

/** How many ignored paths the summary shows by name. */
const IGNORED_EXAMPLES = 5;
/** How many `stat` calls are in flight at once while indexing a tree. */
const STAT_CONCURRENCY = 32;

/** One file of the index: where it is, and which account-hour it belongs to. */
export interface IndexedSource {
  location: SourceLocation;
  accountId: number;
  hourEpoch: number;
  cloudSpaceId: number | null;
  /** A tree file's path. */
  path?: string;
  /** A zip entry, with its open archive. */
  zip?: { archive: ZipArchive; entry: ZipEntry };
}

/** What indexing one input needs from the whole: limits, path parsing, and where bad and ignored files go. */
export interface IndexContext {
  limits: Required<InputLimits>;
  /**
   * The path's account-hour, `ignored` when it is not a consumption path, `bad` when reported
   * as impossible, `unselected` when outside the selection (`ListOptions.select`).
   */
  parse(path: string, displayName: string): ConsumptionPath | "ignored" | "bad" | "unselected";
  location(parsed: ConsumptionPath, displayName: string, sizeBytes: number): SourceLocation;
  /** Reports a bad file to `onBadFile`, or throws it. */
  report(error: BadFileError): void;
  /** Counts a file that is not at a consumption path. */
  ignore(displayName: string): void;
}

/** Every input indexed by name: files sorted by account, hour, cloud space and name. */
export interface InputIndex {
  sources: IndexedSource[];
  filesTotal: number;
  bytesTotal: number;
  ignoredPaths: number;
  ignoredExamples: string[];
  badFiles: number;
  limits: Required<InputLimits>;
  /** Closes every archive the index holds open. */
  close(): Promise<void>;
}

/**
 * Indexes zips and directory trees by names only: walks trees, reads zip central directories,
 * parses paths, checks zip entries' names and declared sizes, and sorts. No file content is
 * read. Archives holding account-hours stay open until `close()`. Bad files go to
 * `options.onBadFile`, or the first one throws (after closing what was opened).
 */
export async function indexInputs(inputs: string[], options: ListOptions = {}): Promise<InputIndex> {
  const limits = resolveLimits(options);
  const kinds = await Promise.all(inputs.map((input) => inputKind(input)));
  const archives: ZipArchive[] = [];
  const sources: IndexedSource[] = [];
  const seenPaths = new Set<string>();
  const index: InputIndex = {
    sources,
    filesTotal: 0,
    bytesTotal: 0,
    ignoredPaths: 0,
    ignoredExamples: [],
    badFiles: 0,
    limits,
    close: async () => {
      await Promise.all(archives.splice(0).map((archive) => archive.close()));
    },
  };

  const report = (error: BadFileError) => {
    if (!options.onBadFile) throw error;
    index.badFiles++;
    options.onBadFile(error);
  };
  const ignore = (displayName: string) => {
    index.ignoredPaths++;
    if (index.ignoredExamples.length < IGNORED_EXAMPLES) index.ignoredExamples.push(displayName);
  };
  const selected = selection(options.select);
  const parse = (path: string, displayName: string): ConsumptionPath | "ignored" | "bad" | "unselected" => {
    try {
      const parsed = parseConsumptionPath(path, displayName);
      if (parsed === null) return "ignored";
      return selected(parsed) ? parsed : "unselected";
    } catch (error) {
      if (!(error instanceof BadFileError)) throw error;
      report(error);
      return "bad";
    }
  };
  const location = (parsed: ConsumptionPath, displayName: string, sizeBytes: number): SourceLocation => ({
    name: displayName,
    root: parsed.root,
    packed: options.packed === true || parsed.packed,
    sizeBytes,
  });

  /** Adds tree files, in order; their sizes are read with a few `stat` calls in flight at once (callback API: cheaper per file). */
  const addTreeFiles = async (files: { path: string; displayName: string; parsed: ConsumptionPath }[]) => {
    const fresh = files.filter(({ path }) => !seenPaths.has(path) && seenPaths.add(path));
    const sizes = await mapConcurrently(fresh, STAT_CONCURRENCY, ({ path }) =>
      new Promise<number | Error>((resolve) => statCallback(path, (error, info) => resolve(error ?? info.size))),
    );
    for (const [i, { path, displayName, parsed }] of fresh.entries()) {
      const sizeBytes = sizes[i]!;
      if (sizeBytes instanceof Error) report(unreadableFile(displayName, sizeBytes));
      else if (sizeBytes > limits.maxEntryBytes) report(tooLargeFile(displayName, sizeBytes, limits.maxEntryBytes));
      else {
        sources.push({ location: location(parsed, displayName, sizeBytes), ...key(parsed), path });
      }
    }
  };

  const addZip = async (path: string, displayName: string) => {
    const real = await realpath(path);
    if (seenPaths.has(real)) return;
    seenPaths.add(real);
    const found = await indexZip(path, displayName, { limits, parse, location, report, ignore });
    if (!found) return;
    archives.push(found.archive);
    sources.push(...found.sources);
  };

  try {
    for (const [i, input] of inputs.entries()) {
      const absolute = resolve(input);
      if (kinds[i] === "dir") {
        const files: { path: string; displayName: string; parsed: ConsumptionPath }[] = [];
        await walkTree(absolute, input, (item) => {
          if (item.kind === "error") report(item.error);
          else if (item.kind === "other") ignore(item.displayName);
          else {
            const parsed = parse(item.path, item.displayName);
            if (parsed === "ignored") ignore(item.displayName);
            else if (typeof parsed !== "string") files.push({ ...item, parsed });
          }
        });
        await addTreeFiles(files);
      } else {
        const parsed = parse(absolute, input);
        if (parsed === "ignored") await addZip(absolute, input);
        else if (typeof parsed !== "string") await addTreeFiles([{ path: absolute, displayName: input, parsed }]);
      }
    }
  } catch (error) {
    await index.close();
    throw error;
  }

  sources.sort(compareSources);
  index.filesTotal = sources.length;
  index.bytesTotal = sources.reduce((sum, source) => sum + source.location.sizeBytes, 0);
  return index;
}

/** Files of one account-hour are adjacent: by account, hour, then Account before CloudSpace files by id, then name. */
function compareSources(a: IndexedSource, b: IndexedSource): number {
  return (
    a.accountId - b.accountId ||
    a.hourEpoch - b.hourEpoch ||
    (a.cloudSpaceId ?? -1) - (b.cloudSpaceId ?? -1) ||
    (a.location.name < b.location.name ? -1 : a.location.name > b.location.name ? 1 : 0)
  );
}

/** Whether a path's account-hour is in `select` (every one without it). */
function selection(select: AccountHourSelection | undefined): (parsed: ConsumptionPath) => boolean {
  if (select === undefined) return () => true;
  const { accountId, start = -Infinity, end = Infinity } = select;
  return (p) => (accountId === undefined || p.accountId === accountId) && p.hourEpoch >= start && p.hourEpoch < end;
}

function key(parsed: ConsumptionPath) {
  return { accountId: parsed.accountId, hourEpoch: parsed.hourEpoch, cloudSpaceId: parsed.cloudSpaceId };
}

async function inputKind(input: string): Promise<"dir" | "file"> {
  try {
    const info = await stat(input);
    if (info.isDirectory()) return "dir";
    if (info.isFile()) return "file";
    throw new UsageError(`input is neither a file nor a folder: ${input}`, { code: "INPUT_NOT_FOUND" });
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") {
      throw new UsageError(`input not found: ${input} (give a zip file or a folder of consumption files)`, {
        code: "INPUT_NOT_FOUND",
      });
    }
    throw new UsageError(`cannot read input ${input} (${(error as Error).message})`, { code: "INPUT_NOT_FOUND", cause: error });
  }
}
