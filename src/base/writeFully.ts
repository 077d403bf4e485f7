import type { FileHandle } from "node:fs/promises";

/**
 * Writes all of `chunk` to `handle`. A write may take fewer bytes than it was given (a disk
 * that fills up, a file size limit) without an error: `FileHandle.write` returns the count and
 * the rest would be lost in silence. The write after a short one fails with the reason
 * (ENOSPC, EFBIG), so a file is whole or its writer throws.
 */
export async function writeFully(handle: FileHandle, chunk: string | Uint8Array): Promise<void> {
  const bytes = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
  for (let offset = 0; offset < bytes.length;) {
    const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset);
    offset += bytesWritten;
  }
}
