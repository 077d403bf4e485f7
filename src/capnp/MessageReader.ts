import { CapnpError, type CapnpErrorCode } from "./CapnpError.js";
import type { Segments } from "./readSegments.js";
import type { TextCache } from "./TextCache.js";

const KIND_NAMES = ["struct", "list", "far", "capability"] as const;
/** The most elements a list can hold: its count field has 29 bits. */
const MAX_LIST_ELEMENTS = 2 ** 29 - 1;
/** Bits per element of each list element size code (7, composite, is handled apart). */
const ELEMENT_BITS = [0, 1, 8, 16, 32, 64, 64];

/**
 * Follows the pointers of one framed message with every check of the encoding: far and
 * double-far landing pads, bounds within the target segment, the kind each field expects,
 * composite list tags, NUL-terminated text, and the traversal, expansion and nesting limits.
 * The traversal and expansion limits count the same words (every struct, list element and
 * text each time a pointer reaches it, elements at least their schema size), so one budget,
 * the smaller limit, serves both; the code of a failure says which limit it broke.
 *
 * For speed, `struct` and `structList` leave their result in the fields below (no object per
 * pointer); callers copy them into locals before following the next pointer. All positions
 * are byte offsets into the message's bytes.
 */
export class MessageReader {
  readonly bytes: Uint8Array;
  readonly view: DataView;
  /** The file's display name for errors. */
  readonly name: string;
  private readonly starts: number[];
  private readonly ends: number[];
  /** Words the message may still read before the traversal or expansion limit stops it. */
  private budgetWords: number;
  private readonly startBudgetWords: number;
  private readonly traversalLimitWords: number;
  private readonly expansionLimitWords: number;
  private readonly nestingLimit: number;
  private readonly maxTextBytes: number;
  /**
   * Bytes of text the message may still make, charged at every pointer that reaches a text:
   * the file's own bytes. A file as the platform writes it holds each text once per field
   * that names it, so its texts never pass its size; pointers sharing one text could
   * otherwise copy it into every row that names it (7 machines × a 64 MB image name).
   */
  private textBudgetBytes: number;
  private readonly textLimitBytes: number;

  /** Result: the segment of the object found. */
  segment = 0;
  /** Result: the struct's data section, or the list's first element. */
  position = 0;
  /** Result: the struct's (or each element's) data section size, bytes. */
  dataBytes = 0;
  /** Result: the struct's (or each element's) pointer count. */
  pointerCount = 0;
  /** Result: the list's element count. */
  count = 0;
  /** Result: bytes from one list element to the next. */
  stepBytes = 0;

  // The pointer word that describes the object, after following far pointers.
  private targetLo = 0;
  private targetHi = 0;
  private target = 0;

  constructor(
    bytes: Uint8Array,
    segments: Segments,
    name: string,
    traversalLimitWords: number,
    expansionLimitWords: number,
    nestingLimit: number,
    maxTextBytes: number,
    textLimitBytes: number,
  ) {
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.name = name;
    this.starts = segments.starts;
    this.ends = segments.ends;
    this.traversalLimitWords = traversalLimitWords;
    this.expansionLimitWords = expansionLimitWords;
    // Not Math.min: its result can be a heap number, and the budget field would then make
    // every charge a boxed double store (a slower decode: docs/performance.md).
    this.budgetWords = this.startBudgetWords =
      traversalLimitWords < expansionLimitWords ? traversalLimitWords : expansionLimitWords;
    this.nestingLimit = nestingLimit;
    this.maxTextBytes = maxTextBytes;
    this.textBudgetBytes = this.textLimitBytes = textLimitBytes;
  }

  /** Words charged so far against the traversal and expansion limits. */
  get chargedWords(): number {
    return this.startBudgetWords - this.budgetWords;
  }

  /** Byte offset of the root pointer; fails when segment 0 is empty. */
  rootPointer(): number {
    if (this.ends[0]! - this.starts[0]! < 8)
      this.fail("CAPNP_BAD_POINTER", "segment 0 is empty: the message has no root pointer");
    return this.starts[0]!;
  }

  /**
   * Follows the struct pointer at `pointer` (in `segment`) to an object at nesting `depth`.
   * Returns false for a null pointer (the field's default); sets `segment`, `position`,
   * `dataBytes`, `pointerCount` otherwise.
   */
  struct(segment: number, pointer: number, depth: number): boolean {
    if (!this.resolve(segment, pointer)) return false;
    const lo = this.targetLo;
    if ((lo & 3) !== 0) this.failKind(segment, pointer, "struct", lo);
    if (depth > this.nestingLimit) this.failDepth(depth);
    const hi = this.targetHi;
    const dataWords = hi & 0xffff;
    const words = dataWords + (hi >>> 16);
    const start = this.target;
    this.checkBounds(start, words, "struct", segment, pointer);
    this.charge(words);
    this.position = start;
    this.dataBytes = dataWords * 8;
    this.pointerCount = hi >>> 16;
    return true;
  }

  /**
   * Follows the list pointer at `pointer` to a list of structs at nesting `depth` (its
   * elements at `depth + 1`). Composite lists and, as the reference library does, lists of
   * bytes, words or pointers read as structs; bit lists are refused. Returns false for a null
   * pointer; sets `segment`, `position`, `count`, `stepBytes`, `dataBytes`, `pointerCount`.
   *
   * Each element is charged at least `elementWords` (the schema's size of the struct), so a
   * list of empty or small elements costs the traversal limit what a list of real ones costs,
   * and the records made from any file stay within a few times what real data makes.
   */
  structList(segment: number, pointer: number, depth: number, elementWords: number): boolean {
    if (!this.resolve(segment, pointer)) return false;
    const lo = this.targetLo;
    if ((lo & 3) !== 1) this.failKind(segment, pointer, "list", lo);
    if (depth > this.nestingLimit) this.failDepth(depth);
    const hi = this.targetHi;
    const elementSize = hi & 7;
    const start = this.target;
    if (elementSize === 7) {
      const words = hi >>> 3;
      this.checkBounds(start, words + 1, "list", segment, pointer);
      const view = this.view;
      const tagLo = view.getInt32(start, true);
      const tagHi = view.getUint32(start + 4, true);
      const count = tagLo >>> 2;
      const dataWords = tagHi & 0xffff;
      const wordsPerElement = dataWords + (tagHi >>> 16);
      if ((tagLo & 3) !== 0 || count > MAX_LIST_ELEMENTS || count * wordsPerElement > words) {
        this.failComposite(start, tagLo, count, wordsPerElement, words);
      }
      this.charge(Math.max(words + 1, count * elementWords));
      this.position = start + 8;
      this.count = count;
      this.stepBytes = wordsPerElement * 8;
      this.dataBytes = dataWords * 8;
      this.pointerCount = tagHi >>> 16;
    } else {
      if (elementSize === 1) this.failBits(segment, pointer);
      const count = hi >>> 3;
      const bits = ELEMENT_BITS[elementSize]!;
      const words = Math.ceil((count * bits) / 64);
      this.checkBounds(start, words, "list", segment, pointer);
      this.charge(Math.max(words, count * elementWords));
      this.position = start;
      this.count = count;
      this.stepBytes = bits / 8;
      this.dataBytes = elementSize === 6 ? 0 : bits / 8;
      this.pointerCount = elementSize === 6 ? 1 : 0;
    }
    if (this.count > 0 && depth + 1 > this.nestingLimit) this.failDepth(depth + 1);
    return true;
  }

  /**
   * Why a composite list's tag (`tagLo`: `count` elements of `wordsPerElement` words in a list of
   * `words` words at `start`) is refused, in the order of the checks: out of line, so that
   * `structList` stays small enough to be inlined where lists are read.
   */
  private failComposite(start: number, tagLo: number, count: number, wordsPerElement: number, words: number): never {
    if ((tagLo & 3) !== 0) {
      this.fail(
        "CAPNP_BAD_LIST",
        `composite list at ${this.where(this.segment, start)} has a ${KIND_NAMES[tagLo & 3]} tag, not a struct tag`,
      );
    }
    if (count > MAX_LIST_ELEMENTS) {
      // The reference library reads such a count modulo 2^29; a corrupt file is refused here.
      this.fail(
        "CAPNP_BAD_LIST",
        `composite list at ${this.where(this.segment, start)} declares ${count} elements, more than a list holds (${MAX_LIST_ELEMENTS})`,
      );
    }
    this.fail(
      "CAPNP_BAD_LIST",
      `composite list at ${this.where(this.segment, start)}: ${count} elements of ${wordsPerElement} words overrun its ${words} words`,
    );
  }

  private failBits(segment: number, pointer: number): never {
    this.fail("CAPNP_BAD_LIST", `${this.where(segment, pointer)}: a list of bits where a list of structs was expected`);
  }

  /**
   * Reads the Text pointer at `pointer`: `""` when null. Every check in one condition, what
   * failed found out of line (`failText`): this runs for every text of every machine and NIC.
   */
  text(segment: number, pointer: number, cache: TextCache): string {
    if (!this.resolve(segment, pointer)) return "";
    const hi = this.targetHi;
    const length = hi >>> 3;
    const start = this.target;
    const words = (length + 7) >>> 3;
    const textBytes = length - 1;
    if (
      (this.targetLo & 3) !== 1 ||
      (hi & 7) !== 2 ||
      length === 0 ||
      start < this.starts[this.segment]! ||
      start + words * 8 > this.ends[this.segment]! ||
      (this.budgetWords -= words) < 0 ||
      this.bytes[start + textBytes] !== 0 ||
      textBytes > this.maxTextBytes ||
      (this.textBudgetBytes -= textBytes) < 0
    ) {
      this.failText(segment, pointer, start, length, words);
    }
    return cache.get(this.bytes, start, textBytes);
  }

  /** Why the text `text` read at `pointer` (`length` bytes with its NUL, `words` words from `start`) is refused, in the order of the checks. */
  private failText(segment: number, pointer: number, start: number, length: number, words: number): never {
    const lo = this.targetLo;
    const hi = this.targetHi;
    if ((lo & 3) !== 1 || (hi & 7) !== 2) {
      this.fail(
        "CAPNP_BAD_TEXT",
        `${this.where(segment, pointer)}: expected Text (a list of bytes), found ${describe(lo, hi)}`,
      );
    }
    this.checkBounds(start, words, "text", segment, pointer);
    if (this.budgetWords < 0) this.failBudget();
    if (length === 0 || this.bytes[start + length - 1] !== 0) {
      this.fail("CAPNP_BAD_TEXT", `text at ${this.where(this.segment, start)} does not end with NUL`);
    }
    if (length - 1 > this.maxTextBytes) {
      this.fail(
        "CAPNP_TEXT_LIMIT",
        `text at ${this.where(this.segment, start)} is ${length - 1} bytes, more than the text limit of ${this.maxTextBytes} bytes ` +
          "(a status, type or image name is a few dozen); raise maxTextBytes only for a file you trust",
      );
    }
    this.fail(
      "CAPNP_EXPANSION_LIMIT",
      `the message's texts decode to more than its ${this.textLimitBytes} bytes (pointers sharing one text?): ` +
        "a file holds each of its texts once",
    );
  }

  /**
   * Reads the pointer word at `pointer`, following a far or double-far pointer to its landing
   * pad; leaves the describing word in `targetLo/targetHi`, the object's first byte in
   * `target` and its segment in `segment`. False when the pointer is null.
   */
  private resolve(segment: number, pointer: number): boolean {
    const view = this.view;
    const lo = view.getInt32(pointer, true);
    const hi = view.getUint32(pointer + 4, true);
    if ((lo & 3) === 2) return this.resolveFar(segment, pointer, lo, hi);
    if (lo === 0 && hi === 0) return false;
    this.segment = segment;
    this.target = pointer + 8 + (lo >> 2) * 8;
    this.targetLo = lo;
    this.targetHi = hi;
    return true;
  }

  /**
   * `resolve` of a far pointer (`lo`, `hi`: its word), apart so that the near pointers' few
   * lines are inlined where they are read.
   */
  private resolveFar(segment: number, pointer: number, lo: number, hi: number): boolean {
    const view = this.view;
    const padSegment = this.segmentOf(hi, segment, pointer);
    const isDouble = (lo & 4) !== 0;
    const pad = this.starts[padSegment]! + (lo >>> 3) * 8;
    if (pad + (isDouble ? 16 : 8) > this.ends[padSegment]!) {
      this.fail(
        "CAPNP_OUT_OF_BOUNDS",
        `far pointer at ${this.where(segment, pointer)} lands outside segment ${padSegment}`,
      );
    }
    const padLo = view.getInt32(pad, true);
    const padHi = view.getUint32(pad + 4, true);
    if (!isDouble) {
      if ((padLo & 3) === 2) {
        this.fail("CAPNP_BAD_POINTER", `far pointer at ${this.where(segment, pointer)} lands on another far pointer`);
      }
      this.segment = padSegment;
      this.target = pad + 8 + (padLo >> 2) * 8;
      this.targetLo = padLo;
      this.targetHi = padHi;
      return true;
    }
    if ((padLo & 7) !== 2) {
      this.fail(
        "CAPNP_BAD_POINTER",
        `double-far pointer at ${this.where(segment, pointer)}: its landing pad starts with ${describe(padLo, padHi)}, not a single far pointer`,
      );
    }
    const contentSegment = this.segmentOf(padHi, padSegment, pad);
    const tagLo = view.getInt32(pad + 8, true);
    if ((tagLo & 3) === 2) {
      this.fail(
        "CAPNP_BAD_POINTER",
        `double-far pointer at ${this.where(segment, pointer)}: its landing pad's tag is a far pointer`,
      );
    }
    this.segment = contentSegment;
    this.target = this.starts[contentSegment]! + (padLo >>> 3) * 8;
    this.targetLo = tagLo;
    this.targetHi = view.getUint32(pad + 12, true);
    return true;
  }

  private segmentOf(id: number, segment: number, pointer: number): number {
    if (id >= this.starts.length) {
      this.fail(
        "CAPNP_BAD_POINTER",
        `far pointer at ${this.where(segment, pointer)} names segment ${id}, the message has ${this.starts.length}`,
      );
    }
    return id;
  }

  /** An empty object (zero words) is never read, so, as in the reference, it may point anywhere. */
  private checkBounds(start: number, words: number, what: string, segment: number, pointer: number): void {
    if (words > 0 && (start < this.starts[this.segment]! || start + words * 8 > this.ends[this.segment]!)) {
      this.fail(
        "CAPNP_OUT_OF_BOUNDS",
        `${what} pointer at ${this.where(segment, pointer)} points outside segment ${this.segment} (${words} words at word ${(start - this.starts[this.segment]!) / 8})`,
      );
    }
  }

  private charge(words: number): void {
    this.budgetWords -= words;
    if (this.budgetWords < 0) this.failBudget();
  }

  /** The traversal limit when the words charged break it too, else the expansion limit. */
  private failBudget(): never {
    if (this.chargedWords > this.traversalLimitWords) {
      this.fail(
        "CAPNP_TRAVERSAL_LIMIT",
        "the message reads more words than its traversal limit (aliasing pointers or lists of empty elements?); raise traversalLimitWords only for a file you trust",
      );
    }
    this.fail(
      "CAPNP_EXPANSION_LIMIT",
      `the message decodes to more than its expansion limit of ${this.expansionLimitWords} words, ` +
        "a bound on the records a file this small may make (lists of empty elements?); raise expansionLimitWords only for a file you trust",
    );
  }

  private failKind(segment: number, pointer: number, expected: string, lo: number): never {
    this.fail(
      "CAPNP_BAD_POINTER",
      `${this.where(segment, pointer)}: expected a ${expected} pointer, found a ${KIND_NAMES[lo & 3]} pointer`,
    );
  }

  private failDepth(depth: number): never {
    this.fail(
      "CAPNP_NESTING_LIMIT",
      `objects nested ${depth} deep, more than the nesting limit of ${this.nestingLimit} (a pointer cycle?)`,
    );
  }

  private where(segment: number, position: number): string {
    return `segment ${segment} word ${(position - this.starts[segment]!) / 8}`;
  }

  private fail(code: CapnpErrorCode, reason: string): never {
    throw new CapnpError(code, this.name, reason);
  }
}

function describe(lo: number, hi: number): string {
  if ((lo & 3) === 1) return `a list pointer of element size ${hi & 7}`;
  return `a ${KIND_NAMES[lo & 3]} pointer`;
}
