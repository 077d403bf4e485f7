import type { ErrorCode } from "../base/errorCodes.js";
import { BadFileError } from "../base/errors.js";

/**
 * The stable codes of {@link CapnpError}:
 * - `CAPNP_SEGMENT_TABLE`: the segment table declares no segment or too many (> 512).
 * - `CAPNP_TRUNCATED`: the file ends inside the segment table or a segment.
 * - `CAPNP_TRAILING_BYTES`: bytes after the last segment.
 * - `CAPNP_OUT_OF_BOUNDS`: a pointer's target lies outside its segment.
 * - `CAPNP_TRAVERSAL_LIMIT`: the message reads more words than the traversal limit allows
 *   (amplification: aliasing pointers, huge lists of empty elements).
 * - `CAPNP_EXPANSION_LIMIT`: the records of the file would take more words than its expansion
 *   limit (8 × the file's own size, at least 64 words): a small file fanning out into many
 *   (empty) records.
 * - `CAPNP_NESTING_LIMIT`: objects nested deeper than the nesting limit.
 * - `CAPNP_BAD_POINTER`: a pointer of the wrong kind, a far pointer to a missing segment or
 *   with a bad landing pad, a missing root pointer.
 * - `CAPNP_BAD_LIST`: a list that cannot hold the schema's structs (bad composite tag,
 *   elements overrunning the list, a bit list).
 * - `CAPNP_BAD_TEXT`: a Text that is not a byte list ending in NUL.
 * - `CAPNP_TEXT_LIMIT`: a Text longer than the text limit (64 KiB unless set).
 * - `CAPNP_PACKED`: packed data that ends inside a word or run, or unpacks past the cap.
 */
export type CapnpErrorCode = Extract<ErrorCode, `CAPNP_${string}`>;

/**
 * A consumption file that is not a well-formed Cap'n Proto message of the schema, or that
 * breaks a safety limit. `file` is the display name given in the decode options; the message
 * reads like `7/2026/10/31/18/account_capnp.bin: segment 0 declares 212 words, has 98`.
 */
export class CapnpError extends BadFileError {
  declare readonly code: CapnpErrorCode;

  constructor(code: CapnpErrorCode, file: string, reason: string) {
    super(code, file, reason);
  }
}
