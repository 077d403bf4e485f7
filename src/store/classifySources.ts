import type { Source } from "../input/types.js";

/** A source file with the hex SHA-256 of its bytes, and its size (kept apart: its bytes may move to a worker). */
export interface HashedSource {
  source: Source;
  sha256: string;
  sizeBytes: number;
}

/** What the files found for one account-hour amount to. */
export interface SourceClassification {
  /** The files to decode, one per slot (the `Account` file, or one file per cloud space), in input order. */
  kept: HashedSource[];
  /** Byte-identical copies of a kept file, dropped; `of` is the kept copy's display name. */
  duplicates: (HashedSource & { of: string })[];
  /** Every file of the account-hour when two of them differ for one slot (nothing is kept then); else empty. */
  conflicting: HashedSource[];
}

/**
 * The slot a file fills in its account-hour: the whole `Account`, or one cloud space's
 * `<cloudSpaceId>.bin` (its base name without `.packed`).
 */
export function sourceSlot(source: Source): string {
  if (source.root === "Account") return "Account";
  const name = source.entry ?? source.name;
  const base = name.slice(name.lastIndexOf("/") + 1);
  return `CloudSpace:${base.replace(/\.packed$/, "")}`;
}

/**
 * Sorts the files of one account-hour (the same hour may be found in several zips and
 * trees) into kept files, byte-identical duplicates and conflicts:
 * - files with the same bytes (SHA-256) for one slot are one file: the first is kept, the
 *   others are duplicates, dropped silently (but counted);
 * - two different files for one slot, or an `Account` file beside `CloudSpace` files, are a
 *   conflict: nothing of the account-hour is kept and every file is named.
 */
export function classifySources(sources: readonly HashedSource[]): SourceClassification {
  const roots = new Set(sources.map((s) => s.source.root));
  const bySlot = new Map<string, HashedSource[]>();
  for (const s of sources) {
    const slot = sourceSlot(s.source);
    const list = bySlot.get(slot);
    if (list) list.push(s);
    else bySlot.set(slot, [s]);
  }
  const differing = [...bySlot.values()].some((list) => list.some((s) => s.sha256 !== list[0]!.sha256));
  if (roots.size > 1 || differing) return { kept: [], duplicates: [], conflicting: [...sources] };
  const kept: HashedSource[] = [];
  const duplicates: (HashedSource & { of: string })[] = [];
  for (const list of bySlot.values()) {
    const first = list[0]!;
    kept.push(first);
    for (const copy of list.slice(1)) duplicates.push({ ...copy, of: first.source.name });
  }
  const order = new Map(sources.map((s, i) => [s, i]));
  kept.sort((a, b) => order.get(a)! - order.get(b)!);
  return { kept, duplicates, conflicting: [] };
}
