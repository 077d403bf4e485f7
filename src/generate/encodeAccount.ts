/**
 * A Cap'n Proto writer for schema/resourcemonitoring.capnp: `Account` and `CloudSpace`
 * messages from the plain records of src/capnp/records.ts. Struct layouts follow
 * `capnp compile -ocapnp schema/resourcemonitoring.capnp`.
 */
import type { Account, CloudSpace, ConfiguredIops, Disk, Nic, VMachine } from "../capnp/records.js";
import { UsageError } from "../base/errors.js";
import {
  ELEMENT_BYTE,
  ELEMENT_COMPOSITE,
  LIST_POINTER,
  MessageWriter,
  STRUCT_POINTER,
  type WordRef,
} from "./messageWriter.js";
import { packMessage } from "./packMessage.js";

/** How a message is written. */
export interface EncodeOptions {
  /**
   * Write `Disk` as files of the older schema do: 24 bytes of data and no pointer, so no
   * `configuredIops`. Default false.
   */
  oldSchema?: boolean;
  /** Standard packed encoding (what `.packed` files hold). Default false. */
  packed?: boolean;
  /**
   * Segment size in words: objects that do not fit open a new segment and are reached
   * through far pointers (landing pads), as the C++ library writes large messages.
   * Default: one segment, however large.
   */
  segmentWords?: number;
  /**
   * With `segmentWords`: reach objects in other segments through double-far pointers
   * (two-word landing pads, which the C++ library writes when it adopts orphans) instead
   * of single-far ones. Default false.
   */
  doubleFar?: boolean;
}

/** Data words and pointer words of each struct (the schema's sizes). */
const ACCOUNT = { data: 1, pointers: 1 };
const CLOUD_SPACE = { data: 1, pointers: 2 };
const MACHINE = { data: 2, pointers: 5 };
const NIC = { data: 2, pointers: 1 };
const DISK = { data: 3, pointers: 1 };
const OLD_DISK = { data: 3, pointers: 0 };
const CONFIGURED_IOPS = { data: 7, pointers: 0 };

/** The 13 Float32 fields of ConfiguredIopsStruct, in ordinal (= offset) order. */
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
] as const satisfies readonly (keyof ConfiguredIops)[];

type Layout = { data: number; pointers: number };

/** Encodes an hourly consumption file: root `Account`. Float32 fields are rounded to float32. */
export function encodeAccount(account: Account, options: EncodeOptions = {}): Uint8Array {
  return encode(options, (w) => {
    const at = structRoot(w, ACCOUNT);
    w.view(at.segment).setUint32(at.word * 8, account.accountId, true);
    writeStructList(w, pointer(at, ACCOUNT, 0), account.cloudspaces, CLOUD_SPACE, (ref, cs) =>
      writeCloudSpace(w, ref, cs, options),
    );
  });
}

/** Encodes a controller's per-cloud-space file: root `CloudSpace`. */
export function encodeCloudSpace(cloudSpace: CloudSpace, options: EncodeOptions = {}): Uint8Array {
  return encode(options, (w) => writeCloudSpace(w, structRoot(w, CLOUD_SPACE), cloudSpace, options));
}

/** Throws a UsageError for a bad option. */
export function checkEncodeOptions(options: EncodeOptions): void {
  const { segmentWords } = options;
  if (segmentWords !== undefined && !(Number.isInteger(segmentWords) && segmentWords >= 1 && segmentWords < 2 ** 29)) {
    throw new UsageError(`bad segmentWords: ${segmentWords} (a whole number of words, at least 1)`);
  }
}

function encode(options: EncodeOptions, write: (w: MessageWriter) => void): Uint8Array {
  checkEncodeOptions(options);
  const w = new MessageWriter(options.segmentWords, options.doubleFar);
  write(w);
  const bytes = w.toBytes();
  return options.packed ? packMessage(bytes) : bytes;
}

function structRoot(w: MessageWriter, layout: Layout): WordRef {
  return w.allocateFor(w.root, layout.data + layout.pointers, STRUCT_POINTER, structSizes(layout));
}

function structSizes(layout: Layout): number {
  return layout.data | (layout.pointers << 16);
}

/** The place of pointer `index` of the struct at `at`. */
function pointer(at: WordRef, layout: Layout, index: number): WordRef {
  return { segment: at.segment, word: at.word + layout.data + index };
}

function writeCloudSpace(w: MessageWriter, at: WordRef, cs: CloudSpace, options: EncodeOptions): void {
  const v = w.view(at.segment);
  v.setInt32(at.word * 8, cs.cloudSpaceId, true);
  v.setInt32(at.word * 8 + 4, cs.accountId, true);
  writeStructList(w, pointer(at, CLOUD_SPACE, 0), cs.machines, MACHINE, (ref, m) => writeMachine(w, ref, m, options));
  writeText(w, pointer(at, CLOUD_SPACE, 1), cs.state);
}

function writeMachine(w: MessageWriter, at: WordRef, m: VMachine, options: EncodeOptions): void {
  const v = w.view(at.segment);
  const o = at.word * 8;
  v.setInt32(o, m.id, true);
  v.setInt8(o + 4, m.vcpus);
  v.setFloat32(o + 8, m.cpuMinutes, true);
  v.setFloat32(o + 12, m.mem, true);
  writeText(w, pointer(at, MACHINE, 0), m.type);
  writeStructList(w, pointer(at, MACHINE, 1), m.networks, NIC, (ref, nic) => writeNic(w, ref, nic));
  const diskLayout = options.oldSchema ? OLD_DISK : DISK;
  writeStructList(w, pointer(at, MACHINE, 2), m.disks, diskLayout, (ref, d) => writeDisk(w, ref, d, diskLayout));
  writeText(w, pointer(at, MACHINE, 3), m.imageName);
  writeText(w, pointer(at, MACHINE, 4), m.status);
}

function writeNic(w: MessageWriter, at: WordRef, nic: Nic): void {
  const v = w.view(at.segment);
  const o = at.word * 8;
  v.setInt32(o, nic.id, true);
  v.setFloat32(o + 4, nic.tx, true);
  v.setFloat32(o + 8, nic.rx, true);
  writeText(w, pointer(at, NIC, 0), nic.type);
}

function writeDisk(w: MessageWriter, at: WordRef, d: Disk, layout: Layout): void {
  const v = w.view(at.segment);
  const o = at.word * 8;
  v.setInt32(o, d.id, true);
  v.setFloat32(o + 4, d.size, true);
  v.setFloat32(o + 8, d.iopsRead, true);
  v.setFloat32(o + 12, d.iopsWrite, true);
  v.setFloat32(o + 16, d.iopsReadMax, true);
  v.setFloat32(o + 20, d.iopsWriteMax, true);
  if (layout.pointers === 0 || d.configuredIops === null) return;
  const iops = d.configuredIops;
  const c = w.allocateFor(pointer(at, layout, 0), CONFIGURED_IOPS.data, STRUCT_POINTER, structSizes(CONFIGURED_IOPS));
  const cv = w.view(c.segment);
  IOPS_FIELDS.forEach((field, i) => cv.setFloat32(c.word * 8 + 4 * i, iops[field], true));
}

/** A composite list: tag word, then the elements; an empty list is just the tag. */
function writeStructList<T>(
  w: MessageWriter,
  from: WordRef,
  items: readonly T[],
  layout: Layout,
  writeItem: (at: WordRef, item: T) => void,
): void {
  const stride = layout.data + layout.pointers;
  const words = items.length * stride;
  const at = w.allocateFor(from, words + 1, LIST_POINTER, ELEMENT_COMPOSITE | (words << 3));
  const v = w.view(at.segment);
  v.setUint32(at.word * 8, (items.length << 2) | STRUCT_POINTER, true);
  v.setUint32(at.word * 8 + 4, structSizes(layout), true);
  items.forEach((item, i) => writeItem({ segment: at.segment, word: at.word + 1 + i * stride }, item));
}

const utf8 = new TextEncoder();
const textCache = new Map<string, Uint8Array>();

/** Text: a list of bytes ending in NUL. An empty string is written as a set, empty text. */
function writeText(w: MessageWriter, from: WordRef, text: string): void {
  let bytes = textCache.get(text);
  if (bytes === undefined) {
    bytes = utf8.encode(text);
    if (textCache.size < 4096) textCache.set(text, bytes);
  }
  const count = bytes.length + 1;
  const at = w.allocateFor(from, Math.ceil(count / 8), LIST_POINTER, ELEMENT_BYTE | (count << 3));
  w.bytes(at.segment).set(bytes, at.word * 8);
}
