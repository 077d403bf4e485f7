import { open } from "node:fs/promises";
import { UsageError } from "../base/errors.js";
import { fileNotFound, isNotFound } from "../base/fileNotFound.js";

/** How a structured file is read. */
export interface StructuredLimits {
  /** The largest file read (bytes), and what the file is, for the message (`a budgets file`); default no limit. */
  maxBytes?: number;
  what?: string;
  /** What the file is, for "not found" (`price list`); default `file`. */
  role?: string;
}

/** `n` bytes as people read them: `512 KiB`, `10.5 MiB`. */
function bytesText(n: number): string {
  return n >= 2 ** 20 ? `${+(n / 2 ** 20).toFixed(1)} MiB` : n >= 1024 ? `${+(n / 1024).toFixed(1)} KiB` : `${n} bytes`;
}

/**
 * Reads a JSON (`.json`) or YAML file into a plain value; a UsageError names the file when it
 * cannot (code `INPUT_NOT_FOUND` when it does not exist). With `limits.maxBytes`, a file larger than that (or not a regular file) is refused
 * before it is read or parsed.
 */
export async function readStructured(file: string, limits: StructuredLimits = {}): Promise<unknown> {
  return parseStructured((await readBytes(file, limits)).toString("utf8"), file);
}

/** A file's bytes (refused beyond `limits.maxBytes`, see `readStructured`); a UsageError names the file when it cannot be read. */
export async function readBytes(file: string, limits: StructuredLimits = {}): Promise<Buffer> {
  try {
    const handle = await open(file, "r");
    try {
      if (limits.maxBytes !== undefined) {
        const stat = await handle.stat();
        if (!stat.isFile())
          throw new UsageError(`${file}: not a regular file (${limits.what ?? "the file"} is read from a file)`);
        if (stat.size > limits.maxBytes) {
          throw new UsageError(
            `${file}: ${bytesText(stat.size)} is more than ${limits.what ?? "the file"} may be (at most ${bytesText(limits.maxBytes)})`,
          );
        }
      }
      return await handle.readFile();
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (error instanceof UsageError) throw error;
    if (isNotFound(error)) throw fileNotFound(limits.role ?? "file", file, { cause: error });
    throw new UsageError(`cannot read ${file}: ${(error as Error).message}`, { cause: error });
  }
}

/** The text of a JSON (`file` ends in `.json`) or YAML file as a plain value; a UsageError names the file when it is neither. */
export async function parseStructured(text: string, file: string): Promise<unknown> {
  try {
    // The YAML parser loads only for YAML files.
    return file.toLowerCase().endsWith(".json") ? JSON.parse(text) : (await import("yaml")).parse(text);
  } catch (error) {
    throw new UsageError(
      `${file}: not valid ${file.toLowerCase().endsWith(".json") ? "JSON" : "YAML"}: ${(error as Error).message}`,
      { cause: error },
    );
  }
}
