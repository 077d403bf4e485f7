import type { DecodeOptions } from "./DecodeOptions.js";
import { openMessage } from "./openMessage.js";
import { RecordBuilder } from "./RecordBuilder.js";
import type { CloudSpace } from "./records.js";
import { visitCloudSpaceRoot } from "./visitRecords.js";

/**
 * Decodes one of the controller's per-cloud-space files, whose root is a `CloudSpace`.
 * Same framing, defaults and safety as {@link decodeAccount}.
 *
 * @param bytes the whole file.
 * @param options display `name` for errors, `packed`, and the safety limits.
 * @throws CapnpError with a stable code for a malformed or unsafe message.
 */
export function decodeCloudSpace(bytes: Uint8Array, options: DecodeOptions = {}): CloudSpace {
  const records = new RecordBuilder();
  visitCloudSpaceRoot(openMessage(bytes, options), records);
  return records.cloudspaces[0]!;
}
