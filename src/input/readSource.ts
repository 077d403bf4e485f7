import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from "node:fs";
import { open } from "node:fs/promises";
import { BadFileError } from "../base/errors.js";
import type { IndexedSource } from "./indexInputs.js";
import type { DeferredRead, InputLimits, Source } from "./types.js";
import { whatItIs } from "./walkTree.js";

/**
 * How tree files are opened: never blocking (a FIFO put at a consumption path after indexing
 * would block a plain open forever), then the type of what was opened is checked.
 */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/** The error of a tree file that cannot be opened, sized or read. */
export function unreadableFile(displayName: string, error: unknown): BadFileError {
  return new BadFileError("INPUT_UNREADABLE", displayName, `cannot read the file (${(error as Error).message})`, {
    cause: error,
  });
}

/** The error of a tree file larger than the limit. */
export function tooLargeFile(displayName: string, sizeBytes: number, maxBytes: number): BadFileError {
  return new BadFileError(
    "INPUT_TOO_LARGE",
    displayName,
    `${sizeBytes} bytes, more than the limit of ${maxBytes} (raise maxEntryBytes if the file is trusted)`,
  );
}

/** The error of what was opened at a file's path, when it is not a regular file (a FIFO, a device); else null. */
export function notARegularFile(displayName: string, stats: Stats): BadFileError | null {
  return stats.isFile()
    ? null
    : new BadFileError("INPUT_NOT_A_FILE", displayName, `${whatItIs(stats)}, not a regular file: it cannot be read`);
}

/**
 * Reads one indexed file into memory: a zip entry (size and CRC checked) or a tree file
 * (size capped); with `defer`, a tree file is left unread (see `readDeferred`).
 */
export async function readSource(source: IndexedSource, limits: Required<InputLimits>, defer = false): Promise<Source> {
  const { name, archive, entry, root, packed } = source.location;
  if (defer && !source.archived) {
    return {
      name,
      root,
      packed,
      bytes: new Uint8Array(0),
      deferred: { path: source.path!, sizeBytes: source.location.sizeBytes, maxBytes: limits.maxEntryBytes },
    };
  }
  const bytes = source.archived
    ? await source.archived.archive.read(source.archived.entry)
    : await readTreeFile(source.path!, name, limits.maxEntryBytes);
  return archive === undefined ? { name, root, packed, bytes } : { name, archive, entry, root, packed, bytes };
}

async function readTreeFile(path: string, displayName: string, maxEntryBytes: number): Promise<Uint8Array> {
  const handle = await open(path, OPEN_FLAGS).catch((error: unknown) => {
    throw unreadableFile(displayName, error);
  });
  try {
    const stats = await handle.stat();
    const notAFile = notARegularFile(displayName, stats);
    if (notAFile) throw notAFile;
    const { size } = stats;
    if (size > maxEntryBytes) throw tooLargeFile(displayName, size, maxEntryBytes);
    const bytes = Buffer.allocUnsafe(size);
    let length = 0;
    while (length < size) {
      const { bytesRead } = await handle.read(bytes, length, size - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    return length === size ? bytes : bytes.subarray(0, length);
  } catch (error) {
    throw error instanceof BadFileError ? error : unreadableFile(displayName, error);
  } finally {
    await handle.close();
  }
}

/**
 * Reads a source the reader left unread (`deferred`) into its `bytes`, synchronously (on a
 * decoding worker, the cheapest way: a third of the CPU of asynchronous reads), and clears
 * `deferred`; a source already read is left as it is. Throws a BadFileError naming the file
 * when it cannot be read or has grown past the size limit. `allocate` gives the buffer the
 * file is read into (default: a new one).
 */
export function readDeferred(source: Source, allocate: (sizeBytes: number) => Uint8Array = Buffer.allocUnsafe): void {
  const deferred = source.deferred;
  if (deferred === undefined) return;
  let fd: number;
  try {
    fd = openSync(deferred.path, OPEN_FLAGS);
  } catch (error) {
    throw unreadableFile(source.name, error);
  }
  try {
    if (readAsIndexed(source, deferred, fd, allocate)) return;
    const stats = fstatSync(fd);
    const notAFile = notARegularFile(source.name, stats);
    if (notAFile) throw notAFile;
    const size = stats.size;
    if (size > deferred.maxBytes) throw tooLargeFile(source.name, size, deferred.maxBytes);
    const bytes = allocate(size);
    let length = 0;
    while (length < size) {
      const bytesRead = readSync(fd, bytes, length, size - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    source.bytes = length === size ? bytes : bytes.subarray(0, length);
    delete source.deferred;
  } catch (error) {
    throw error instanceof BadFileError ? error : unreadableFile(source.name, error);
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads a deferred file of the size it had when indexed, without sizing it again: one read of
 * a byte more than that size gives exactly that size for a file unchanged (the index's `stat`
 * found it a regular file; a FIFO put there since reads 0 bytes). False, with nothing kept, for
 * any other outcome (a file that grew or shrank, or is no longer a file, or was empty), which the
 * caller then sizes with `fstat` and reads anew.
 */
function readAsIndexed(
  source: Source,
  deferred: DeferredRead,
  fd: number,
  allocate: (sizeBytes: number) => Uint8Array,
): boolean {
  const size = deferred.sizeBytes;
  if (size === 0 || size > deferred.maxBytes) return false; // an empty read would not tell a FIFO put there since
  const bytes = allocate(size + 1);
  let bytesRead: number;
  try {
    bytesRead = readSync(fd, bytes, 0, size + 1, 0);
  } catch {
    return false;
  }
  if (bytesRead !== size) return false;
  source.bytes = bytes.subarray(0, size);
  delete source.deferred;
  return true;
}
