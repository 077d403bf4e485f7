import { constants, type Stats } from "node:fs";
import { open as openFile, type FileHandle } from "node:fs/promises";
import { BadFileError } from "../base/errors.js";
import { notARegularFile } from "./readSource.js";
import type { InputLimits } from "./types.js";

/** A file inside an archive. */
export interface ArchiveEntry {
  /** The entry's name, as stored (forward slashes; `listEntries` checks it). */
  name: string;
  /** `archive!name`, for messages. */
  displayName: string;
  /** Declared uncompressed size, bytes. */
  sizeBytes: number;
}

/**
 * An open archive of consumption files (a zip today; a `.tar` reader would be another):
 * lists its entries by name and size without reading them, checks one against the limits,
 * reads one into memory. It owns its file until `close()`.
 */
export interface Archive<Entry extends ArchiveEntry = ArchiveEntry> {
  /** The archive's path as given, for messages. */
  readonly displayName: string;
  /**
   * Every entry (folders too), names as stored: the archive layer checks them (`listEntries`).
   * An archive unsafe as a whole (a corrupt directory, overlapping entries) is a BadFileError.
   */
  list(): Promise<Entry[]>;
  /** Why `entry` cannot be read (its size, its ratio, its encryption, ...), or null. */
  check(entry: Entry, limits: Required<InputLimits>): BadFileError | null;
  /** The entry's bytes (size and checksum checked). */
  read(entry: Entry): Promise<Uint8Array>;
  close(): Promise<void>;
}

/** The first and last bytes of a file, by which an archive kind knows its own. */
export interface ArchiveProbe {
  /** The first bytes (up to `PROBE_BYTES`). */
  head: Uint8Array;
  /** The last bytes (up to `PROBE_BYTES`; the whole file when smaller). */
  tail: Uint8Array;
}

/** A kind of archive: how to know one by its bytes, and how to open one. */
export interface ArchiveKind {
  name: string;
  matches(probe: ArchiveProbe): boolean;
  open(path: string, displayName: string, limits: Required<InputLimits>): Promise<Archive>;
}

/** Bytes read at each end of a file to know its kind: a zip's end record lies within the last 65,557. */
export const PROBE_BYTES = 65_557;

const startsWith = (bytes: Uint8Array, magic: readonly number[]) => magic.every((b, i) => bytes[i] === b);
const ZIP_LOCAL_HEADER = [0x50, 0x4b, 0x03, 0x04];
const ZIP_END_RECORD = [0x50, 0x4b, 0x05, 0x06];

/** Whether `bytes` hold `magic` anywhere. */
function holds(bytes: Uint8Array, magic: readonly number[]): boolean {
  for (let i = bytes.length - magic.length; i >= 0; i--)
    if (bytes[i] === magic[0] && startsWith(bytes.subarray(i), magic)) return true;
  return false;
}

/**
 * Zip: a local file header at the start (PK\3\4), or an end of central directory record
 * (PK\5\6) at the start (an empty zip) or within the last 65,557 bytes (a zip after other
 * data, or one whose first entry is damaged). The reader (yauzl) loads with the first zip.
 */
export const ZIP_KIND: ArchiveKind = {
  name: "zip",
  matches: ({ head, tail }) =>
    startsWith(head, ZIP_LOCAL_HEADER) || startsWith(head, ZIP_END_RECORD) || holds(tail, ZIP_END_RECORD),
  open: async (path, displayName, limits) =>
    (await import("./zipArchive.js")).ZipArchive.open(path, displayName, limits),
};

/** The archive kinds an input file may be, tried in order. */
export const ARCHIVE_KINDS: readonly ArchiveKind[] = [ZIP_KIND];

/**
 * Opens an input archive file for reading without blocking (a FIFO is named, not waited on)
 * and checks it is a regular file; a BadFileError otherwise (the handle then closed).
 */
export async function openArchiveFile(
  path: string,
  displayName: string,
): Promise<{ handle: FileHandle; stats: Stats }> {
  const handle = await openFile(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0)).catch((error: unknown) => {
    throw new BadFileError("ARCHIVE_CORRUPT", displayName, `cannot open the archive (${(error as Error).message})`, {
      cause: error,
    });
  });
  try {
    const stats = await handle.stat();
    const notAFile = notARegularFile(displayName, stats);
    if (notAFile) throw notAFile;
    return { handle, stats };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** Reads the first and last `PROBE_BYTES` of `path` (a file that cannot be read is a BadFileError). */
async function probe(path: string, displayName: string): Promise<ArchiveProbe> {
  const { handle, stats } = await openArchiveFile(path, displayName);
  try {
    const head = new Uint8Array(Math.min(PROBE_BYTES, stats.size));
    await handle.read(head, 0, head.length, 0);
    const tail = new Uint8Array(Math.min(PROBE_BYTES, stats.size));
    await handle.read(tail, 0, tail.length, stats.size - tail.length);
    return { head, tail };
  } catch (error) {
    throw new BadFileError("ARCHIVE_CORRUPT", displayName, `cannot read the archive (${(error as Error).message})`, {
      cause: error,
    });
  } finally {
    await handle.close();
  }
}

/**
 * The archive kind of `kinds` (default every kind known) whose bytes `path` holds, or null
 * when it is of none; a file that cannot be opened or read is a BadFileError.
 */
export async function archiveKindOf(
  path: string,
  displayName: string,
  kinds: readonly ArchiveKind[] = ARCHIVE_KINDS,
): Promise<ArchiveKind | null> {
  const bytes = await probe(path, displayName);
  return kinds.find((k) => k.matches(bytes)) ?? null;
}

/**
 * Opens the input file `path` as the archive kind its bytes show (`kinds`, default every kind
 * known). A file of no kind known is a BadFileError (code ARCHIVE_CORRUPT: a zip is what the
 * service serves) naming the kinds read.
 */
export async function openArchive(
  path: string,
  displayName: string,
  limits: Required<InputLimits>,
  kinds: readonly ArchiveKind[] = ARCHIVE_KINDS,
): Promise<Archive> {
  const kind = await archiveKindOf(path, displayName, kinds);
  if (kind === null) {
    throw new BadFileError(
      "ARCHIVE_CORRUPT",
      displayName,
      `not an archive of a kind read (${kinds.map((k) => k.name).join(", ")}): not a zip archive, nor a consumption file by its path`,
    );
  }
  return kind.open(path, displayName, limits);
}

/**
 * Why an entry's name cannot be used as a path below the archive, or null: a NUL, a backslash
 * (a Windows path that reads as one name on POSIX), an absolute path (`/x`, `C:x`), a `..` part.
 */
export function unsafeEntryName(name: string): string | null {
  if (name.includes("\0")) return "a NUL character in the name";
  if (name.includes("\\")) return "a backslash in the name";
  if (/^\//.test(name) || /^[a-zA-Z]:/.test(name)) return "an absolute path";
  if (name.split("/").includes("..")) return "a `..` part: a path out of the archive";
  return null;
}

/**
 * The entries of an archive of any kind that may be read, and those that may not as errors:
 * an unsafe name (`unsafeEntryName`, ARCHIVE_UNSAFE_NAME), a name held twice
 * (ARCHIVE_DUPLICATE, reported once, and no copy read: which one a tool reads differs).
 * Folder entries (names ending in `/`) are left out.
 */
export async function listEntries<Entry extends ArchiveEntry>(
  archive: Archive<Entry>,
): Promise<{ entries: Entry[]; bad: BadFileError[] }> {
  const bad: BadFileError[] = [];
  const seen = new Map<string, Entry | null>();
  for (const entry of await archive.list()) {
    const unsafe = unsafeEntryName(entry.name);
    if (unsafe !== null) {
      bad.push(
        new BadFileError(
          "ARCHIVE_UNSAFE_NAME",
          entry.displayName,
          `unsafe entry name (${unsafe}); the entry is not read`,
        ),
      );
      continue;
    }
    if (entry.name.endsWith("/")) continue;
    if (!seen.has(entry.name)) {
      seen.set(entry.name, entry);
    } else if (seen.get(entry.name)) {
      bad.push(
        new BadFileError(
          "ARCHIVE_DUPLICATE",
          entry.displayName,
          "the archive holds this entry name more than once; none of them is read",
        ),
      );
      seen.set(entry.name, null);
    }
  }
  return { entries: [...seen.values()].filter((entry): entry is Entry => entry !== null), bad };
}
