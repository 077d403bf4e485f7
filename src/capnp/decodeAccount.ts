import type { DecodeOptions } from "./DecodeOptions.js";
import { openMessage } from "./openMessage.js";
import { RecordBuilder } from "./RecordBuilder.js";
import type { Account } from "./records.js";
import { visitAccountRoot } from "./visitRecords.js";

/**
 * Decodes an hourly consumption file whose root is an `Account` (schema/resourcemonitoring.capnp).
 * Reads the standard framing (any number of segments, far and double-far pointers) or, with
 * `options.packed`, the packed encoding. Struct sizes are taken from each pointer, so files of
 * the older schema (no `Disk.configuredIops`) read with defaults: 0, "", [], null.
 *
 * @param bytes the whole file.
 * @param options display `name` for errors, `packed`, and the safety limits.
 * @throws CapnpError (a BadFileError) with a stable code when the bytes are not a well-formed
 *   message of the schema or break a limit; never another error for any byte string.
 */
export function decodeAccount(bytes: Uint8Array, options: DecodeOptions = {}): Account {
  const records = new RecordBuilder();
  const root = visitAccountRoot(openMessage(bytes, options), records);
  return { accountId: root.accountId, cloudspaces: records.cloudspaces };
}
