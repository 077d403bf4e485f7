/** The median, written plainly: sort a copy, its middle (the mean of the two middles of an even count). */
export function plainMedian(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** The robust score's definition, written plainly: the baseline's median; the absolute deviations' median (MAD). */
export function plainScore(value: number, baseline: number[], relativeFloor: number, absoluteFloor: number) {
  const m = plainMedian(baseline);
  const mad = plainMedian(baseline.map((x) => Math.abs(x - m)));
  const scale = Math.max(1.4826 * mad, relativeFloor * Math.abs(m), absoluteFloor);
  return { median: m, scale, score: (value - m) / scale };
}
