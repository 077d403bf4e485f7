// The reference C++ tool (`capnp`, Debian's capnproto) as the judge of what the generator
// writes: one process decodes a whole stream of concatenated messages to JSON.
import { OLD_SCHEMA, SCHEMA, runCapnp } from "../helpers/capnpTool.js";
import type { Account, CloudSpace } from "../../src/index.js";

export { OLD_SCHEMA, SCHEMA };

/** Decodes concatenated messages with `capnp convert`; throws with capnp's stderr if it refuses one. */
export function referenceDecode(
  stream: Uint8Array,
  root: "Account" | "CloudSpace",
  options: { packed?: boolean; schema?: string } = {},
): unknown[] {
  const args = ["convert", `${options.packed ? "packed" : "binary"}:json`, "--short", options.schema ?? SCHEMA, root];
  const r = runCapnp(args, stream);
  if (r.status !== 0) throw new Error(`capnp ${args.join(" ")} failed: ${r.stderr}`);
  return r.stdout
    .toString("utf8")
    .split("\n")
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as unknown);
}

/** The Float32 fields of the schema, by name. */
const FLOAT32_FIELDS = new Set([
  "cpuMinutes",
  "mem",
  "tx",
  "rx",
  "size",
  "iopsRead",
  "iopsWrite",
  "iopsReadMax",
  "iopsWriteMax",
  "totalBytesSec",
  "readBytesSec",
  "writeBytesSec",
  "totalIopsSec",
  "readIopsSec",
  "writeIopsSec",
  "totalBytesSecMax",
  "readBytesSecMax",
  "writeBytesSecMax",
  "totalIopsSecMax",
  "readIopsSecMax",
  "writeIopsSecMax",
  "sizeIopsSec",
]);

/**
 * What capnp's JSON shows for a record: every field we set, in full double precision of the
 * float32 value; a null `configuredIops` (or any in `withoutIops` mode) is left out.
 */
export function referenceShape<T extends Account | CloudSpace>(
  record: T,
  options: { withoutIops?: boolean } = {},
): unknown {
  return JSON.parse(
    JSON.stringify(record, (key, value: unknown) => {
      if (key === "configuredIops" && (value === null || options.withoutIops)) return undefined;
      if (typeof value === "number" && FLOAT32_FIELDS.has(key)) return Math.fround(value);
      return value;
    }),
  );
}

/** Concatenates messages into one stream. */
export function concat(messages: Uint8Array[]): Uint8Array {
  return Buffer.concat(messages);
}
