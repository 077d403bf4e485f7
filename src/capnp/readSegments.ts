import { CapnpError } from "./CapnpError.js";

/** The most segments a message may declare (the reference library's stream reader allows 511). */
export const MAX_SEGMENTS = 512;

/** The segments of a framed message: byte ranges into the message's bytes. */
export interface Segments {
  /** Byte offset of each segment's first word. */
  starts: number[];
  /** Byte offset just past each segment's last word. */
  ends: number[];
  /** The message's size without its segment table, words. */
  words: number;
}

/**
 * Reads and validates the segment table of a standard-framed message before anything else
 * touches the bytes: 1 to 512 segments, every segment inside the file, whole words, no bytes
 * after the last segment.
 */
export function readSegments(bytes: Uint8Array, name: string): Segments {
  const length = bytes.byteLength;
  if (length === 0) throw new CapnpError("CAPNP_TRUNCATED", name, "empty file: no Cap'n Proto message");
  if (length < 8) {
    throw new CapnpError("CAPNP_TRUNCATED", name, `file of ${length} bytes ends inside the segment table`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, length);
  const count = view.getUint32(0, true) + 1;
  if (count > MAX_SEGMENTS) {
    throw new CapnpError(
      "CAPNP_SEGMENT_TABLE",
      name,
      `segment table declares ${count} segments (at most ${MAX_SEGMENTS}): not a Cap'n Proto message, or a corrupt one`,
    );
  }
  const tableBytes = 8 * (Math.floor(count / 2) + 1);
  if (tableBytes > length) {
    throw new CapnpError(
      "CAPNP_TRUNCATED",
      name,
      `segment table of ${count} segments needs ${tableBytes} bytes, the file has ${length}`,
    );
  }
  const starts: number[] = [];
  const ends: number[] = [];
  let offset = tableBytes;
  for (let i = 0; i < count; i++) {
    const declaredWords = view.getUint32(4 + 4 * i, true);
    const availableWords = Math.floor((length - offset) / 8);
    if (declaredWords > availableWords) {
      throw new CapnpError(
        "CAPNP_TRUNCATED",
        name,
        `segment ${i} declares ${declaredWords} words, has ${availableWords}`,
      );
    }
    starts.push(offset);
    offset += declaredWords * 8;
    ends.push(offset);
  }
  if (offset < length) {
    throw new CapnpError(
      "CAPNP_TRAILING_BYTES",
      name,
      `${length - offset} bytes after the last segment (the message ends at byte ${offset})`,
    );
  }
  return { starts, ends, words: (offset - tableBytes) / 8 };
}
