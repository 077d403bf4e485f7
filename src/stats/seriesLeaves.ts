import type { SeriesArray, SeriesTree } from "./types.js";

/** One array of a series, with the keys leading to it below the series name (`["11"]`, `["0", "in"]`). */
export interface SeriesLeaf {
  path: string[];
  values: SeriesArray;
}

/** The arrays of a series, depth first, in key order. */
export function seriesLeaves(tree: SeriesTree, path: string[] = []): SeriesLeaf[] {
  if (Array.isArray(tree)) return [{ path, values: tree }];
  return Object.entries(tree).flatMap(([key, child]) => seriesLeaves(child, [...path, key]));
}
