// The reference C++ tool (`capnp`, Debian's capnproto), used to encode test messages and to
// decode them for comparison. Each helper is one process over many messages (a stream).
import { OLD_SCHEMA, SCHEMA, runCapnp } from "../helpers/capnpTool.js";
import type { Account, CloudSpace, ConfiguredIops, Disk, Nic, VMachine } from "../../src/index.js";

export type Root = "Account" | "CloudSpace";

export { SCHEMA, OLD_SCHEMA };

/** Encodes one value given in capnp text form; `segmentWords` splits it into segments of that size. */
export function encodeText(
  text: string,
  root: Root,
  options: { schema?: string; segmentWords?: number; packed?: boolean } = {},
): Uint8Array {
  const args = ["convert", `text:${options.packed ? "packed" : "binary"}`];
  if (options.segmentWords !== undefined) args.push(`--segment-size=${options.segmentWords}`);
  const r = runCapnp([...args, options.schema ?? SCHEMA, root], text);
  if (r.status !== 0) throw new Error(`capnp convert failed: ${r.stderr}\n${text.slice(0, 500)}`);
  return new Uint8Array(r.stdout);
}

/**
 * Decodes a stream of standard-framed messages with the reference tool (`--quiet`: without
 * its guess that odd-looking input is in another format). Returns the JSON of
 * each message it accepted, in order, and its error text when it stopped on a bad one (the
 * message after the last one returned).
 */
export function referenceJson(stream: Uint8Array, root: Root): { messages: unknown[]; error: string | null } {
  const r = runCapnp(["convert", "binary:json", "--short", "--quiet", SCHEMA, root], stream);
  const lines = r.stdout
    .toString("utf8")
    .split("\n")
    .filter((l) => l.length > 0);
  return { messages: lines.map((l) => JSON.parse(l) as unknown), error: r.status === 0 ? null : r.stderr };
}

/** One field of the reference's JSON: Float32 values arrive widened, NaN and infinities as strings. */
function float(value: unknown): number {
  if (value === undefined) return 0;
  if (value === "NaN") return NaN;
  if (value === "Infinity") return Infinity;
  if (value === "-Infinity") return -Infinity;
  return Math.fround(value as number);
}

type Json = Record<string, unknown>;
const int = (value: unknown): number => (value as number | undefined) ?? 0;
const text = (value: unknown): string => (value as string | undefined) ?? "";
const list = (value: unknown): Json[] => (value as Json[] | undefined) ?? [];

const IOPS_FIELDS = [
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
] as const;

/** The reference JSON as our records: the fields it leaves out (null pointers) read as defaults. */
export function accountFromJson(json: Json): Account {
  return { accountId: int(json.accountId), cloudspaces: list(json.cloudspaces).map(cloudSpaceFromJson) };
}

export function cloudSpaceFromJson(json: Json): CloudSpace {
  return {
    cloudSpaceId: int(json.cloudSpaceId),
    accountId: int(json.accountId),
    machines: list(json.machines).map(machineFromJson),
    state: text(json.state),
  };
}

function machineFromJson(json: Json): VMachine {
  return {
    id: int(json.id),
    type: text(json.type),
    vcpus: int(json.vcpus),
    cpuMinutes: float(json.cpuMinutes),
    mem: float(json.mem),
    networks: list(json.networks).map(nicFromJson),
    disks: list(json.disks).map(diskFromJson),
    imageName: text(json.imageName),
    status: text(json.status),
  };
}

function nicFromJson(json: Json): Nic {
  return { id: int(json.id), type: text(json.type), tx: float(json.tx), rx: float(json.rx) };
}

function diskFromJson(json: Json): Disk {
  const iops = json.configuredIops as Json | undefined;
  let configuredIops: ConfiguredIops | null = null;
  if (iops !== undefined) {
    configuredIops = {} as ConfiguredIops;
    for (const name of IOPS_FIELDS) configuredIops[name] = float(iops[name]);
  }
  return {
    id: int(json.id),
    size: float(json.size),
    iopsRead: float(json.iopsRead),
    iopsWrite: float(json.iopsWrite),
    iopsReadMax: float(json.iopsReadMax),
    iopsWriteMax: float(json.iopsWriteMax),
    configuredIops,
  };
}

/** Our record of a root in the reference's JSON form. */
export function fromJson(json: unknown, root: Root): Account | CloudSpace {
  return root === "Account" ? accountFromJson(json as Json) : cloudSpaceFromJson(json as Json);
}

/** Encodes many values in one process and splits the output stream into one message each. */
export function encodeTexts(
  texts: string[],
  root: Root,
  options: { schema?: string; segmentWords?: number } = {},
): Uint8Array[] {
  return splitStream(encodeText(texts.join("\n"), root, options));
}

/** Splits a stream of standard-framed messages at their segment tables. */
export function splitStream(stream: Uint8Array): Uint8Array[] {
  const view = new DataView(stream.buffer, stream.byteOffset, stream.byteLength);
  const out: Uint8Array[] = [];
  let at = 0;
  while (at < stream.length) {
    const count = view.getUint32(at, true) + 1;
    let words = 0;
    for (let i = 0; i < count; i++) words += view.getUint32(at + 4 + 4 * i, true);
    const end = at + 8 * (Math.floor(count / 2) + 1) + 8 * words;
    out.push(stream.slice(at, end));
    at = end;
  }
  return out;
}

/** Concatenates messages into one stream. */
export function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
