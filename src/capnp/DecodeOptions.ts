/** Options of the Cap'n Proto decoders (`decodeAccount`, `decodeCloudSpace`, `unpack`, ...). */
export interface DecodeOptions {
  /** Display name of the file, used in error messages. Default: `"message"`. */
  name?: string;
  /** The bytes use the packed encoding. Default: `false`. */
  packed?: boolean;
  /**
   * Most words the decoder may read, counting every struct, list and text each time a
   * pointer reaches it (each list element at least the schema's size of its struct), so
   * aliasing pointers and lists of empty elements cannot amplify a small file. Default: 8 × the message's own size
   * in words, at least 65536 words.
   */
  traversalLimitWords?: number;
  /**
   * Most words the records decoded from the file may take, charged as for the traversal limit
   * (each struct and list element at least its schema size, each text its words), but measured
   * against the file's own bytes (packed or not) with a small floor: no file, however small,
   * decodes to more than a small multiple of its size, so neither does a run of many files
   * (the traversal limit's 64 Ki-word floor holds per message only). A packed file may not
   * unpack to more words than this either (checked while unpacking, before anything is
   * allocated). Default: 8 × the file's size in words, at least 64 words.
   */
  expansionLimitWords?: number;
  /** Deepest nesting of structs and lists, the root struct being depth 1. Default: 64. */
  nestingLimit?: number;
  /**
   * Longest text (a status, an image name, a type, a state) the file may hold, bytes of UTF-8
   * without its NUL: a longer one makes the file bad (CAPNP_TEXT_LIMIT). Real texts are a few
   * dozen bytes; a text of megabytes, copied into every row that names it, is what ran a load
   * out of memory. Default: 64 KiB.
   */
  maxTextBytes?: number;
  /** Largest unpacked size of a packed file, bytes, whatever its expansion limit. Default: 256 MiB. */
  maxUnpackedBytes?: number;
}

/** The display name used when {@link DecodeOptions.name} is not given. */
export const DEFAULT_NAME = "message";
/** Default {@link DecodeOptions.nestingLimit}. */
export const DEFAULT_NESTING_LIMIT = 64;
/** The smallest default traversal limit, words. */
export const MIN_TRAVERSAL_LIMIT_WORDS = 65536;
/** Default {@link DecodeOptions.traversalLimitWords}: this many times the message's words. */
export const TRAVERSAL_LIMIT_FACTOR = 8;
/** Default {@link DecodeOptions.expansionLimitWords}: this many times the file's words (its bytes / 8, rounded up). */
export const EXPANSION_LIMIT_FACTOR = 8;
/** The smallest default expansion limit, words: what a file of 8 words may decode to. */
export const MIN_EXPANSION_LIMIT_WORDS = 64;
/** Default {@link DecodeOptions.maxTextBytes}: 64 KiB. */
export const DEFAULT_MAX_TEXT_BYTES = 64 * 1024;
/** Default {@link DecodeOptions.maxUnpackedBytes}: 256 MiB, the zip entry limit of docs/input.md. */
export const DEFAULT_MAX_UNPACKED_BYTES = 256 * 1024 * 1024;

/** The expansion limit of a file of `fileBytes` bytes (packed or not): the option, or the default. */
export function expansionLimitWords(options: DecodeOptions, fileBytes: number): number {
  return (
    options.expansionLimitWords ?? Math.max(EXPANSION_LIMIT_FACTOR * ((fileBytes + 7) >>> 3), MIN_EXPANSION_LIMIT_WORDS)
  );
}
