/**
 * Entries kept per field: enough for the values a field like `type`, `status` or `imageName`
 * takes (a machine's image is one of a few dozen at most; more than fit made every lookup a
 * miss: nine image names in eight entries decoded every machine's image again).
 */
const CAPACITY = 32;
/** Longer texts are decoded each time, not cached. */
const MAX_CACHED_BYTES = 48;

const utf8 = new TextDecoder("utf-8");

/**
 * The last few values of one Text field with their bytes, so the short values repeated on
 * every machine ("vm", "RUNNING", "external", ...) cost a byte comparison, not a decode and
 * a new string.
 */
export class TextCache {
  private readonly bytes: Uint8Array[] = [];
  private readonly strings: string[] = [];
  private next = 0;

  /** The UTF-8 text of `bytes[start, start + length)`. */
  get(bytes: Uint8Array, start: number, length: number): string {
    const cached = this.bytes;
    for (let i = 0; i < cached.length; i++) {
      const candidate = cached[i]!;
      if (candidate.length !== length) continue;
      let j = 0;
      while (j < length && candidate[j] === bytes[start + j]) j++;
      if (j === length) return this.strings[i]!;
    }
    const text = decodeUtf8(bytes, start, length);
    if (length <= MAX_CACHED_BYTES) {
      const slot = this.next;
      this.next = (slot + 1) % CAPACITY;
      cached[slot] = bytes.slice(start, start + length);
      this.strings[slot] = text;
    }
    return text;
  }
}

/** Decodes UTF-8 (invalid sequences become U+FFFD), with a fast path for short ASCII. */
export function decodeUtf8(bytes: Uint8Array, start: number, length: number): string {
  if (length <= 32) {
    let text = "";
    let i = 0;
    for (; i < length; i++) {
      const byte = bytes[start + i]!;
      if (byte >= 0x80) break;
      text += String.fromCharCode(byte);
    }
    if (i === length) return text;
  }
  return utf8.decode(bytes.subarray(start, start + length));
}
