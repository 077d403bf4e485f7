import { CapnpError } from "./CapnpError.js";
import { DEFAULT_MAX_UNPACKED_BYTES, DEFAULT_NAME, expansionLimitWords, type DecodeOptions } from "./DecodeOptions.js";

/**
 * Undoes Cap'n Proto's packed encoding (a tag byte per word naming its non-zero bytes; tag
 * 0x00 followed by a count of further zero words; tag 0xFF followed by a count of words copied
 * verbatim). The unpacked size is computed first, word by word, and checked as it grows against
 * the expansion limit (`options.expansionLimitWords`, default 8 × the packed file's words: no
 * real file comes near it, a few hundred KB of zero runs no longer make 255 MiB) and
 * `options.maxUnpackedBytes` (default 256 MiB), whichever is lower, before anything is allocated.
 *
 * @param bytes the packed bytes (a whole file).
 * @param options `name` for errors, `expansionLimitWords`, `maxUnpackedBytes`.
 * @returns the standard-framed message.
 * @throws CapnpError `CAPNP_PACKED` when the data ends inside a word or run or unpacks past `maxUnpackedBytes`;
 *   `CAPNP_EXPANSION_LIMIT` when it unpacks past its expansion limit.
 */
export function unpack(bytes: Uint8Array, options: DecodeOptions = {}): Uint8Array {
  const name = options.name ?? DEFAULT_NAME;
  const maxUnpackedBytes = options.maxUnpackedBytes ?? DEFAULT_MAX_UNPACKED_BYTES;
  const expansionBytes = expansionLimitWords(options, bytes.length) * 8;
  const limit: Limit =
    expansionBytes < maxUnpackedBytes
      ? {
          bytes: expansionBytes,
          code: "CAPNP_EXPANSION_LIMIT",
          what: `its expansion limit of ${expansionBytes / 8} words, 8 × its own size (expansionLimitWords)`,
        }
      : { bytes: maxUnpackedBytes, code: "CAPNP_PACKED", what: `${maxUnpackedBytes} bytes (maxUnpackedBytes)` };
  const unpackedBytes = measure(bytes, name, limit);
  const out = new Uint8Array(unpackedBytes);
  const length = bytes.length;
  let i = 0;
  let o = 0;
  while (i < length) {
    const tag = bytes[i++]!;
    for (let bit = 0; bit < 8; bit++) {
      if (tag & (1 << bit)) out[o + bit] = bytes[i++]!;
    }
    o += 8;
    if (tag === 0x00) {
      o += bytes[i++]! * 8;
    } else if (tag === 0xff) {
      const runBytes = bytes[i++]! * 8;
      out.set(bytes.subarray(i, i + runBytes), o);
      i += runBytes;
      o += runBytes;
    }
  }
  return out;
}

/** The most bytes a file may unpack to, and how messages name that limit. */
interface Limit {
  bytes: number;
  code: "CAPNP_EXPANSION_LIMIT" | "CAPNP_PACKED";
  what: string;
}

/** The unpacked size, bytes, validating that no word or run is cut off and that it stays within `limit`. */
function measure(bytes: Uint8Array, name: string, limit: Limit): number {
  const length = bytes.length;
  let i = 0;
  let size = 0;
  while (i < length) {
    const tagAt = i;
    const tag = bytes[i++]!;
    i += popCount(tag);
    size += 8;
    if (tag === 0x00 || tag === 0xff) {
      if (i >= length) {
        throw new CapnpError(
          "CAPNP_PACKED",
          name,
          `packed data ends inside the word that starts at byte ${tagAt} (its run count is missing)`,
        );
      }
      const words = bytes[i++]!;
      size += words * 8;
      if (tag === 0xff) {
        i += words * 8;
        if (i > length) {
          throw new CapnpError(
            "CAPNP_PACKED",
            name,
            `packed data ends inside a run of ${words} verbatim words that starts at byte ${tagAt}`,
          );
        }
      }
    } else if (i > length) {
      throw new CapnpError("CAPNP_PACKED", name, `packed data ends inside the word that starts at byte ${tagAt}`);
    }
    if (size > limit.bytes) {
      throw new CapnpError(
        limit.code,
        name,
        `packed data of ${length} bytes unpacks to more than ${limit.what}; raise the limit only for a file you trust`,
      );
    }
  }
  return size;
}

function popCount(byte: number): number {
  let count = 0;
  for (let b = byte; b !== 0; b &= b - 1) count++;
  return count;
}
