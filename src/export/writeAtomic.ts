import { randomBytes } from "node:crypto";
import { open, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/**
 * Writes a file atomically: the content goes to a temporary file beside it, which is then
 * renamed over `file`, so a reader never sees a half-written report. The temporary file is
 * removed on failure.
 */
export async function writeAtomic(file: string, content: string | Uint8Array | AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>): Promise<void> {
  const temp = join(dirname(file), `.${basename(file)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  const handle = await open(temp, "w");
  try {
    try {
      const write = (chunk: string | Uint8Array) => (typeof chunk === "string" ? handle.write(chunk) : handle.write(chunk));
      if (typeof content === "string" || content instanceof Uint8Array) await write(content);
      else for await (const chunk of content) await write(chunk);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
