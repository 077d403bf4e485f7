import { randomBytes } from "node:crypto";
import { mkdir, stat } from "node:fs/promises";
import { basename, dirname, join, sep } from "node:path";
import { isoUtc } from "../time.js";

/** `20261001T000000Z` for epoch seconds: ISO 8601 basic format, safe in file names everywhere. */
function compactUtc(epochSeconds: number): string {
  return isoUtc(epochSeconds).replace(/[-:]/g, "");
}

/** The file name a directory `--out` gets: `consumption-7-20261001T000000Z-20261101T000000Z.zip`. */
export function consumptionFileName(accountId: number, startEpoch: number, endEpoch: number): string {
  return `consumption-${accountId}-${compactUtc(startEpoch)}-${compactUtc(endEpoch)}.zip`;
}

/** True when `out` names a directory: it ends with a separator or is an existing directory. */
export async function isDirectoryOut(out: string): Promise<boolean> {
  if (out.endsWith("/") || out.endsWith(sep)) return true;
  try {
    return (await stat(out)).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Where the archive of `accountId` goes for `--out`: into the directory (named by
 * {@link consumptionFileName}) or the file itself. Creates missing parent directories.
 */
export async function consumptionFilePath(out: string, accountId: number, startEpoch: number, endEpoch: number): Promise<string> {
  const file = (await isDirectoryOut(out)) ? join(out, consumptionFileName(accountId, startEpoch, endEpoch)) : out;
  await mkdir(dirname(file), { recursive: true });
  return file;
}

/** A temporary name beside `file` (same directory, so the final rename is atomic), ending in `.zip`. */
export function temporaryPath(file: string): string {
  return join(dirname(file), `.${basename(file)}.part-${process.pid}-${randomBytes(4).toString("hex")}.zip`);
}
