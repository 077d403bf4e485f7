import { BadFileError } from "../base/errors.js";
import type { BlockReader } from "./blockReader.js";

const END_SIGNATURE = 0x06054b50;
const END_BYTES = 22;
const MAX_COMMENT_BYTES = 0xffff;
const ZIP64_LOCATOR_SIGNATURE = 0x07064b50;
const ZIP64_LOCATOR_BYTES = 20;
const ZIP64_END_SIGNATURE = 0x06064b50;
const ZIP64_END_BYTES = 56;
const CENTRAL_SIGNATURE = 0x02014b50;
const CENTRAL_BYTES = 46;
/** The size of a local file header without its name and extra field. */
export const LOCAL_HEADER_BYTES = 30;

/** Where the central directory is, by the archive's (one, checked) end record. */
export interface EndRecord {
  /** Entries the end record declares (the zip64 record's count when there is one). */
  entryCount: number;
  /** Offset of the first central directory record. */
  directoryStart: number;
  /** Offset just past the last one: where the (zip64) end record starts. */
  directoryEnd: number;
}

/** One record of the central directory: what an entry declares. */
export interface CentralRecord {
  flags: number;
  method: number;
  crc32: number;
  compressedSize: number;
  uncompressedSize: number;
  localHeaderOffset: number;
  nameRaw: Buffer;
  /** The extra fields, by id. */
  extraFields: { id: number; data: Buffer }[];
}

/**
 * Finds the archive's end-of-central-directory record: the one whose comment runs to the end of
 * the file, searched backwards over the largest possible comment. Refuses (ARCHIVE_CORRUPT, naming
 * `displayName`) an archive without one, one whose comment holds a second such record (tools
 * would read two different archives: a fake record read it as empty), and one whose record
 * does not end where its central directory ends (data after it), and a multi-disk archive (by
 * the zip64 record's disk numbers when there is one: the classic record's may then be 0xFFFF).
 */
export async function readEndRecord(reader: BlockReader, displayName: string): Promise<EndRecord> {
  const corrupt = (reason: string) => new BadFileError("ARCHIVE_CORRUPT", displayName, reason);
  const tailBytes = Math.min(reader.fileBytes, ZIP64_LOCATOR_BYTES + END_BYTES + MAX_COMMENT_BYTES);
  const tailStart = reader.fileBytes - tailBytes;
  const tail = Buffer.from(await reader.read(tailStart, tailBytes));
  const found: number[] = [];
  for (let i = tail.length - END_BYTES; i >= 0; i--) {
    if (tail.readUInt32LE(i) === END_SIGNATURE && i + END_BYTES + tail.readUInt16LE(i + 20) === tail.length)
      found.push(i);
  }
  // "end of central directory" names a missing record only: fetch reads it as a download cut off.
  if (found.length === 0) throw corrupt("no end of central directory record: not a zip archive, or one cut off");
  if (found.length > 1) {
    throw corrupt(
      `two end records (at bytes ${found
        .map((i) => tailStart + i)
        .reverse()
        .join(" and ")}): the archive's comment holds a second one, and tools would read different archives; refused`,
    );
  }
  const at = found[0]!;
  const end = tail.subarray(at);
  const multiDisk = () => corrupt("a multi-disk (split) archive, not supported");
  const classicDisks = [end.readUInt16LE(4), end.readUInt16LE(6)];
  let entryCount = end.readUInt16LE(10);
  let directoryBytes = end.readUInt32LE(12);
  let directoryStart = end.readUInt32LE(16);
  let directoryEnd = tailStart + at;
  const locator = at - ZIP64_LOCATOR_BYTES;
  if (locator >= 0 && tail.readUInt32LE(locator) === ZIP64_LOCATOR_SIGNATURE) {
    const zip64At = Number(tail.readBigUInt64LE(locator + 8));
    const zip64 = Buffer.from(await reader.read(zip64At, ZIP64_END_BYTES));
    if (zip64.length < ZIP64_END_BYTES || zip64.readUInt32LE(0) !== ZIP64_END_SIGNATURE) {
      throw corrupt(`no zip64 end-of-central-directory record at byte ${zip64At}, where the zip64 locator points`);
    }
    // With zip64, a classic field may hold 0xFFFF ("see the zip64 record"), the disk numbers
    // too: the zip64 record's and its locator's say whether the archive spans disks.
    if (classicDisks.some((disk) => disk !== 0 && disk !== 0xffff)) throw multiDisk();
    const zip64Disks = [zip64.readUInt32LE(16), zip64.readUInt32LE(20), tail.readUInt32LE(locator + 4)];
    if (zip64Disks.some((disk) => disk !== 0) || tail.readUInt32LE(locator + 16) > 1) throw multiDisk();
    entryCount = Number(zip64.readBigUInt64LE(32));
    directoryBytes = Number(zip64.readBigUInt64LE(40));
    directoryStart = Number(zip64.readBigUInt64LE(48));
    directoryEnd = zip64At;
  } else if (classicDisks.some((disk) => disk !== 0)) {
    throw multiDisk();
  }
  if (directoryStart + directoryBytes !== directoryEnd) {
    throw corrupt(
      `the end record puts the central directory at bytes ${directoryStart}–${directoryStart + directoryBytes}, but it ends at byte ${directoryEnd}`,
    );
  }
  return { entryCount, directoryStart, directoryEnd };
}

/**
 * The records of the central directory, in order, read to its very end: a record cut off or
 * without its signature, or a count of records other than the end record's (a count of 1 for
 * 2 entries read half the archive; 70,000 entries without zip64 read as 4,464) is ARCHIVE_CORRUPT
 * for the whole archive. More than `maxEntries` records stop the reading (ARCHIVE_TOO_MANY_ENTRIES).
 */
export async function* readCentralDirectory(
  reader: BlockReader,
  end: EndRecord,
  displayName: string,
  maxEntries: number,
): AsyncGenerator<CentralRecord> {
  const corrupt = (reason: string) =>
    new BadFileError("ARCHIVE_CORRUPT", displayName, `corrupt central directory (${reason})`);
  let position = end.directoryStart;
  let count = 0;
  while (position < end.directoryEnd) {
    const header = await reader.read(position, CENTRAL_BYTES);
    if (header.length < CENTRAL_BYTES || position + CENTRAL_BYTES > end.directoryEnd)
      throw corrupt(`record ${count + 1} is cut off at byte ${position}`);
    if (header.readUInt32LE(0) !== CENTRAL_SIGNATURE) throw corrupt(`no record signature at byte ${position}`);
    if (++count > maxEntries) {
      throw new BadFileError(
        "ARCHIVE_TOO_MANY_ENTRIES",
        displayName,
        `more than ${maxEntries} entries, the limit (raise maxEntries if the archive is trusted)`,
      );
    }
    const nameBytes = header.readUInt16LE(28);
    const extraBytes = header.readUInt16LE(30);
    const commentBytes = header.readUInt16LE(32);
    const record: CentralRecord = {
      flags: header.readUInt16LE(8),
      method: header.readUInt16LE(10),
      crc32: header.readUInt32LE(16),
      compressedSize: header.readUInt32LE(20),
      uncompressedSize: header.readUInt32LE(24),
      localHeaderOffset: header.readUInt32LE(42),
      nameRaw: Buffer.alloc(0),
      extraFields: [],
    };
    const variableBytes = nameBytes + extraBytes + commentBytes;
    const variable = Buffer.from(await reader.read(position + CENTRAL_BYTES, variableBytes));
    position += CENTRAL_BYTES + variableBytes;
    if (variable.length < variableBytes || position > end.directoryEnd) throw corrupt(`record ${count} is cut off`);
    record.nameRaw = variable.subarray(0, nameBytes);
    record.extraFields = extraFields(variable.subarray(nameBytes, nameBytes + extraBytes));
    if (!applyZip64(record)) throw corrupt(`record ${count}'s zip64 extra field lacks a size or offset it stands for`);
    yield record;
  }
  if (count !== end.entryCount) {
    const entries = (n: number) => `${n} ${n === 1 ? "entry" : "entries"}`;
    throw corrupt(
      `the end record declares ${entries(end.entryCount)}, the directory holds ${count}: refused, it would be read in part`,
    );
  }
}

/** Splits an extra field into its parts; a part running past the field's end is ignored. */
function extraFields(bytes: Buffer): { id: number; data: Buffer }[] {
  const fields: { id: number; data: Buffer }[] = [];
  for (let i = 0; i + 4 <= bytes.length;) {
    const size = bytes.readUInt16LE(i + 2);
    if (i + 4 + size > bytes.length) break;
    fields.push({ id: bytes.readUInt16LE(i), data: bytes.subarray(i + 4, i + 4 + size) });
    i += 4 + size;
  }
  return fields;
}

/**
 * Takes the 64-bit sizes and offset of the zip64 extra field for the fields saturated at
 * 0xFFFFFFFF; false when the field lacks one of them.
 */
function applyZip64(record: CentralRecord): boolean {
  const zip64 = record.extraFields.find((field) => field.id === 0x0001)?.data;
  if (!zip64) return true;
  let i = 0;
  const next = () => {
    const value = i + 8 <= zip64.length ? Number(zip64.readBigUInt64LE(i)) : Number.NaN;
    i += 8;
    return value;
  };
  if (record.uncompressedSize === 0xffffffff) record.uncompressedSize = next();
  if (record.compressedSize === 0xffffffff) record.compressedSize = next();
  if (record.localHeaderOffset === 0xffffffff) record.localHeaderOffset = next();
  return (
    Number.isSafeInteger(record.uncompressedSize) &&
    Number.isSafeInteger(record.compressedSize) &&
    Number.isSafeInteger(record.localHeaderOffset)
  );
}

/**
 * The first two records (in `records`' order) whose bytes overlap: each entry's local header
 * and data, at least `LOCAL_HEADER_BYTES + compressedSize` from its offset, must end before the
 * next entry's header and before the central directory. Overlapping entries are how a small
 * archive declares many large files over the same compressed bytes (a Fifield-style zip bomb).
 */
export function firstOverlap(
  records: readonly CentralRecord[],
  directoryStart: number,
): [CentralRecord, CentralRecord | null] | null {
  const order = records.map((_, i) => i).sort((a, b) => records[a]!.localHeaderOffset - records[b]!.localHeaderOffset);
  for (let k = 0; k < order.length; k++) {
    const record = records[order[k]!]!;
    const next = k + 1 < order.length ? records[order[k + 1]!]! : null;
    const endsBefore = next ? next.localHeaderOffset : directoryStart;
    if (!(record.localHeaderOffset + LOCAL_HEADER_BYTES + record.compressedSize <= endsBefore)) return [record, next];
  }
  return null;
}
