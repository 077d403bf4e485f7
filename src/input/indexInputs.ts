import { statSync } from "node:fs";
import { realpath, stat } from "node:fs/promises";
import { basename, relative as relativePath, resolve, sep } from "node:path";
import { BadFileError, UsageError } from "../base/errors.js";
import { resolveLimits } from "./limits.js";
import { parseConsumptionPath, type ConsumptionPath } from "./parseConsumptionPath.js";
import type { AccountHourSelection, InputLimits, ListOptions, SourceLocation } from "./types.js";
import { walkTree } from "./walkTree.js";
import { indexArchive } from "./indexArchive.js";
import { inPeriod } from "../base/period.js";
import { tooLargeFile, unreadableFile } from "./readSource.js";
import { SourceTable } from "./sourceTable.js";
import { archiveKindOf, type Archive, type ArchiveEntry, type ArchiveKind } from "./archive.js";

/** How many ignored paths the summary shows by name. */
const IGNORED_EXAMPLES = 5;

/** One file of the index: where it is, and which account-hour it belongs to. */
export interface IndexedSource {
  location: SourceLocation;
  accountId: number;
  hourEpoch: number;
  cloudSpaceId: number | null;
  /** A tree file's path. */
  path?: string;
  /** An archive's entry (a zip's), with its open archive. */
  archived?: { archive: Archive; entry: ArchiveEntry };
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
  /** Counts and names a copy Syncthing left (never read). */
  syncthing(displayName: string): void;
}

/** Every input indexed by name: files sorted by account, hour, cloud space and name. */
export interface InputIndex {
  /** The files in reading order, one account-hour at a time (made on demand: the index keeps them compactly). */
  groups(): Generator<IndexedSource[]>;
  filesTotal: number;
  bytesTotal: number;
  ignoredPaths: number;
  ignoredExamples: string[];
  /** Copies Syncthing left (`.stversions` folders, `*.sync-conflict-*` files), never read: display names. */
  syncthingCopies: string[];
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
  const archives: Archive[] = [];
  const table = new SourceTable();
  const seenArchives = new Set<string>();
  let order: Uint32Array = new Uint32Array(0);
  let duplicate: Uint8Array = new Uint8Array(0);
  const index: InputIndex = {
    groups: function* () {
      for (const rows of accountHours(table, order)) {
        const group: IndexedSource[] = [];
        for (const row of rows) if (!duplicate[row]) group.push(table.source(row));
        yield group;
      }
    },
    filesTotal: 0,
    bytesTotal: 0,
    ignoredPaths: 0,
    ignoredExamples: [],
    syncthingCopies: [],
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
  const syncthing = (displayName: string) => {
    index.syncthingCopies.push(displayName);
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
  const packed = (parsed: ConsumptionPath) => options.packed === true || parsed.packed;
  const location = (parsed: ConsumptionPath, displayName: string, sizeBytes: number): SourceLocation => ({
    name: displayName, root: parsed.root, packed: packed(parsed), sizeBytes,
  });

  /** Adds a tree file below `root` (`relative` to it), sized with a `stat`. */
  const addTreeFile = (root: number, path: string, relative: string, displayName: string, parsed: ConsumptionPath) => {
    let sizeBytes: number;
    try {
      sizeBytes = statSync(path).size;
    } catch (error) {
      report(unreadableFile(displayName, error));
      return;
    }
    if (sizeBytes > limits.maxEntryBytes) report(tooLargeFile(displayName, sizeBytes, limits.maxEntryBytes));
    else table.addTreeFile(root, relative, parsed, packed(parsed), sizeBytes);
  };

  /** Something that is not a file: named when at a consumption path (it cannot be read), else ignored. */
  const notAFile = (path: string, displayName: string, what: string) => {
    const parsed = parse(path, displayName);
    if (parsed === "ignored") ignore(displayName);
    else if (typeof parsed !== "string") report(new BadFileError("INPUT_NOT_A_FILE", displayName, `${what}, not a regular file: it cannot be read`));
  };
  /** A link out of the input folder (never followed): named when it may hold consumption files, else ignored. */
  const linkOutside = (path: string, displayName: string, target: string, folder: boolean, input: string) => {
    const parsed = folder ? null : parse(path, displayName);
    if (parsed === "ignored") ignore(displayName);
    else if (typeof parsed !== "string") {
      report(new BadFileError(
        "INPUT_LINK_OUTSIDE",
        displayName,
        `a symbolic link to ${target}, outside ${input}: links are followed only within the input folder (give ${target} as an input of its own)`,
      ));
    }
  };

  /**
   * Indexes an archive: given as an input (`kinds`: every kind the options read), or found in
   * an input folder (`kinds`: the one its bytes showed). A found archive holding no
   * consumption file (a workbook saved beside the data, say) counts as one ignored file,
   * not as each of its entries.
   */
  const addArchive = async (path: string, displayName: string, kinds: readonly ArchiveKind[] | undefined, found: boolean) => {
    const real = await realpath(path);
    if (seenArchives.has(real)) return;
    seenArchives.add(real);
    const ignoredEntries: string[] = [];
    const badBefore = index.badFiles;
    const context = { limits, parse, location, report, ignore: found ? (name: string) => void ignoredEntries.push(name) : ignore, syncthing };
    const indexed = await indexArchive(path, displayName, context, kinds);
    if (!indexed) {
      if (found && index.badFiles === badBefore) ignore(displayName);
      return;
    }
    ignoredEntries.forEach(ignore);
    archives.push(indexed.archive);
    for (const source of indexed.sources) table.addZipSource(source);
  };

  /**
   * A file in an input folder that is not at a consumption path: read as an archive when its
   * bytes are one of a kind read (the zips `fetch` writes into a folder, say), else ignored.
   * Hidden files (`.name`: a download still in progress is `.<name>.part-...`) and files that
   * cannot be opened are ignored without a look.
   */
  const addFolderFile = async (path: string, displayName: string) => {
    if (basename(path).startsWith(".")) return ignore(displayName);
    let kind: ArchiveKind | null;
    try {
      kind = await archiveKindOf(path, displayName, options.archiveKinds);
    } catch (error) {
      if (!(error instanceof BadFileError)) throw error;
      kind = null;
    }
    if (kind === null) ignore(displayName);
    else await addArchive(path, displayName, [kind], true);
  };

  try {
    for (const [i, path] of inputs.entries()) {
      const absolute = resolve(path);
      const input = options.inputNames?.[i] ?? path;
      if (kinds[i] === "dir") {
        const root = table.addRoot({ absolute, displayName: input });
        const prefix = absolute.endsWith(sep) ? absolute : `${absolute}${sep}`;
        const otherFiles: { path: string; displayName: string }[] = [];
        walkTree(absolute, input, (item) => {
          if (item.kind === "error") report(item.error);
          else if (item.kind === "syncthing") syncthing(item.displayName);
          else if (item.kind === "other") notAFile(item.path, item.displayName, item.what);
          else if (item.kind === "outside") linkOutside(item.path, item.displayName, item.target, item.folder, input);
          else {
            const parsed = parse(item.path, item.displayName);
            if (parsed === "ignored") otherFiles.push({ path: item.path, displayName: item.displayName });
            else if (typeof parsed !== "string") {
              const relative = item.path.startsWith(prefix) ? item.path.slice(prefix.length) : relativePath(absolute, item.path);
              addTreeFile(root, item.path, relative, item.displayName, parsed);
            }
          }
        });
        for (const file of otherFiles) await addFolderFile(file.path, file.displayName);
      } else {
        const parsed = parse(absolute, input);
        if (parsed === "ignored") await addArchive(absolute, input, options.archiveKinds, false);
        else if (typeof parsed !== "string") addTreeFile(table.addRoot({ absolute, displayName: input }), absolute, "", input, parsed);
      }
    }
  } catch (error) {
    await index.close();
    throw error;
  }

  order = table.sorted();
  duplicate = duplicateFiles(table, order);
  for (let i = 0; i < table.length; i++) {
    if (duplicate[i]) continue;
    index.filesTotal++;
    index.bytesTotal += table.sizeBytes(i);
  }
  return index;
}

/**
 * The rows that are a tree file already indexed under the same path (the same file given
 * twice: a folder and its parent, or one file also inside a folder given): the same path is
 * the same account-hour, so its copies are in one group; the first added is kept.
 */
function duplicateFiles(table: SourceTable, order: Uint32Array): Uint8Array {
  const duplicate = new Uint8Array(table.length);
  for (const group of accountHours(table, order)) {
    if (group.length < 2) continue;
    const seen = new Set<string>();
    for (const row of [...group].sort((a, b) => a - b)) {
      const path = table.path(row);
      if (path === undefined) continue;
      if (seen.has(path)) duplicate[row] = 1;
      seen.add(path);
    }
  }
  return duplicate;
}

/** The runs of rows of `order` with the same account and hour. */
function* accountHours(table: SourceTable, order: Uint32Array): Generator<Uint32Array> {
  for (let start = 0; start < order.length;) {
    const first = order[start]!;
    let end = start + 1;
    while (end < order.length && table.accountId(order[end]!) === table.accountId(first) && table.hourEpoch(order[end]!) === table.hourEpoch(first)) end++;
    yield order.subarray(start, end);
    start = end;
  }
}

/** Whether a path's account-hour is in `select` (every one without it). */
function selection(select: AccountHourSelection | undefined): (parsed: ConsumptionPath) => boolean {
  if (select === undefined) return () => true;
  return (p) => inPeriod(select, p.accountId, p.hourEpoch);
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
