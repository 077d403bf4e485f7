import { readFile } from "node:fs/promises";
import { UsageError } from "../base/errors.js";

/** Reads a JSON (`.json`) or YAML file into a plain value; a UsageError names the file when it cannot. */
export async function readStructured(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as Error).message}`, { cause: error });
  }
  try {
    // The YAML parser loads only for YAML files.
    return file.toLowerCase().endsWith(".json") ? JSON.parse(text) : (await import("yaml")).parse(text);
  } catch (error) {
    throw new UsageError(`${file}: not valid ${file.toLowerCase().endsWith(".json") ? "JSON" : "YAML"}: ${(error as Error).message}`, { cause: error });
  }
}
