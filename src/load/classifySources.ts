import { BadFileError } from "../base/errors.js";
import type { Source } from "../input/types.js";

/** A source file with the hex SHA-256 of its bytes, and its size (kept apart: its bytes may move to a worker). */
export interface HashedSource {
  source: Source;
  sha256: string;
  sizeBytes: number;
}

/** A file that is bad on its own: it cannot be read or decoded. */
export type BadSource = HashedSource & { error: BadFileError };

/** What the files found for one account-hour amount to. */
export interface SourceClassification {
  /** The files to decode, one per slot (the `Account` file, or one file per cloud space), in input order. */
  kept: HashedSource[];
  /** Byte-identical copies of a kept file, dropped; `of` is the kept copy's display name. */
  duplicates: (HashedSource & { of: string })[];
  /** Every decodable file of the account-hour when two of them differ for one slot (nothing is kept then); else empty. */
  conflicting: HashedSource[];
  /** Files that cannot be read or decoded, each with its own error: never part of a conflict. */
  bad: BadSource[];
  /**
   * Good files of a split hour one of whose cloud spaces has only bad files: the hour is
   * not loaded (nothing is kept then); `bad` names why. Else empty.
   */
  incomplete: HashedSource[];
}

/** Tells whether a file decodes on its own: its error when it does not. */
export type DecodeCheck = (file: HashedSource) => BadFileError | undefined;

/**
 * The slot a file fills in its account-hour: the whole `Account`, or one cloud space's
 * `<cloudSpaceId>.bin` (its base name without `.packed`).
 */
export function sourceSlot(source: Pick<Source, "root" | "name" | "entry">): string {
  if (source.root === "Account") return "Account";
  const name = source.entry ?? source.name;
  const base = name.slice(name.lastIndexOf("/") + 1);
  return `CloudSpace:${base.replace(/\.packed$/, "")}`;
}

const groupBy = <T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> => {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const list = groups.get(key(item));
    if (list) list.push(item);
    else groups.set(key(item), [item]);
  }
  return groups;
};

/**
 * The files that would take part in a conflict if they all decoded: every file when roots
 * mix, those of a slot whose copies differ, and those unlike every file already loaded.
 */
function contested(files: readonly HashedSource[], loadedSha256: ReadonlySet<string>): Set<HashedSource> {
  if (new Set(files.map((s) => s.source.root)).size > 1) return new Set(files);
  const out = new Set<HashedSource>();
  for (const list of groupBy(files, (s) => sourceSlot(s.source)).values()) {
    if (list.some((s) => s.sha256 !== list[0]!.sha256)) for (const s of list) out.add(s);
  }
  if (loadedSha256.size > 0) for (const s of files) if (!loadedSha256.has(s.sha256)) out.add(s);
  return out;
}

/**
 * Sorts the files of one account-hour (the same hour may be found in several zips and
 * trees, or already be loaded) into kept files, byte-identical duplicates, bad files and
 * conflicts (docs/cli.md):
 * - a file that cannot be read (passed with its `error`) or decoded is bad on its own, named
 *   with its own reason, and never part of a conflict; whether a file decodes is asked of
 *   `decodes` only for files that would otherwise conflict (once per distinct content);
 * - files with the same bytes (SHA-256) for one slot are one file: the first is kept, the
 *   others are duplicates, dropped silently (but counted);
 * - two different decodable files for one slot, or an `Account` file beside `CloudSpace`
 *   files, are a conflict: nothing of the account-hour is kept and every such file is named;
 * - a split hour (`CloudSpace` files) one of whose cloud spaces has only bad files is not
 *   loaded: its good files are `incomplete`.
 * `loadedSha256` holds the hashes of the files already loaded for the hour: a file unlike
 * all of them is checked too (it is then compared with them by the caller).
 */
export function classifySources(
  sources: readonly (HashedSource & { error?: BadFileError })[],
  decodes: DecodeCheck,
  loadedSha256: ReadonlySet<string> = new Set(),
): SourceClassification {
  const bad: BadSource[] = [];
  const readable: HashedSource[] = [];
  for (const s of sources) {
    if (s.error !== undefined) bad.push({ ...s, error: s.error });
    else readable.push(s);
  }
  const verdicts = new Map<string, BadFileError | undefined>();
  const toCheck = contested(readable, loadedSha256);
  const good = readable.filter((s) => {
    if (!toCheck.has(s)) return true;
    if (!verdicts.has(s.sha256)) verdicts.set(s.sha256, decodes(s));
    const error = verdicts.get(s.sha256);
    if (error === undefined) return true;
    bad.push({
      ...s,
      error: error.file === s.source.name ? error : new BadFileError(error.code, s.source.name, error.reason),
    });
    return false;
  });
  const none = { kept: [], duplicates: [], conflicting: [], bad, incomplete: [] };
  if (good.length === 0) return none;

  // Every cloud space of a split hour needs a good file (a bad Account file beside cloud-space files is just bad).
  const roots = new Set(good.map((s) => s.source.root));
  const needed = new Set(sources.filter((s) => roots.has(s.source.root)).map((s) => sourceSlot(s.source)));
  const present = new Set(good.map((s) => sourceSlot(s.source)));
  if ([...needed].some((slot) => !present.has(slot))) return { ...none, incomplete: good };

  const bySlot = groupBy(good, (s) => sourceSlot(s.source));
  const differing = [...bySlot.values()].some((list) => list.some((s) => s.sha256 !== list[0]!.sha256));
  if (roots.size > 1 || differing) return { ...none, conflicting: good };
  const kept: HashedSource[] = [];
  const duplicates: (HashedSource & { of: string })[] = [];
  for (const list of bySlot.values()) {
    const first = list[0]!;
    kept.push(first);
    for (const copy of list.slice(1)) duplicates.push({ ...copy, of: first.source.name });
  }
  const order = new Map(sources.map((s, i) => [s.source, i]));
  kept.sort((a, b) => order.get(a.source)! - order.get(b.source)!);
  return { kept, duplicates, conflicting: [], bad, incomplete: [] };
}
