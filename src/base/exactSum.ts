import { withRoom } from "./growArray.js";

/**
 * Exact sums of finite doubles, rounded once, correctly (half-even), when read: the partials
 * of Shewchuk's algorithm, as in Python's `math.fsum`. A sum does not depend on the order of
 * its terms, nor on how they are split and merged: billing from files (on any number of
 * workers) and from a database give the same figures to the bit, whatever order their rows
 * come in.
 *
 * `SumBank` holds many sums in one typed array: a sum whose terms so far add up exactly in
 * one double (the common case: MB, vCPUs, GB and bytes are whole numbers) is that double;
 * only the others keep a list of partials.
 */
export class SumBank {
  private single: Float64Array;
  private partials: (number[] | undefined)[] = [];
  private used = 0;

  constructor(capacity = 64) {
    this.single = new Float64Array(Math.max(1, capacity));
  }

  /** The number of sums allocated. */
  get size(): number {
    return this.used;
  }

  /** Allocates `count` sums, all 0; returns the index of the first. */
  alloc(count: number): number {
    const first = this.used;
    // the check here, where `single` is always a Float64Array: `withRoom` takes every kind of array, too many for its call to be cheap
    if (first + count > this.single.length) this.single = withRoom(this.single, first, first + count);
    const single = this.single;
    const partials = this.partials;
    for (let i = first; i < first + count; i++) {
      // a loop: fill() costs more than it saves for a few sums
      single[i] = 0;
      partials[i] = undefined;
    }
    this.used = first + count;
    return first;
  }

  /** Forgets every sum from index `from` on (scratch sums reused from one account-hour to the next). */
  truncate(from: number): void {
    this.used = from;
  }

  /** Adds a finite double to sum `i`. */
  add(i: number, x: number): void {
    const list = this.partials[i];
    if (list === undefined) {
      const a = this.single[i]!;
      const s = a + x;
      const b = s - a;
      const error = a - (s - b) + (x - b); // Knuth's TwoSum: a + x = s + error exactly
      if (error === 0) this.single[i] = s;
      else this.partials[i] = [error, s];
      return;
    }
    addPartial(list, x);
  }

  /**
   * Adds `count` times the finite double `x` to sum `i`, exactly: `count · x` is rarely a
   * double, so both halves of the exact product go in (Dekker's TwoProduct): the same sum as
   * adding `x` `count` times, to the bit.
   */
  addTimes(i: number, x: number, count: number): void {
    if (count === 1) {
      this.add(i, x);
      return;
    }
    const p = x * count;
    this.add(i, p);
    const error = twoProductError(x, count, p);
    if (error !== 0) this.add(i, error);
  }

  /** Sets sum `i` to `x`. */
  set(i: number, x: number): void {
    this.single[i] = x;
    this.partials[i] = undefined;
  }

  /** Adds every term of sum `j` of `other` to sum `i`, exactly. */
  addSum(i: number, other: SumBank, j: number): void {
    const list = other.partials[j];
    if (list === undefined) this.add(i, other.single[j]!);
    else for (const p of list) this.add(i, p);
  }

  /** Adds `count` times every term of sum `j` of `other` to sum `i`, exactly (see {@link addTimes}). */
  addSumTimes(i: number, other: SumBank, j: number, count: number): void {
    const list = other.partials[j];
    if (list === undefined) this.addTimes(i, other.single[j]!, count);
    else for (const p of list) this.addTimes(i, p, count);
  }

  /** Sum `i`, correctly rounded. */
  value(i: number): number {
    const list = this.partials[i];
    return list === undefined ? this.single[i]! : roundPartials(list);
  }

  /**
   * Appends the terms of sums `from .. from + count` (their exact sums are the sums) to
   * `terms`, and how many each has to `counts`: what sums are sent between threads as.
   */
  exportTerms(from: number, count: number, counts: number[], terms: number[]): void {
    for (let i = from; i < from + count; i++) {
      const list = this.partials[i];
      if (list === undefined) {
        counts.push(1);
        terms.push(this.single[i]!);
      } else {
        counts.push(list.length);
        for (const p of list) terms.push(p);
      }
    }
  }

  /** Adds to sums `to .. to + count` the terms read from `terms` at `at`, `counts[c ..]` of them each; returns the next `at`. */
  importTerms(
    to: number,
    count: number,
    counts: ArrayLike<number>,
    c: number,
    terms: ArrayLike<number>,
    at: number,
  ): number {
    for (let k = 0; k < count; k++) {
      for (let n = counts[c + k]!; n > 0; n--) this.add(to + k, terms[at++]!);
    }
    return at;
  }
}

/** Veltkamp's split of a double into two halves of 26 bits: `[hi, lo]`, hi + lo = a exactly. */
function split(a: number): [number, number] {
  const c = 134217729 * a; // 2^27 + 1
  const hi = c - (c - a);
  return [hi, a - hi];
}

/** The rounding error of `p = a * b`: a · b = p + error exactly (Dekker; finite values far from overflow). */
export function twoProductError(a: number, b: number, p: number): number {
  const [ah, al] = split(a);
  const [bh, bl] = split(b);
  return ah * bh - p + ah * bl + al * bh + al * bl;
}

/** Adds `x` to non-overlapping partials in increasing magnitude, keeping them so (Shewchuk). */
function addPartial(partials: number[], term: number): void {
  let x = term;
  let i = 0;
  for (let j = 0; j < partials.length; j++) {
    let y = partials[j]!;
    if (Math.abs(x) < Math.abs(y)) {
      const t = x;
      x = y;
      y = t;
    }
    const hi = x + y;
    const lo = y - (hi - x);
    if (lo !== 0) partials[i++] = lo;
    x = hi;
  }
  // the list cut to `i` partials and `x` after them: most often as long as before (or one longer),
  // where setting an array's length costs more than the sum
  partials[i] = x;
  if (partials.length !== i + 1) partials.length = i + 1;
}

/** The exact sum of partials, correctly rounded (half-even). */
function roundPartials(partials: readonly number[]): number {
  let n = partials.length;
  if (n === 0) return 0;
  let hi = partials[--n]!;
  let lo = 0;
  while (n > 0) {
    const x = hi;
    const y = partials[--n]!;
    hi = x + y;
    lo = y - (hi - x);
    if (lo !== 0) break;
  }
  // a tie in the last place is decided by the sign of the partials below it
  if (n > 0 && ((lo < 0 && partials[n - 1]! < 0) || (lo > 0 && partials[n - 1]! > 0))) {
    const y = lo * 2;
    const x = hi + y;
    if (y === x - hi) hi = x;
  }
  return hi;
}

/** The correctly rounded sum of `terms`, whatever their order. */
export function exactSum(terms: Iterable<number>): number {
  const partials: number[] = [];
  for (const t of terms) addPartial(partials, t);
  return roundPartials(partials);
}
