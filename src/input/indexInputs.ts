import { open, stat } from "node:fs/promises";
import { resolve } from "node:path";
import { UsageError, type BadFileError } from "../base/errors.js";
import { resolveLimits } from "./limits.js";
import type { ConsumptionPath } from "./parseConsumptionPath.js";
import type { InputLimits, ListOptions, SourceLocation } from "./types.js";
import type { SourceTable } from "./sourceTable.js";
import type { Archive, ArchiveEntry } from "./archive.js";
import { InputIndexer } from "./inputIndexer.js";

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
  const kinds = await Promise.all(inputs.map((input) => inputKind(input)));
  const indexer = new InputIndexer(resolveLimits(options), options);
  try {
    for (const [i, path] of inputs.entries()) {
      const input = options.inputNames?.[i] ?? path;
      if (kinds[i] === "dir") await indexer.addTree(resolve(path), input);
      else await indexer.addFile(resolve(path), input);
    }
  } catch (error) {
    await indexer.close();
    throw error;
  }
  return indexOf(indexer, options.order);
}

/** The index of what `indexer` found: its files sorted into account-hours, each tree file once. */
function indexOf(indexer: InputIndexer, by: ListOptions["order"]): InputIndex {
  const { table, counts } = indexer;
  const order = table.sorted(by);
  const duplicate = duplicateFiles(table, order);
  let filesTotal = 0;
  let bytesTotal = 0;
  for (let i = 0; i < table.length; i++) {
    if (duplicate[i]) continue;
    filesTotal++;
    bytesTotal += table.sizeBytes(i);
  }
  return {
    groups: function* () {
      for (const rows of accountHours(table, order)) {
        const group: IndexedSource[] = [];
        for (const row of rows) if (!duplicate[row]) group.push(table.source(row));
        yield group;
      }
    },
    filesTotal,
    bytesTotal,
    ...counts,
    limits: indexer.limits,
    close: () => indexer.close(),
  };
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
    while (
      end < order.length &&
      table.accountId(order[end]!) === table.accountId(first) &&
      table.hourEpoch(order[end]!) === table.hourEpoch(first)
    )
      end++;
    yield order.subarray(start, end);
    start = end;
  }
}

async function inputKind(input: string): Promise<"dir" | "file"> {
  try {
    const info = await stat(input);
    if (info.isDirectory()) return "dir";
    if (info.isFile()) {
      if (await isDuckDb(input)) {
        throw new UsageError(
          `${input} is a DuckDB warehouse, not consumption files: read it as a warehouse, db: ${input}`,
          { code: "INPUT_IS_WAREHOUSE" },
        );
      }
      return "file";
    }
    throw new UsageError(`input is neither a file nor a folder: ${input}`, { code: "INPUT_NOT_FOUND" });
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") {
      throw new UsageError(`input not found: ${input} (give a zip file or a folder of consumption files)`, {
        code: "INPUT_NOT_FOUND",
      });
    }
    throw new UsageError(`cannot read input ${input} (${(error as Error).message})`, {
      code: "INPUT_NOT_FOUND",
      cause: error,
    });
  }
}

/** Whether a file is a DuckDB database (its header says `DUCK` at byte 8): a warehouse given where inputs are read. */
export async function isDuckDb(file: string): Promise<boolean> {
  let handle;
  try {
    handle = await open(file, "r");
  } catch {
    return false; // unreadable: said when it is read, as any input
  }
  try {
    const head = Buffer.alloc(12);
    const { bytesRead } = await handle.read(head, 0, 12, 0);
    return bytesRead === 12 && head.subarray(8, 12).toString("latin1") === "DUCK";
  } finally {
    await handle.close();
  }
}
