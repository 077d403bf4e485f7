/** One share of a split: who gets it (its id breaks ties) and its weight (≥ 0). */
export interface SplitShare {
  id: number;
  weight: number;
}

/**
 * Splits `total` minor units (cents) over shares in proportion to their weights by the
 * largest-remainder method: each share gets the whole part of `total × weight / Σweights`,
 * and the units left over go one each to the largest remainders, ties to the lower id.
 * When every weight is 0 the shares are equal. The parts always add up to `total` exactly.
 * Weights are taken as the decimals they print as, so the split does not depend on float
 * rounding. Returns the parts in the order of `shares`.
 */
export function splitAmount(total: bigint, shares: readonly SplitShare[]): bigint[] {
  if (shares.length === 0) return [];
  for (const s of shares) {
    if (!Number.isFinite(s.weight) || s.weight < 0) throw new RangeError(`bad weight ${s.weight} of share ${s.id}`);
  }
  const sign = total < 0n ? -1n : 1n;
  const magnitude = total * sign;
  const scaled = shares.map((s) => decimalOf(s.weight));
  const scale = scaled.reduce((m, d) => (d.places > m ? d.places : m), 0);
  const weights = scaled.map((d) => d.digits * 10n ** BigInt(scale - d.places));
  let sum = weights.reduce((a, b) => a + b, 0n);
  const equal = sum === 0n;
  if (equal) sum = BigInt(shares.length);
  const parts = weights.map((w) => (equal ? 1n : w) * magnitude);
  const whole = parts.map((p) => p / sum);
  let left = magnitude - whole.reduce((a, b) => a + b, 0n);
  const order = shares
    .map((s, i) => ({ i, id: s.id, remainder: parts[i]! % sum }))
    .sort((a, b) => (a.remainder === b.remainder ? a.id - b.id : a.remainder > b.remainder ? -1 : 1));
  for (const { i } of order) {
    if (left === 0n) break;
    whole[i]! += 1n;
    left -= 1n;
  }
  return whole.map((w) => w * sign);
}

/** A non-negative float64 as the digits and decimal places of the decimal it prints as. */
function decimalOf(value: number): { digits: bigint; places: number } {
  const m = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(value))!;
  const [, int, frac = "", exp = "0"] = m;
  let places = frac.length - Number(exp);
  let digits = BigInt(int! + frac);
  if (places < 0) {
    digits *= 10n ** BigInt(-places);
    places = 0;
  }
  return { digits, places };
}
