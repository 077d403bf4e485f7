/**
 * A sum of finite doubles without rounding error until it is read: the partials of Shewchuk's
 * algorithm (as in Python's `math.fsum`), rounded once, correctly (half-even), by `value()`.
 * The result does not depend on the order of the terms, nor on how sums are split and
 * merged: billing from files (on any number of workers) and from a database give the same
 * figures to the bit, whatever order their rows come in.
 */
export class ExactSum {
  private partials: number[] = [];

  /** Adds a finite double (billing never holds NaN or ±Infinity: impossible values count as 0). */
  add(term: number): void {
    const partials = this.partials;
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
    partials.length = i;
    partials.push(x);
  }

  /** Adds every term of another sum, exactly. */
  addSum(other: ExactSum): void {
    for (const p of other.partials) this.add(p);
  }

  /** The sum, correctly rounded to a double. */
  value(): number {
    const partials = this.partials;
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
    // round half-even across the remaining partials: a tie in the last place is decided by their sign
    if (n > 0 && ((lo < 0 && partials[n - 1]! < 0) || (lo > 0 && partials[n - 1]! > 0))) {
      const y = lo * 2;
      const x = hi + y;
      if (y === x - hi) hi = x;
    }
    return hi;
  }
}

/** The correctly rounded sum of `terms` (see {@link ExactSum}). */
export function exactSum(terms: Iterable<number>): number {
  const sum = new ExactSum();
  for (const t of terms) sum.add(t);
  return sum.value();
}
