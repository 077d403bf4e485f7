import { UsageError } from "../base/errors.js";
import {
  DEFAULT_MAX_TEXT_BYTES,
  DEFAULT_NAME,
  DEFAULT_NESTING_LIMIT,
  MIN_TRAVERSAL_LIMIT_WORDS,
  TRAVERSAL_LIMIT_FACTOR,
  expansionLimitWords as expansionLimitOf,
  type DecodeOptions,
} from "./DecodeOptions.js";
import { MessageReader } from "./MessageReader.js";
import { readSegments } from "./readSegments.js";
import { unpack } from "./unpack.js";

/** Unpacks (when asked), validates the framing and sets the limits of one message (see DecodeOptions). */
export function openMessage(bytes: Uint8Array, options: DecodeOptions): MessageReader {
  const name = options.name ?? DEFAULT_NAME;
  const message = options.packed ? unpack(bytes, options) : bytes;
  const segments = readSegments(message, name);
  const traversalLimitWords =
    options.traversalLimitWords ?? Math.max(TRAVERSAL_LIMIT_FACTOR * segments.words, MIN_TRAVERSAL_LIMIT_WORDS);
  // Against the bytes as given: a packed file's zero runs may not multiply what it makes.
  const expansionLimitWords = expansionLimitOf(options, bytes.length);
  const nestingLimit = options.nestingLimit ?? DEFAULT_NESTING_LIMIT;
  checkLimit("traversalLimitWords", traversalLimitWords);
  checkLimit("expansionLimitWords", expansionLimitWords);
  const maxTextBytes = options.maxTextBytes ?? DEFAULT_MAX_TEXT_BYTES;
  checkLimit("nestingLimit", nestingLimit);
  checkLimit("maxTextBytes", maxTextBytes);
  // texts against the bytes as given too: a packed file's texts are no shorter in it
  return new MessageReader(
    message,
    segments,
    name,
    traversalLimitWords,
    expansionLimitWords,
    nestingLimit,
    maxTextBytes,
    bytes.length,
  );
}

function checkLimit(option: string, value: number): void {
  if (!Number.isInteger(value) || value < 1) {
    throw new UsageError(`decode option ${option} must be a positive whole number, got ${value}`);
  }
}
