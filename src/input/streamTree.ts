import { stat } from "node:fs/promises";
import { basename, relative as relativePath, resolve, sep } from "node:path";
import { archiveKindOf } from "./archive.js";
import { indexInputs, type IndexedSource, type InputIndex } from "./indexInputs.js";
import { InputIndexer } from "./inputIndexer.js";
import { resolveLimits } from "./limits.js";
import type { ListOptions } from "./types.js";
import { treeItems, type TreeItem } from "./walkTree.js";

/**
 * Thrown by the groups of a streamed index when the tree turned out not to be walked in
 * reading order after groups were handed out (or to hold what is listed in walk order: a bad
 * file, a Syncthing copy, an archive): the reader's consumer reads the inputs again, indexed
 * whole (`indexInputs`). Never seen by users.
 */
export class StreamFallback extends Error {
  constructor(why: string) {
    super(`internal: the tree cannot be read while it is walked (${why}); index it whole`);
  }
}

/** How many ignored paths the summary shows by name (as `indexInputs`). */
const IGNORED_EXAMPLES = 5;

/**
 * The index of `inputs`, handed out while the tree is still being walked when that is safe:
 * one input folder, larger than `lookaheadBytes` (walked first: a smaller tree is indexed
 * whole, in the same order as `indexInputs`), whose folders come in the order of its
 * account-hours when each folder's entries are taken by numeric value (`<accountId>/<year>/
 * <month>/<day>/<hour>/`, as the platform writes them). Each account-hour is handed out once
 * the walk has passed it. Its `filesTotal` and `bytesTotal` are what the walk found so far.
 * Anything else (several inputs, a file, a bad file, an archive inside the tree) is indexed by
 * `indexInputs`; once groups are out, the groups throw `StreamFallback` instead.
 */
export async function streamInputs(
  inputs: string[],
  options: ListOptions,
  lookaheadBytes: number,
): Promise<InputIndex> {
  if (inputs.length !== 1 || options.order === "hour" || !(await isFolder(inputs[0]!)))
    return indexInputs(inputs, options);
  const stream = new TreeStream(resolve(inputs[0]!), options.inputNames?.[0] ?? inputs[0]!, options);
  try {
    stream.walkUntil(lookaheadBytes);
    await stream.checkOtherFiles();
    if (!stream.walked && !stream.inOrder)
      throw new StreamFallback("its folders are not in the order of their account-hours");
  } catch (error) {
    if (error instanceof StreamFallback) return indexInputs(inputs, options);
    throw error;
  }
  return stream.index();
}

async function isFolder(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false; // indexInputs says why
  }
}

/**
 * One input folder walked a step at a time (entries by numeric value), strictly: its
 * consumption files go into the indexer's table in walk order, ignored files are counted (the
 * examples: the first in name order, as `indexInputs` shows them), and anything `indexInputs`
 * would report or list in walk order ends the stream (`StreamFallback`).
 */
class TreeStream {
  private readonly indexer: InputIndexer;
  private readonly items: Iterator<TreeItem>;
  private readonly root: number;
  private readonly prefix: string;
  private readonly ignored: string[] = [];
  private ignoredPaths = 0;
  private readonly others: { path: string; displayName: string }[] = [];
  private bytes = 0;
  /** The walk has ended. */
  walked = false;
  /** Groups are handed out while walking. */
  private streaming = false;
  /** Every row's account-hour is at or after the row before's. */
  inOrder = true;

  constructor(absolute: string, input: string, options: ListOptions) {
    this.indexer = new InputIndexer(resolveLimits(options), {
      ...options,
      onBadFile: (error) => {
        throw new StreamFallback(`a bad file: ${error.file}`);
      },
    });
    this.root = this.indexer.table.addRoot({ absolute, displayName: input });
    this.prefix = absolute.endsWith(sep) ? absolute : `${absolute}${sep}`;
    this.items = treeItems(absolute, input, "numeric");
  }

  /** Walks on until `bytes` more of consumption files are found (at least one file), or the walk ends. */
  walkUntil(bytes: number): void {
    const until = this.bytes + bytes;
    const table = this.indexer.table;
    while (!this.walked && (this.bytes < until || table.length === 0)) this.step();
  }

  /** Takes the walk's next item. */
  private step(): void {
    const next = this.items.next();
    if (next.done) {
      this.walked = true;
      return;
    }
    const item = next.value;
    if (item.kind !== "file")
      throw new StreamFallback(`${item.kind === "error" ? item.error.file : item.displayName} is not a plain file`);
    const parsed = this.indexer.parse(item.path, item.displayName);
    if (parsed === "ignored") return this.ignore(item.path, item.displayName);
    if (typeof parsed === "string") return; // not selected (a bad path has thrown)
    const table = this.indexer.table;
    const before = table.length;
    const relative = item.path.startsWith(this.prefix)
      ? item.path.slice(this.prefix.length)
      : relativePath(this.prefix, item.path);
    this.indexer.addTreeFile(this.root, item.path, relative, item.displayName, parsed);
    if (table.length === before) return;
    this.bytes += table.sizeBytes(before);
    if (before > 0 && compareKeys(table, before, before - 1) < 0) this.inOrder = false;
  }

  private ignore(path: string, displayName: string): void {
    this.ignoredPaths++;
    if (!basename(path).startsWith(".")) {
      // found once groups are out: it may be an archive `indexInputs` would read, and telling needs its first bytes, read asynchronously (rare in a consumption tree)
      if (this.streaming)
        throw new StreamFallback(`${displayName} is not at a consumption path, and may be an archive`);
      this.others.push({ path, displayName });
    }
    this.ignored.push(displayName);
    this.ignored.sort(walkOrder);
    this.ignored.length = Math.min(this.ignored.length, IGNORED_EXAMPLES);
  }

  /** After the first steps: an ignored file they found that is an archive would be read by `indexInputs` (hidden files are not looked at). */
  async checkOtherFiles(): Promise<void> {
    for (const { path, displayName } of this.others) {
      let kind;
      try {
        kind = await archiveKindOf(path, displayName, this.indexer.options.archiveKinds);
      } catch {
        kind = null;
      }
      if (kind !== null) throw new StreamFallback(`${displayName} is an archive`);
    }
  }

  /** The index: sorted when the walk has ended, else handed out as it goes. */
  index(): InputIndex {
    this.streaming = !this.walked;
    const stream = this;
    const table = this.indexer.table;
    const counts = this.indexer.counts;
    return {
      groups: this.walked ? () => sortedGroups(table, table.sorted()) : () => this.streamedGroups(),
      get filesTotal() {
        return table.length;
      },
      get bytesTotal() {
        return stream.bytes;
      },
      get ignoredPaths() {
        return stream.ignoredPaths;
      },
      ignoredExamples: this.ignored,
      syncthingCopies: counts.syncthingCopies,
      badFiles: 0,
      limits: this.indexer.limits,
      close: () => this.indexer.close(),
    };
  }

  /** The account-hours in walk order, each once the walk has passed it; throws `StreamFallback` when the walk goes back. */
  private *streamedGroups(): Generator<IndexedSource[]> {
    const table = this.indexer.table;
    for (let start = 0; ;) {
      let end = start + 1;
      for (;;) {
        while (end >= table.length && !this.walked) this.step();
        if (!this.inOrder) throw new StreamFallback("its folders are not in the order of their account-hours");
        if (end >= table.length || compareKeys(table, end, start) !== 0) break;
        end++;
      }
      if (start >= table.length) break;
      const rows = Uint32Array.from({ length: end - start }, (_, k) => start + k).sort(table.compareRows);
      yield Array.from(rows, (row) => table.source(row));
      start = end;
    }
  }
}

/** The order of two rows' account-hours. */
function compareKeys(table: InputIndexer["table"], a: number, b: number): number {
  return table.accountId(a) - table.accountId(b) || table.hourEpoch(a) - table.hourEpoch(b);
}

/** The groups of `order` (the sorted rows), by account-hour. */
function* sortedGroups(table: InputIndexer["table"], order: Uint32Array): Generator<IndexedSource[]> {
  for (let start = 0; start < order.length;) {
    let end = start + 1;
    while (end < order.length && compareKeys(table, order[end]!, order[start]!) === 0) end++;
    yield Array.from(order.subarray(start, end), (row) => table.source(row));
    start = end;
  }
}

/**
 * The order `walkTree` (by name) meets two paths below the same folder in: at the first
 * folder where they part, a file of that folder before its subfolders, else by name.
 */
export function walkOrder(a: string, b: string): number {
  const x = a.split(sep);
  const y = b.split(sep);
  let i = 0;
  while (i < x.length - 1 && i < y.length - 1 && x[i] === y[i]) i++;
  const fileX = i === x.length - 1;
  const fileY = i === y.length - 1;
  if (fileX !== fileY) return fileX ? -1 : 1;
  return x[i]! < y[i]! ? -1 : x[i]! > y[i]! ? 1 : 0;
}
