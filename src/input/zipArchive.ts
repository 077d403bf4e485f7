import type { FileHandle } from "node:fs/promises";
import { promisify } from "node:util";
import { inflateRaw, inflateRawSync } from "node:zlib";
import yauzl from "yauzl";
import { BadFileError } from "../base/errors.js";
import { BlockReader } from "./blockReader.js";
import { crc32 } from "./crc32.js";
import { openArchiveFile, type Archive } from "./archive.js";
import type { InputLimits } from "./types.js";
import {
  firstOverlap,
  LOCAL_HEADER_BYTES,
  readCentralDirectory,
  readEndRecord,
  type CentralRecord,
  type EndRecord,
} from "./zipDirectory.js";

const inflateRawAsync = promisify(inflateRaw);
/** Entries up to this compressed size are inflated on the main thread (cheaper than a thread hop). */
const SYNC_INFLATE_BYTES = 16 * 1024;
const LOCAL_HEADER_SIGNATURE = 0x04034b50;
/** General purpose flags: bit 0, encrypted; bit 6, strong encryption. */
const ENCRYPTED_FLAGS = 0x0041;

/** An entry of a zip archive's central directory, with its decoded name. */
export interface ZipEntry {
  /** The entry's name, as stored. */
  name: string;
  /** `archive!name`, for messages. */
  displayName: string;
  /** Declared uncompressed size, bytes. */
  sizeBytes: number;
  raw: CentralRecord;
}

/**
 * An open zip archive. Names and sizes come from the central directory only, read to its end
 * and checked against the one end record; entries are read into memory on demand, never
 * extracted by path. Checks that no two entries overlap, and, when read, the declared size and
 * the CRC (names are the archive layer's: `listEntries`). An entry that is bad on its own (its
 * encryption, its method, its size) is refused alone. The archive owns one file descriptor
 * until `close()`.
 */
export class ZipArchive implements Archive<ZipEntry> {
  private open = true;

  private constructor(
    /** The archive's path as given, for messages. */
    readonly displayName: string,
    /** The archive's only file descriptor: the directory and the entries are read through it. */
    private readonly handle: FileHandle,
    private readonly reader: BlockReader,
    private readonly end: EndRecord,
    private readonly limits: Required<InputLimits>,
  ) {}

  /**
   * Opens `path` (without blocking: a FIFO is named, not waited on) and finds its end record;
   * a file that is not a readable zip, or one with too many entries, is a BadFileError.
   */
  static async open(path: string, displayName: string, limits: Required<InputLimits>): Promise<ZipArchive> {
    const { handle, stats } = await openArchiveFile(path, displayName);
    try {
      const reader = new BlockReader(handle, stats.size);
      const end = await readEndRecord(reader, displayName);
      if (end.entryCount > limits.maxEntries) {
        throw new BadFileError(
          "ARCHIVE_TOO_MANY_ENTRIES",
          displayName,
          `${end.entryCount} entries, more than the limit of ${limits.maxEntries} (raise maxEntries if the archive is trusted)`,
        );
      }
      return new ZipArchive(displayName, handle, reader, end, limits);
    } catch (error) {
      await handle.close();
      if (error instanceof BadFileError) throw error;
      throw new BadFileError(
        "ARCHIVE_CORRUPT",
        displayName,
        `not a readable zip archive (${(error as Error).message})`,
        { cause: error },
      );
    }
  }

  /**
   * Reads the central directory: every entry, directories too, its name decoded (the archive
   * layer checks names: `listEntries`). A corrupt directory, one that disagrees with the end
   * record, or entries that overlap are a BadFileError for the whole archive.
   */
  async list(): Promise<ZipEntry[]> {
    const entries: ZipEntry[] = [];
    try {
      for await (const raw of readCentralDirectory(this.reader, this.end, this.displayName, this.limits.maxEntries)) {
        const name = yauzl.getFileNameLowLevel(raw.flags, raw.nameRaw, raw.extraFields, true);
        entries.push({ name, displayName: `${this.displayName}!${name}`, sizeBytes: raw.uncompressedSize, raw });
      }
    } catch (error) {
      if (error instanceof BadFileError) throw error;
      throw new BadFileError(
        "ARCHIVE_CORRUPT",
        this.displayName,
        `corrupt central directory (${(error as Error).message})`,
        { cause: error },
      );
    }
    const overlap = firstOverlap(
      entries.map((entry) => entry.raw),
      this.end.directoryStart,
    );
    if (overlap) {
      const [first, second] = overlap;
      const name = (record: CentralRecord) =>
        JSON.stringify(yauzl.getFileNameLowLevel(record.flags, record.nameRaw, record.extraFields, true));
      throw new BadFileError(
        "ARCHIVE_OVERLAP",
        this.displayName,
        second
          ? `entries ${name(first)} and ${name(second)} overlap (at bytes ${first.localHeaderOffset} and ${second.localHeaderOffset}, the first declaring ${first.compressedSize} compressed bytes): a crafted archive (a zip bomb?); nothing in it is read`
          : `entry ${name(first)} runs into the central directory: a crafted archive; nothing in it is read`,
      );
    }
    return entries;
  }

  /** Why `entry` must not be read (too large, bomb ratio, lying stored size, unsupported), or null. */
  check(entry: ZipEntry, limits: Required<InputLimits>): BadFileError | null {
    const { raw, displayName } = entry;
    if (raw.flags & ENCRYPTED_FLAGS) {
      return new BadFileError(
        "ARCHIVE_CORRUPT",
        displayName,
        `${raw.flags & 0x0040 ? "strongly " : ""}encrypted entry, not supported`,
      );
    }
    if (raw.method !== 0 && raw.method !== 8) {
      return new BadFileError(
        "ARCHIVE_CORRUPT",
        displayName,
        `unsupported compression method ${raw.method} (use deflate or store)`,
      );
    }
    if (raw.uncompressedSize > limits.maxEntryBytes || raw.compressedSize > limits.maxEntryBytes) {
      return new BadFileError(
        "ARCHIVE_TOO_LARGE",
        displayName,
        `declares ${Math.max(raw.uncompressedSize, raw.compressedSize)} bytes, more than the limit of ${limits.maxEntryBytes} (raise maxEntryBytes if the file is trusted)`,
      );
    }
    if (raw.method === 0 && raw.compressedSize !== raw.uncompressedSize) {
      return new BadFileError(
        "ARCHIVE_SIZE_MISMATCH",
        displayName,
        `stored entry declares ${raw.uncompressedSize} bytes but holds ${raw.compressedSize}`,
      );
    }
    if (raw.uncompressedSize > raw.compressedSize * limits.maxCompressionRatio) {
      const ratio = raw.compressedSize === 0 ? "∞" : (raw.uncompressedSize / raw.compressedSize).toFixed(0);
      return new BadFileError(
        "ARCHIVE_RATIO",
        displayName,
        `compression ratio ${ratio} (${raw.uncompressedSize} from ${raw.compressedSize} bytes) is over the limit of ${limits.maxCompressionRatio}: a zip bomb?`,
      );
    }
    return null;
  }

  /**
   * Reads one entry into memory: its compressed bytes in one read, inflated in one go (off the
   * main thread) with the output capped at the declared size, then the size and CRC-32 checked.
   */
  async read(entry: ZipEntry): Promise<Uint8Array> {
    const { raw, displayName } = entry;
    const declared = raw.uncompressedSize;
    let bytes: Uint8Array;
    try {
      const compressed = await this.readData(raw);
      if (raw.method === 0) bytes = compressed;
      else if (compressed.length <= SYNC_INFLATE_BYTES)
        bytes = inflateRawSync(compressed, { maxOutputLength: declared + 1 });
      else bytes = await inflateRawAsync(compressed, { maxOutputLength: declared + 1 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE") {
        throw new BadFileError(
          "ARCHIVE_SIZE_MISMATCH",
          displayName,
          `holds more than the ${declared} bytes it declares`,
        );
      }
      throw new BadFileError("ARCHIVE_CORRUPT", displayName, `unreadable entry (${(error as Error).message})`, {
        cause: error,
      });
    }
    if (bytes.length !== declared) {
      throw new BadFileError(
        "ARCHIVE_SIZE_MISMATCH",
        displayName,
        bytes.length > declared
          ? `holds more than the ${declared} bytes it declares`
          : `holds ${bytes.length} bytes but declares ${declared}`,
      );
    }
    const crc = crc32(bytes);
    if (crc !== raw.crc32) {
      throw new BadFileError(
        "ARCHIVE_CHECKSUM",
        displayName,
        `CRC-32 is ${hex(crc)} but the archive declares ${hex(raw.crc32)}: the archive is damaged`,
      );
    }
    return bytes;
  }

  /**
   * An entry's stored bytes: the local header and the data in one positioned read (the local
   * header's name and extra field lengths are checked; they may differ from the central ones).
   */
  private async readData(raw: CentralRecord): Promise<Buffer> {
    const start = raw.localHeaderOffset;
    const guess = LOCAL_HEADER_BYTES + raw.nameRaw.length + raw.compressedSize;
    let buffer = Buffer.allocUnsafe(guess);
    let { bytesRead } = await this.handle.read(buffer, 0, guess, start);
    if (bytesRead < LOCAL_HEADER_BYTES || buffer.readUInt32LE(0) !== LOCAL_HEADER_SIGNATURE) {
      throw new Error(`no local file header at offset ${start}`);
    }
    const dataStart = LOCAL_HEADER_BYTES + buffer.readUInt16LE(26) + buffer.readUInt16LE(28);
    const dataEnd = dataStart + raw.compressedSize;
    if (dataEnd > guess) {
      buffer = Buffer.allocUnsafe(dataEnd);
      ({ bytesRead } = await this.handle.read(buffer, 0, dataEnd, start));
    }
    if (bytesRead < dataEnd) throw new Error(`the archive ends ${dataEnd - bytesRead} bytes into the entry`);
    return buffer.subarray(dataStart, dataEnd);
  }

  /** Closes the archive; resolves once its file descriptor is closed. Safe to call twice. */
  async close(): Promise<void> {
    if (!this.open) return;
    this.open = false;
    await this.handle.close();
  }
}

function hex(value: number): string {
  return `0x${value.toString(16).padStart(8, "0")}`;
}
