import { randomBytes } from "node:crypto";
import { open, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { environmentErrorOf } from "../base/environmentError.js";
import { UsageError } from "../base/errors.js";
import { writeFully } from "../base/writeFully.js";

/**
 * Writes a file atomically: the content goes to a temporary file beside it, which is then
 * renamed over `file`, so a reader never sees a half-written report. The temporary file is
 * removed on failure. A full disk, a read-only folder or a denied permission is an
 * EnvironmentError naming `file` (an existing one is left as it was); a folder that does not
 * exist, a UsageError.
 */
export async function writeAtomic(
  file: string,
  content: string | Uint8Array | AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>,
): Promise<void> {
  const temp = join(dirname(file), `.${basename(file)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  const refused = (error: unknown) =>
    environmentErrorOf(error, file, `an existing ${file} is as it was`) ??
    ((error as NodeJS.ErrnoException).code === "ENOENT" || (error as NodeJS.ErrnoException).code === "ENOTDIR"
      ? new UsageError(
          `cannot write ${file}: its folder ${dirname(file)} does not exist: create it, or give another path`,
          { cause: error },
        )
      : error);
  const handle = await open(temp, "w").catch((error: unknown) => {
    throw refused(error);
  });
  try {
    try {
      const write = (chunk: string | Uint8Array) => writeFully(handle, chunk);
      if (typeof content === "string" || content instanceof Uint8Array) await write(content);
      else for await (const chunk of content) await write(chunk);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw refused(error);
  }
}
