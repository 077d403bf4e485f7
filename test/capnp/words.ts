// Builds Cap'n Proto messages word by word, for the malformed and edge cases the reference
// library never writes. A word is [lo, hi]: its two little-endian 32-bit halves.
export type Word = readonly [number, number];

export const NULL: Word = [0, 0];

/** A struct pointer: target at `offsetWords` after the pointer's own word. */
export function structPtr(offsetWords: number, dataWords: number, pointerCount: number): Word {
  return [(offsetWords << 2) | 0, dataWords | (pointerCount << 16)];
}

/** Element size codes of list pointers. */
export const VOID = 0,
  BIT = 1,
  BYTE = 2,
  FOUR_BYTES = 4,
  EIGHT_BYTES = 5,
  POINTER = 6,
  COMPOSITE = 7;

/** A list pointer; `count` is the element count, or the word count for a composite list. */
export function listPtr(offsetWords: number, elementSize: number, count: number): Word {
  return [(offsetWords << 2) | 1, (count * 8 + elementSize) >>> 0];
}

/** A far pointer to a landing pad at word `padWord` of `segment`. */
export function farPtr(segment: number, padWord: number, double = false): Word {
  return [((padWord << 3) | (double ? 4 : 0) | 2) >>> 0, segment];
}

/** The tag word of a composite list. */
export function tag(count: number, dataWords: number, pointerCount: number): Word {
  return [count << 2, dataWords | (pointerCount << 16)];
}

/** A data word from two 32-bit values. */
export function data(lo: number, hi = 0): Word {
  return [lo >>> 0, hi >>> 0];
}

/** A data word holding two Float32 values. */
export function floats(lo: number, hi = 0): Word {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat32(0, lo, true);
  view.setFloat32(4, hi, true);
  return [view.getUint32(0, true), view.getUint32(4, true)];
}

/** The words of a text's bytes (NUL-terminated unless `nul` is false), zero-padded. */
export function textWords(text: string, nul = true): Word[] {
  const bytes = new TextEncoder().encode(text + (nul ? "\0" : ""));
  const padded = new Uint8Array(Math.ceil(bytes.length / 8) * 8);
  padded.set(bytes);
  const view = new DataView(padded.buffer);
  return Array.from(
    { length: padded.length / 8 },
    (_, i) => [view.getUint32(8 * i, true), view.getUint32(8 * i + 4, true)] as Word,
  );
}

/** The byte length of a text with its NUL, as a Text list pointer counts it. */
export function textBytes(text: string): number {
  return new TextEncoder().encode(text).length + 1;
}

/** A standard-framed message of the given segments. */
export function message(...segments: Word[][]): Uint8Array {
  const tableWords = Math.floor(segments.length / 2) + 1;
  const totalWords = tableWords + segments.reduce((n, s) => n + s.length, 0);
  const bytes = new Uint8Array(totalWords * 8);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, segments.length - 1, true);
  segments.forEach((s, i) => view.setUint32(4 + 4 * i, s.length, true));
  let at = tableWords * 8;
  for (const segment of segments) {
    for (const [lo, hi] of segment) {
      view.setUint32(at, lo >>> 0, true);
      view.setUint32(at + 4, hi >>> 0, true);
      at += 8;
    }
  }
  return bytes;
}

/** Packs a message word by word (no runs beyond the required counts of 0). */
export function pack(bytes: Uint8Array): Uint8Array {
  const out: number[] = [];
  for (let at = 0; at < bytes.length; at += 8) {
    const word = bytes.subarray(at, at + 8);
    let tag = 0;
    word.forEach((b, i) => {
      if (b !== 0) tag |= 1 << i;
    });
    out.push(tag, ...word.filter((b) => b !== 0));
    if (tag === 0x00 || tag === 0xff) out.push(0);
  }
  return new Uint8Array(out);
}
