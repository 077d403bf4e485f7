/** The median of values (NaN for none). */
export function median(values: ArrayLike<number>): number {
  if (values.length === 0) return Number.NaN;
  return sortedMedian(Float64Array.from(values).sort(), values.length);
}

/** The median of a few values (the same slot of up to 4 weeks), sorting them in place (NaN for none). */
export function smallMedian(values: number[]): number {
  for (let i = 1; i < values.length; i++) {
    const v = values[i]!;
    let j = i - 1;
    for (; j >= 0 && values[j]! > v; j--) values[j + 1] = values[j]!;
    values[j + 1] = v;
  }
  return values.length === 0 ? Number.NaN : sortedMedian(values, values.length);
}

/** The median of the first `n` values of `sorted` (ascending). */
function sortedMedian(sorted: ArrayLike<number>, n: number): number {
  const mid = n >> 1;
  return n % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The first of the first `n` values of `sorted` (ascending) that is not below `value` (`n` when none). */
export function lowerBound(sorted: ArrayLike<number>, n: number, value: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** How far a value stands from a baseline: its median, its robust spread and the score. */
export interface RobustScore {
  median: number;
  /** 1.4826 × MAD, at least `relativeFloor` × |median| and `absoluteFloor` (a flat baseline still tolerates small moves). */
  scale: number;
  /** (value − median) / scale. */
  score: number;
}

/** The scale of a baseline of median `m` and MAD `mad` (see `robustScore`). */
const scaleOf = (m: number, mad: number, relativeFloor: number, absoluteFloor: number): number =>
  Math.max(1.4826 * mad, relativeFloor * Math.abs(m), absoluteFloor);

/**
 * The robust score of `value` against `baseline`: (value − median) / (1.4826 × MAD), the MAD
 * (median absolute deviation) scaled so it estimates a standard deviation of normal noise, and
 * floored at `relativeFloor` × |median| and at `absoluteFloor` (> 0), so that a flat series
 * (MAD 0) flags only a move of more than threshold × floor.
 */
export function robustScore(
  value: number,
  baseline: ArrayLike<number>,
  relativeFloor: number,
  absoluteFloor: number,
): RobustScore {
  const window = new SortedWindow(baseline.length);
  window.fill(baseline);
  return window.score(value, relativeFloor, absoluteFloor);
}

/**
 * A baseline that slides: values go in and out one at a time and stay sorted, so each point of
 * a series is scored against the values before it without sorting them again (inserting or
 * removing moves at most the window's values; the median is read, the MAD found among the
 * deviations on either side of it, which are sorted already). Scores are those of `robustScore`
 * over the same values, to the bit.
 */
export class SortedWindow {
  private values: Float64Array;
  private n = 0;

  constructor(capacity = 16) {
    this.values = new Float64Array(Math.max(1, capacity));
  }

  /** How many values it holds. */
  get size(): number {
    return this.n;
  }

  /** Empties it. */
  clear(): void {
    this.n = 0;
  }

  /** Holds exactly `values` (sorted once, where inserting them one by one would move them over and over). */
  fill(values: ArrayLike<number>): void {
    if (this.values.length < values.length) this.values = new Float64Array(values.length * 2);
    this.values.set(values);
    this.n = values.length;
    this.values.subarray(0, this.n).sort();
  }

  insert(value: number): void {
    if (this.n === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    const at = lowerBound(this.values, this.n, value);
    this.values.copyWithin(at + 1, at, this.n);
    this.values[at] = value;
    this.n++;
  }

  /** Removes one value equal to `value` (it must be held). */
  remove(value: number): void {
    const at = lowerBound(this.values, this.n, value);
    if (at >= this.n || !(this.values[at] === value || (Number.isNaN(value) && Number.isNaN(this.values[at])))) {
      throw new Error(`internal: ${value} is not in the window`);
    }
    this.values.copyWithin(at, at + 1, this.n);
    this.n--;
  }

  /** The median of the values held (NaN when none). */
  median(): number {
    return this.n === 0 ? Number.NaN : sortedMedian(this.values, this.n);
  }

  /**
   * The k-th smallest (from 0) of |v − m| over the values, m at or between positions `split - 1`
   * and `split`: the deviations left of `split` (m − v, growing leftwards) and right of it
   * (v − m, growing rightwards) are two sorted lists, so the k + 1 smallest are some `i` of the
   * left's first and the rest of the right's, `i` found by halving (not by walking k steps).
   */
  private deviation(m: number, split: number, k: number): number {
    const v = this.values;
    const left = (i: number) => m - v[split - 1 - i]!;
    const right = (j: number) => v[split + j]! - m;
    const take = k + 1;
    let lo = Math.max(0, take - (this.n - split));
    let hi = Math.min(take, split);
    // the fewest taken from the left such that the left's next is not below the right's last taken
    while (lo < hi) {
      const i = (lo + hi) >> 1;
      if (left(i) < right(take - i - 1)) lo = i + 1;
      else hi = i;
    }
    const j = take - lo;
    if (lo === 0) return right(j - 1);
    if (j === 0) return left(lo - 1);
    return Math.max(left(lo - 1), right(j - 1));
  }

  /** The MAD of the values held: the median of their absolute deviations from `m`, their median. */
  mad(m: number): number {
    const n = this.n;
    const split = lowerBound(this.values, this.n, m);
    const mid = n >> 1;
    return n % 2 === 1
      ? this.deviation(m, split, mid)
      : (this.deviation(m, split, mid - 1) + this.deviation(m, split, mid)) / 2;
  }

  /** `robustScore` of `value` against the values held. */
  score(value: number, relativeFloor: number, absoluteFloor: number): RobustScore {
    const m = this.median();
    const scale = scaleOf(m, this.mad(m), relativeFloor, absoluteFloor);
    return { median: m, scale, score: (value - m) / scale };
  }
}
