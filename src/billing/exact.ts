/**
 * Exact rational numbers (BigInt numerator / denominator) for money: a price times a
 * quantity is kept exact, and rounding happens only at presentation (half-even). Every money
 * amount the library hands out is one (a bill's, a register document's, a receivable's, a
 * forecast's); an amount with a currency's decimals (`Exact.amount("12.30")`, `x.fixed(2)`) keeps
 * them in its text, so that `JSON.stringify` and `String` print `"12.30"`, not `"12.3"`.
 */
export class Exact {
  /** Numerator; the sign lives here (not necessarily reduced). */
  readonly num: bigint;
  /** Denominator, always > 0. */
  readonly den: bigint;
  /** The text an amount was written with (`Exact.amount`, `fixed`): what `toJSON` and `toString` give back. */
  readonly #written: string | undefined;

  /** Not reduced (reducing costs a gcd per operation); `reduced()` and the text forms reduce. */
  private constructor(num: bigint, den: bigint, written?: string) {
    this.num = den < 0n ? -num : num;
    this.den = den < 0n ? -den : den;
    this.#written = written;
  }

  /** The same value with numerator and denominator coprime. */
  reduced(): Exact {
    const g = gcd(this.num < 0n ? -this.num : this.num, this.den);
    return g > 1n ? new Exact(this.num / g, this.den / g) : this;
  }

  static readonly ZERO = new Exact(0n, 1n);

  /** A whole number or a fraction `num / den`. */
  static of(num: bigint | number, den: bigint | number = 1n): Exact {
    if (BigInt(den) === 0n) throw new RangeError("division by zero");
    return new Exact(BigInt(num), BigInt(den));
  }

  /**
   * A decimal string (`"0.0125"`, `"-3"`, `"1.5e-7"`) exactly; `undefined` when it is not one.
   */
  static parse(text: string): Exact | undefined {
    const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text.trim());
    if (!m || (m[2] === "" && (m[3] ?? "") === "")) return undefined;
    const [, sign, int = "", frac = "", exp = "0"] = m;
    let num = BigInt((int || "0") + frac) * (sign === "-" ? -1n : 1n);
    let den = 10n ** BigInt(frac.length);
    const e = Number(exp);
    if (e >= 0) num *= 10n ** BigInt(e);
    else den *= 10n ** BigInt(-e);
    return new Exact(num, den);
  }

  /**
   * A money amount as written (`"12.30"`, `"-1105.23"`, `"47241"` in JPY): the value `Exact.parse`
   * gives, whose `toJSON()` and `toString()` give `text` back, decimals and all. An amount read from
   * the register is one, so it prints what the register recorded. A RangeError when `text` is not a
   * decimal.
   */
  static amount(text: string): Exact {
    const value = Exact.parse(text);
    if (value === undefined) throw new RangeError(`not a decimal amount: ${JSON.stringify(text)}`);
    return new Exact(value.num, value.den, text);
  }

  /**
   * A float64 as the decimal it prints as (its shortest round-trip form, what every report
   * shows), so that quantity × unit price = amount holds on the figures a reader sees.
   */
  static fromNumber(value: number): Exact {
    if (!Number.isFinite(value)) throw new RangeError(`not a finite number: ${value}`);
    return Exact.parse(String(value))!;
  }

  add(other: Exact): Exact {
    if (this.den === other.den) return new Exact(this.num + other.num, this.den);
    return new Exact(this.num * other.den + other.num * this.den, this.den * other.den).reduced();
  }
  /** `this − other`, exact. */
  sub(other: Exact): Exact {
    return this.add(new Exact(-other.num, other.den));
  }
  mul(other: Exact): Exact {
    return new Exact(this.num * other.num, this.den * other.den);
  }
  div(other: Exact): Exact {
    if (other.num === 0n) throw new RangeError("division by zero");
    return new Exact(this.num * other.den, this.den * other.num);
  }
  equals(other: Exact): boolean {
    return this.num * other.den === other.num * this.den;
  }
  /**
   * -1, 0 or 1 as `this` is less than, equal to or greater than `other`, exactly: a comparator
   * for `sort` (`costs.sort((a, b) => b.amount.compare(a.amount))`: the largest first).
   */
  compare(other: Exact): -1 | 0 | 1 {
    const left = this.num * other.den;
    const right = other.num * this.den;
    return left < right ? -1 : left > right ? 1 : 0;
  }
  isZero(): boolean {
    return this.num === 0n;
  }

  /** Rounded half-even to `decimals` places, as a plain decimal string with exactly that many decimals (`"12.30"`). */
  toFixed(decimals: number): string {
    const scale = 10n ** BigInt(decimals);
    const scaled = this.num * scale;
    const negative = scaled < 0n;
    const abs = negative ? -scaled : scaled;
    let q = abs / this.den;
    const r = abs % this.den;
    if (r * 2n > this.den || (r * 2n === this.den && q % 2n === 1n)) q += 1n;
    const digits = q.toString().padStart(decimals + 1, "0");
    const text = decimals === 0 ? digits : `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
    return negative && q !== 0n ? `-${text}` : text;
  }

  /** Rounded half-even to `decimals` places, as an Exact. */
  round(decimals: number): Exact {
    return Exact.parse(this.toFixed(decimals))!;
  }

  /**
   * Rounded half-even to `decimals` places and written with exactly that many: an amount at a
   * currency's decimals, whose `toJSON()` and `toString()` give `"12.30"` (`Exact.amount(x.toFixed(2))`).
   */
  fixed(decimals: number): Exact {
    return Exact.amount(this.toFixed(decimals));
  }

  /** The exact value as a terminating decimal string when it is one, else `undefined`. */
  toDecimalString(): string | undefined {
    const r = this.reduced();
    if (r !== this) return r.toDecimalString();
    let d = this.den;
    let twos = 0;
    let fives = 0;
    while (d % 2n === 0n) {
      d /= 2n;
      twos++;
    }
    while (d % 5n === 0n) {
      d /= 5n;
      fives++;
    }
    if (d !== 1n) return undefined;
    const places = Math.max(twos, fives);
    const text = this.toFixed(places);
    return places === 0 ? text : text.replace(/\.?0+$/, "");
  }

  /**
   * `JSON.stringify` form: an amount's written text (`"12.30"`, see `Exact.amount` and `fixed`), else
   * the exact decimal string (`"12.3"`), or rounded half-even to 12 decimals when the fraction has no
   * terminating decimal. A string, so no digit is lost.
   */
  toJSON(): string {
    return this.#written ?? this.toDecimalString() ?? this.toFixed(12);
  }

  /** The same text as `toJSON()`: `${amount} ${currency}` prints `12.30 EUR`. */
  toString(): string {
    return this.toJSON();
  }

  /** The nearest float64 (for spreadsheets and Parquet, after rounding). */
  toNumber(): number {
    const text = this.toDecimalString();
    return text !== undefined ? Number(text) : Number(this.toFixed(20));
  }
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a === 0n ? 1n : a;
}
