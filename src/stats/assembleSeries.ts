import type { SeriesLayout } from "./seriesDefinition.js";
import type { SeriesArray, SeriesTree } from "./types.js";

/** One row of a series query: the hour, up to two keys below the series name, the value (null: an impossible value entered it). */
export interface SeriesRow {
  hourEpoch: number;
  k1: string | null;
  k2: string | null;
  value: number | null;
}

/**
 * Lays out the rows of one series query as arrays aligned with `time` (`indexOfHour` maps an
 * hour to its position). Sums over nothing are 0 (`array`, `fixed`); an absent disk or NIC
 * is `null` (`keyed`), and so is a value an impossible value entered (docs/warehouse.md). Rows at hours outside `time` are not the entity's and are dropped.
 */
export function assembleSeries(
  layout: SeriesLayout,
  hours: number,
  indexOfHour: Map<number, number>,
  rows: Iterable<SeriesRow>,
): SeriesTree {
  if (layout.kind === "array") {
    const values: SeriesArray = new Array<number | null>(hours).fill(0);
    for (const row of rows) {
      const i = indexOfHour.get(row.hourEpoch);
      if (i !== undefined) values[i] = row.value;
    }
    return values;
  }
  const tree: { [key: string]: SeriesTree } = {};
  const fill = layout.kind === "fixed" ? 0 : null;
  if (layout.kind === "fixed") for (const path of layout.paths) arrayAt(tree, path, hours, fill);
  const depth = layout.kind === "fixed" ? (layout.paths[0]?.length ?? 1) : layout.depth;
  for (const row of rows) {
    const i = indexOfHour.get(row.hourEpoch);
    if (i === undefined) continue;
    const path = [row.k1 ?? "", row.k2 ?? ""].slice(0, depth);
    if (layout.kind === "keyed" && layout.depth === 2 && tree[path[0]!] === undefined) {
      for (const leaf of layout.leaves) arrayAt(tree, [path[0]!, leaf], hours, fill);
    }
    arrayAt(tree, path, hours, fill)[i] = row.value;
  }
  return tree;
}

function arrayAt(
  tree: { [key: string]: SeriesTree },
  path: readonly string[],
  hours: number,
  fill: 0 | null,
): SeriesArray {
  let node = tree;
  for (const key of path.slice(0, -1)) {
    const child = node[key];
    if (child === undefined || Array.isArray(child)) node = node[key] = {};
    else node = child;
  }
  const last = path[path.length - 1] ?? "";
  const found = node[last];
  if (Array.isArray(found)) return found;
  const values: SeriesArray = new Array<number | null>(hours).fill(fill);
  node[last] = values;
  return values;
}
