import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, stat } from "node:fs/promises";
import { basename, dirname, join, sep } from "node:path";
import { isoUtc } from "../base/time.js";
import { ownerTag, removeStaleTemporaries } from "../base/staleTemporaries.js";

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
export async function consumptionFilePath(
  out: string,
  accountId: number,
  startEpoch: number,
  endEpoch: number,
): Promise<string> {
  const file = (await isDirectoryOut(out)) ? join(out, consumptionFileName(accountId, startEpoch, endEpoch)) : out;
  await mkdir(dirname(file), { recursive: true });
  return file;
}

/** A download's temporary file: `.<name>.part-<host>-<pid>-<8 hex>.zip`, the owner tag in group 1. */
const PART_FILE = /^\..+\.part-(.+-\d+)-[0-9a-f]{8}\.zip$/;

/** A temporary name beside `file` (same directory, so the final rename is atomic), ending in `.zip`. */
export function temporaryPath(file: string): string {
  return join(dirname(file), `.${basename(file)}.part-${ownerTag()}-${randomBytes(4).toString("hex")}.zip`);
}

/**
 * Removes the temporary files that killed downloads left beside `file` (of this host, their
 * process gone); those of downloads still running stay. Returns the names removed.
 */
export function removeStaleParts(file: string): Promise<string[]> {
  return removeStaleTemporaries(dirname(file), PART_FILE);
}

/** A sync's folder for its archives: `cloudunits-sync-<host>-<pid>-XXXXXX`, the owner tag in group 1. */
const SYNC_FOLDER = /^cloudunits-sync-(.+-\d+)-[A-Za-z0-9]{6}$/;

/**
 * Makes the folder in `parent` where a sync's archives wait to be ingested, first removing the
 * folders of killed syncs (of this host, their process gone); those of syncs still running stay.
 */
export async function makeSyncFolder(parent: string): Promise<string> {
  await removeStaleTemporaries(parent, SYNC_FOLDER);
  return mkdtemp(join(parent, `cloudunits-sync-${ownerTag()}-`));
}
