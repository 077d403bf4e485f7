import { open as openFile, type FileHandle } from "node:fs/promises";
import { promisify } from "node:util";
import { inflateRaw, inflateRawSync } from "node:zlib";
import yauzl from "yauzl";
import { BadFileError } from "../errors.js";
import { BlockReader } from "./blockReader.js";
import { crc32 } from "./crc32.js";
import type { InputLimits } from "./types.js";

const inflateRawAsync = promisify(inflateRaw);
/** Entries up to this compressed size are inflated on the main thread (cheaper than a thread hop). */
const SYNC_INFLATE_BYTES = 16 * 1024;
const LOCAL_HEADER_SIGNATURE = 0x04034b50;
const LOCAL_HEADER_BYTES = 30;

/** A file entry of a zip archive's central directory, with its checked, decoded name. */
export interface ZipEntry {
  /** The entry's name, as stored (forward slashes, never absolute, never `..`). */
  name: string;
  /** `archive!name`, for messages. */
  displayName: string;
  /** Declared uncompressed size, bytes. */
  sizeBytes: number;
  raw: yauzl.Entry;
}

/** What the central directory holds: safe file entries, and the unsafe ones as errors. */
export interface ZipListing {
  entries: ZipEntry[];
  bad: BadFileError[];
}

/**
 * An open zip archive. Names and sizes come from the central directory only; entries are read
 * into memory on demand, never extracted by path. Checks every name (no absolute path, no `..`,
 * no backslash, no duplicate) and, when read, the declared size and the CRC. The archive owns one
 * file descriptor until `close()`.
 */
export class ZipArchive {
  private constructor(
    /** The archive's path as given, for messages. */
    readonly displayName: string,
    private readonly zip: yauzl.ZipFile,
    /** The archive's only file descriptor: yauzl reads the central directory through it, we read entries. */
    private readonly handle: FileHandle,
  ) {
    // Errors reach us through promises; this keeps a late one from crashing the process.
    zip.on("error", () => {});
  }

  /** Opens `path`; a file that is not a readable zip, or one with too many entries, is a BadFileError. */
  static async open(path: string, displayName: string, limits: Required<InputLimits>): Promise<ZipArchive> {
    const handle = await openFile(path, "r").catch((error: unknown) => {
      throw new BadFileError("ZIP_CORRUPT", displayName, `cannot open the archive (${(error as Error).message})`, { cause: error });
    });
    let zip: yauzl.ZipFile;
    try {
      const { size } = await handle.stat();
      // Names and sizes are checked per entry in list() and check(), so one bad entry does not
      // make the rest of an archive unreadable (yauzl's own checks stop the whole directory).
      zip = await yauzl.fromRandomAccessReaderPromise(new BlockReader(handle, size), size, {
        lazyEntries: true,
        autoClose: false,
        decodeStrings: false,
        validateEntrySizes: false,
        strictFileNames: true,
      });
    } catch (error) {
      await handle.close();
      throw new BadFileError("ZIP_CORRUPT", displayName, `not a readable zip archive (${(error as Error).message})`, {
        cause: error,
      });
    }
    const archive = new ZipArchive(displayName, zip, handle);
    if (zip.entryCount > limits.maxEntries) {
      await archive.close();
      throw new BadFileError(
        "ZIP_TOO_MANY_ENTRIES",
        displayName,
        `${zip.entryCount} entries, more than the limit of ${limits.maxEntries} (raise maxEntries if the archive is trusted)`,
      );
    }
    return archive;
  }

  /** Reads the central directory. A corrupt directory is a BadFileError for the whole archive. */
  async list(): Promise<ZipListing> {
    const entries: ZipEntry[] = [];
    const bad: BadFileError[] = [];
    const seen = new Map<string, ZipEntry | null>();
    try {
      for await (const raw of this.zip.eachEntry()) {
        const name = yauzl.getFileNameLowLevel(raw.generalPurposeBitFlag, raw.fileNameRaw, raw.extraFields, true);
        const displayName = `${this.displayName}!${name}`;
        const unsafe = name.includes("\0") ? "NUL character in the name" : yauzl.validateFileName(name);
        if (unsafe !== null) {
          bad.push(new BadFileError("ZIP_UNSAFE_NAME", displayName, `unsafe entry name (${unsafe}); the entry is not read`));
          continue;
        }
        if (name.endsWith("/")) continue; // a directory entry
        if (seen.has(name)) {
          if (seen.get(name)) {
            bad.push(new BadFileError("ZIP_DUPLICATE", displayName, "the archive holds this entry name more than once; none of them is read"));
            seen.set(name, null); // reported once; every copy is left out below
          }
          continue;
        }
        const entry: ZipEntry = { name, displayName, sizeBytes: raw.uncompressedSize, raw };
        seen.set(name, entry);
        entries.push(entry);
      }
    } catch (error) {
      throw new BadFileError("ZIP_CORRUPT", this.displayName, `corrupt central directory (${(error as Error).message})`, {
        cause: error,
      });
    }
    return { entries: entries.filter((entry) => seen.get(entry.name) !== null), bad };
  }

  /** Why `entry` must not be read (too large, bomb ratio, lying stored size, unsupported), or null. */
  check(entry: ZipEntry, limits: Required<InputLimits>): BadFileError | null {
    const { raw, displayName } = entry;
    if (raw.isEncrypted()) return new BadFileError("ZIP_CORRUPT", displayName, "encrypted entry, not supported");
    if (raw.compressionMethod !== 0 && raw.compressionMethod !== 8) {
      return new BadFileError("ZIP_CORRUPT", displayName, `unsupported compression method ${raw.compressionMethod} (use deflate or store)`);
    }
    if (raw.uncompressedSize > limits.maxEntryBytes || raw.compressedSize > limits.maxEntryBytes) {
      return new BadFileError(
        "ZIP_TOO_LARGE",
        displayName,
        `declares ${Math.max(raw.uncompressedSize, raw.compressedSize)} bytes, more than the limit of ${limits.maxEntryBytes} (raise maxEntryBytes if the file is trusted)`,
      );
    }
    if (raw.compressionMethod === 0 && raw.compressedSize !== raw.uncompressedSize) {
      return new BadFileError(
        "ZIP_SIZE_MISMATCH",
        displayName,
        `stored entry declares ${raw.uncompressedSize} bytes but holds ${raw.compressedSize}`,
      );
    }
    if (raw.uncompressedSize > raw.compressedSize * limits.maxCompressionRatio) {
      const ratio = raw.compressedSize === 0 ? "∞" : (raw.uncompressedSize / raw.compressedSize).toFixed(0);
      return new BadFileError(
        "ZIP_RATIO",
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
      if (raw.compressionMethod === 0) bytes = compressed;
      else if (compressed.length <= SYNC_INFLATE_BYTES) bytes = inflateRawSync(compressed, { maxOutputLength: declared + 1 });
      else bytes = await inflateRawAsync(compressed, { maxOutputLength: declared + 1 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE") {
        throw new BadFileError("ZIP_SIZE_MISMATCH", displayName, `holds more than the ${declared} bytes it declares`);
      }
      throw new BadFileError("ZIP_CORRUPT", displayName, `unreadable entry (${(error as Error).message})`, { cause: error });
    }
    if (bytes.length !== declared) {
      throw new BadFileError(
        "ZIP_SIZE_MISMATCH",
        displayName,
        bytes.length > declared ? `holds more than the ${declared} bytes it declares` : `holds ${bytes.length} bytes but declares ${declared}`,
      );
    }
    const crc = crc32(bytes);
    if (crc !== raw.crc32) {
      throw new BadFileError(
        "ZIP_CRC",
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
  private async readData(raw: yauzl.Entry): Promise<Buffer> {
    const start = raw.relativeOffsetOfLocalHeader;
    const guess = LOCAL_HEADER_BYTES + raw.fileNameLength + raw.extraFieldLength + raw.compressedSize;
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
    if (!this.zip.isOpen) return;
    this.zip.close();
    await this.handle.close();
  }
}

function hex(value: number): string {
  return `0x${value.toString(16).padStart(8, "0")}`;
}
