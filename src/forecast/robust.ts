/** The median of values (NaN for none). */
export function median(values: ArrayLike<number>): number {
  if (values.length === 0) return Number.NaN;
  return sortedMedian(Float64Array.from(values).sort());
}

/** The median of values sorted ascending. */
function sortedMedian(sorted: Float64Array): number {
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** How far a value stands from a baseline: its median, its robust spread and the score. */
export interface RobustScore {
  median: number;
  /** 1.4826 × MAD, at least `relativeFloor` × |median| and `absoluteFloor` (a flat baseline still tolerates small moves). */
  scale: number;
  /** (value − median) / scale. */
  score: number;
}

/**
 * The robust score of `value` against `baseline`: (value − median) / (1.4826 × MAD), the MAD
 * (median absolute deviation) scaled so it estimates a standard deviation of normal noise, and
 * floored at `relativeFloor` × |median| and at `absoluteFloor` (> 0), so that a flat series
 * (MAD 0) flags only a move of more than threshold × floor.
 */
export function robustScore(value: number, baseline: ArrayLike<number>, relativeFloor: number, absoluteFloor: number): RobustScore {
  const sorted = Float64Array.from(baseline).sort();
  const m = sortedMedian(sorted);
  for (let i = 0; i < sorted.length; i++) sorted[i] = Math.abs(sorted[i]! - m);
  const mad = sortedMedian(sorted.sort());
  const scale = Math.max(1.4826 * mad, relativeFloor * Math.abs(m), absoluteFloor);
  return { median: m, scale, score: (value - m) / scale };
}
