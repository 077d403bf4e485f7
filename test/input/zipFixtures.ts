/** Test helpers: real zips written with yazl, hand-made (malicious) zips, temp trees. */
import { once } from "node:events";
import { createWriteStream, readdirSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { deflateRawSync } from "node:zlib";
import yazl from "yazl";
import { crc32 } from "../../src/input/crc32.js";

/** A fresh temp folder, and a function that removes it. */
export async function tempDir(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "cloudunits-input-"));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Content that names its own path, so a test can tell which file a Source came from. */
export function contentOf(path: string): Buffer {
  return Buffer.from(`bytes of ${path}`);
}

/** Writes files (path → content, default `contentOf(path)`) below `root`, creating folders. */
export async function writeTree(root: string, paths: string[], content = contentOf): Promise<void> {
  for (const path of paths) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content(path));
  }
}

/** Writes a zip with yazl (deflated), entries in the given order. */
export async function writeYazl(file: string, entries: { name: string; data?: Buffer }[]): Promise<void> {
  const zip = new yazl.ZipFile();
  for (const { name, data } of entries) zip.addBuffer(data ?? contentOf(name), name, { mtime: new Date(0) });
  zip.end();
  const out = createWriteStream(file);
  zip.outputStream.pipe(out);
  await once(out, "close");
}

/** An entry of a hand-made zip; every header field can lie. */
export interface RawEntry {
  name: string;
  data: Buffer;
  deflate?: boolean;
  /** Override the declared CRC-32 (default: the true one). */
  crc?: number;
  /** Override the declared uncompressed size (default: the true one). */
  uncompressedSize?: number;
  /** An extra field in the local header only (the central directory has none). */
  localExtra?: Buffer;
  /** Write a bad local header signature. */
  badLocalHeader?: boolean;
  /** Override the compression method (default 8 when `deflate`, else 0). */
  method?: number;
  /** General purpose flags (default 0x800: UTF-8 names; bit 0 = encrypted). */
  flags?: number;
  /** Override the local header offset the central directory declares (default: where it is). */
  localHeaderOffset?: number;
}

/** What the end record of a hand-made zip may say instead of the truth. */
export interface RawEnd {
  /** The entry count it declares (default: the number of entries; written modulo 65536, as a 16-bit field). */
  entryCount?: number;
  /** The archive comment (default none). */
  comment?: Buffer;
  /**
   * Write a zip64 end record and its locator, the classic end record's fields all saturated
   * (0xFFFF, 0xFFFFFFFF: "see the zip64 record"), as tools do for large archives. `disk`: the
   * zip64 record's disk numbers (default 0: one disk).
   */
  zip64?: { disk?: number };
}

/**
 * Writes the bytes of a zip by hand (local headers, central directory, end record), for what yazl
 * refuses to write: `../x`, `/x`, duplicate names, lying sizes and CRCs.
 */
export function rawZip(entries: RawEntry[], endRecord: RawEnd = {}): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, "utf8");
    const body = entry.deflate ? deflateRawSync(entry.data) : entry.data;
    const crc = entry.crc ?? crc32(entry.data);
    const usize = entry.uncompressedSize ?? entry.data.length;
    const method = entry.method ?? (entry.deflate ? 8 : 0);
    const flags = entry.flags ?? 0x800;
    const local = Buffer.alloc(30);
    const localExtra = entry.localExtra ?? Buffer.alloc(0);
    local.writeUInt32LE(entry.badLocalHeader ? 0x04034b51 : 0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(usize, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(localExtra.length, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(flags, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(usize, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(entry.localHeaderOffset ?? offset, 42);
    locals.push(local, name, localExtra, body);
    centrals.push(central, name);
    offset += local.length + name.length + localExtra.length + body.length;
  }
  const directory = Buffer.concat(centrals);
  const comment = endRecord.comment ?? Buffer.alloc(0);
  const count = (endRecord.entryCount ?? entries.length) & 0xffff;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(count, 8);
  end.writeUInt16LE(count, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  end.writeUInt16LE(comment.length, 20);
  if (!endRecord.zip64) return Buffer.concat([...locals, directory, end, comment]);
  const disk = endRecord.zip64.disk ?? 0;
  const zip64 = Buffer.alloc(56);
  zip64.writeUInt32LE(0x06064b50, 0);
  zip64.writeBigUInt64LE(44n, 4); // the record's size after this field
  zip64.writeUInt16LE(45, 12);
  zip64.writeUInt16LE(45, 14);
  zip64.writeUInt32LE(disk, 16); // this disk
  zip64.writeUInt32LE(disk, 20); // the disk where the central directory starts
  zip64.writeBigUInt64LE(BigInt(endRecord.entryCount ?? entries.length), 24);
  zip64.writeBigUInt64LE(BigInt(endRecord.entryCount ?? entries.length), 32);
  zip64.writeBigUInt64LE(BigInt(directory.length), 40);
  zip64.writeBigUInt64LE(BigInt(offset), 48);
  const locator = Buffer.alloc(20);
  locator.writeUInt32LE(0x07064b50, 0);
  locator.writeUInt32LE(disk, 4);
  locator.writeBigUInt64LE(BigInt(offset + directory.length), 8);
  locator.writeUInt32LE(disk + 1, 16); // disks in all
  end.fill(0xff, 4, 20); // every classic field: "in the zip64 record"
  return Buffer.concat([...locals, directory, zip64, locator, end, comment]);
}

/** Open file descriptors of this process. */
export function openFds(): number {
  return readdirSync("/proc/self/fd").length;
}
