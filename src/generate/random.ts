/**
 * Deterministic randomness for the generator: a seeded stream (sfc32) for the plan of a
 * data set, and a stateless hash of integer keys for per-hour values, so that any hour
 * can be computed without the hours before it.
 */

/** Mixes integer keys into one 32-bit unsigned hash (murmur3 finaliser per key). */
export function hash32(...keys: number[]): number {
  let h = 0x9e3779b9;
  for (const key of keys) {
    // Split keys wider than 32 bits (epoch seconds fit, but seeds may not) into two words.
    const low = key | 0;
    const high = Math.floor(key / 0x1_0000_0000) | 0;
    h = mix(h ^ low);
    h = mix(h ^ high ^ 0x85ebca6b);
  }
  return h >>> 0;
}

function mix(x: number): number {
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) | 0;
}

/** A uniform number in [0, 1) for integer keys: the same keys always give the same number. */
export function unitFor(...keys: number[]): number {
  return hash32(...keys) / 0x1_0000_0000;
}

/** A seeded pseudo-random stream (sfc32): the same seed gives the same sequence. */
export class Random {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(...seedKeys: number[]) {
    this.a = hash32(1, ...seedKeys);
    this.b = hash32(2, ...seedKeys);
    this.c = hash32(3, ...seedKeys);
    this.d = 1;
    for (let i = 0; i < 12; i++) this.nextUint32();
  }

  /** The next 32-bit unsigned integer. */
  nextUint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** A uniform number in [0, 1). */
  next(): number {
    return this.nextUint32() / 0x1_0000_0000;
  }

  /** A uniform integer in [min, max], both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** One element of a non-empty array, uniformly. */
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /** The array shuffled (Fisher–Yates) into a new array. */
  shuffle<T>(items: readonly T[]): T[] {
    const out = items.slice();
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [out[i], out[j]] = [out[j] as T, out[i] as T];
    }
    return out;
  }
}
