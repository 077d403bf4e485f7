/**
 * The word arena of a Cap'n Proto message being written: segments, allocation, and
 * pointers (near, or far through a landing pad when the target is in another segment,
 * as the reference C++ library does). Schema-free; `encodeAccount.ts` lays out the structs.
 */

/** Pointer kinds of the wire format. */
export const STRUCT_POINTER = 0;
export const LIST_POINTER = 1;

/** List element sizes of the wire format. */
export const ELEMENT_BYTE = 2;
export const ELEMENT_COMPOSITE = 7;

/** A place in the message: segment index and word offset in it. */
export interface WordRef {
  segment: number;
  word: number;
}

interface Segment {
  bytes: Uint8Array;
  view: DataView;
  usedWords: number;
}

/** Words allocated for a single-segment message before it first grows. */
const INITIAL_WORDS = 1024;

/**
 * A message under construction. With `segmentWords`, segments have that capacity and an
 * allocation that does not fit opens a new segment (larger when one object needs it);
 * without it, the message is one segment that grows as needed.
 */
export class MessageWriter {
  private readonly segments: Segment[] = [];
  private readonly segmentWords: number | undefined;
  private readonly doubleFar: boolean;

  /** `doubleFar`: reach objects in other segments through two-word landing pads (double-far pointers). */
  constructor(segmentWords?: number, doubleFar = false) {
    this.segmentWords = segmentWords;
    this.doubleFar = doubleFar;
    this.addSegment(segmentWords ?? INITIAL_WORDS);
    this.segments[0]!.usedWords = 1; // the root pointer
  }

  /** The root pointer's place: segment 0, word 0. */
  get root(): WordRef {
    return { segment: 0, word: 0 };
  }

  /**
   * Allocates `words` zeroed words for an object referenced from the pointer at `from`,
   * writes that pointer (`kind`, and its upper word: struct sizes or list element size and
   * count), and returns where the object starts.
   */
  allocateFor(from: WordRef, words: number, kind: number, upper: number): WordRef {
    const near = this.tryAllocate(from.segment, words);
    if (near !== undefined) {
      this.writePointer(from.segment, from.word, near - from.word - 1, kind, upper);
      return { segment: from.segment, word: near };
    }
    if (this.doubleFar) return this.allocateDoubleFar(from, words, kind, upper);
    // A landing pad right before the object, in the object's segment; the pointer becomes far.
    let segment = this.segments.length - 1;
    let pad = segment === from.segment ? undefined : this.tryAllocate(segment, words + 1);
    if (pad === undefined) {
      segment = this.addSegment(Math.max(this.segmentWords ?? 0, words + 1));
      pad = this.tryAllocate(segment, words + 1)!;
    }
    this.writePointer(segment, pad, 0, kind, upper);
    const s = this.segments[from.segment]!;
    s.view.setUint32(from.word * 8, ((pad << 3) | 2) >>> 0, true);
    s.view.setUint32(from.word * 8 + 4, segment, true);
    return { segment, word: pad + 1 };
  }

  /**
   * The object in the last segment (or a new one), and a two-word landing pad in whichever
   * segment has room after it: a far pointer to the object's start, then a tag word with
   * the pointer's kind and sizes.
   */
  private allocateDoubleFar(from: WordRef, words: number, kind: number, upper: number): WordRef {
    const place = (size: number, notIn: number): WordRef => {
      const last = this.segments.length - 1;
      const start = last === notIn ? undefined : this.tryAllocate(last, size);
      if (start !== undefined) return { segment: last, word: start };
      const segment = this.addSegment(Math.max(this.segmentWords ?? 0, size));
      return { segment, word: this.tryAllocate(segment, size)! };
    };
    const object = place(words, from.segment);
    const pad = place(2, -1);
    const padView = this.segments[pad.segment]!.view;
    padView.setUint32(pad.word * 8, ((object.word << 3) | 2) >>> 0, true);
    padView.setUint32(pad.word * 8 + 4, object.segment, true);
    this.writePointer(pad.segment, pad.word + 1, 0, kind, upper);
    const s = this.segments[from.segment]!;
    s.view.setUint32(from.word * 8, ((pad.word << 3) | 4 | 2) >>> 0, true);
    s.view.setUint32(from.word * 8 + 4, pad.segment, true);
    return object;
  }

  /** The DataView of a segment, valid until the next allocation. */
  view(segment: number): DataView {
    return this.segments[segment]!.view;
  }

  /** The bytes of a segment, valid until the next allocation. */
  bytes(segment: number): Uint8Array {
    return this.segments[segment]!.bytes;
  }

  /** The framed message: segment table, then every segment's used words. */
  toBytes(): Uint8Array {
    const count = this.segments.length;
    const tableBytes = (4 * (count + 1) + 7) & ~7;
    let total = tableBytes;
    for (const s of this.segments) total += s.usedWords * 8;
    const out = new Uint8Array(total);
    const table = new DataView(out.buffer);
    table.setUint32(0, count - 1, true);
    let offset = tableBytes;
    this.segments.forEach((s, i) => {
      table.setUint32(4 * (i + 1), s.usedWords, true);
      out.set(s.bytes.subarray(0, s.usedWords * 8), offset);
      offset += s.usedWords * 8;
    });
    return out;
  }

  private writePointer(segment: number, word: number, offsetWords: number, kind: number, upper: number): void {
    const view = this.segments[segment]!.view;
    view.setUint32(word * 8, ((offsetWords << 2) | kind) >>> 0, true);
    view.setUint32(word * 8 + 4, upper >>> 0, true);
  }

  /** Allocates in one segment, growing it only in single-segment mode; the start word or undefined. */
  private tryAllocate(segment: number, words: number): number | undefined {
    const s = this.segments[segment]!;
    const capacity = s.bytes.length / 8;
    if (s.usedWords + words > capacity) {
      if (this.segmentWords !== undefined) return undefined;
      this.grow(s, s.usedWords + words);
    }
    const start = s.usedWords;
    s.usedWords += words;
    return start;
  }

  private grow(s: Segment, minWords: number): void {
    let words = s.bytes.length / 8;
    while (words < minWords) words *= 2;
    const bytes = new Uint8Array(words * 8);
    bytes.set(s.bytes.subarray(0, s.usedWords * 8));
    s.bytes = bytes;
    s.view = new DataView(bytes.buffer);
  }

  private addSegment(words: number): number {
    const bytes = new Uint8Array(words * 8);
    this.segments.push({ bytes, view: new DataView(bytes.buffer), usedWords: 0 });
    return this.segments.length - 1;
  }
}
