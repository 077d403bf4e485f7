import { open } from "node:fs/promises";
import { BadFileError } from "../errors.js";
import type { IndexedSource } from "./indexInputs.js";
import type { InputLimits, Source } from "./types.js";

/** Reads one indexed file into memory: a zip entry (size and CRC checked) or a tree file (size capped). */
export async function readSource(source: IndexedSource, limits: Required<InputLimits>): Promise<Source> {
  const { name, archive, entry, root, packed } = source.location;
  const bytes = source.zip
    ? await source.zip.archive.read(source.zip.entry)
    : await readTreeFile(source.path!, name, limits.maxEntryBytes);
  return archive === undefined ? { name, root, packed, bytes } : { name, archive, entry, root, packed, bytes };
}

async function readTreeFile(path: string, displayName: string, maxEntryBytes: number): Promise<Uint8Array> {
  const unreadable = (error: unknown) =>
    new BadFileError("INPUT_UNREADABLE", displayName, `cannot read the file (${(error as Error).message})`, { cause: error });
  const handle = await open(path, "r").catch((error: unknown) => {
    throw unreadable(error);
  });
  try {
    const { size } = await handle.stat();
    if (size > maxEntryBytes) {
      throw new BadFileError(
        "INPUT_TOO_LARGE",
        displayName,
        `${size} bytes, more than the limit of ${maxEntryBytes} (raise maxEntryBytes if the file is trusted)`,
      );
    }
    const bytes = Buffer.allocUnsafe(size);
    let length = 0;
    while (length < size) {
      const { bytesRead } = await handle.read(bytes, length, size - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    return length === size ? bytes : bytes.subarray(0, length);
  } catch (error) {
    throw error instanceof BadFileError ? error : unreadable(error);
  } finally {
    await handle.close();
  }
}
