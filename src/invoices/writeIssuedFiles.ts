import { randomBytes } from "node:crypto";
import { constants, type Stats } from "node:fs";
import { link, lstat, mkdir, open, rename, rm, stat } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { UsageError } from "../base/errors.js";
import type { DuckDBConnection } from "@duckdb/node-api";
import { sha256Hex, type IssuedFile } from "./register/appendToRegister.js";
import { readRegisterFiles, type RegisterEntry } from "./register/readRegister.js";
import type { IssueStep } from "./recordDocuments.js";

/** A file of an issued document in the `--out` folder. */
export interface WrittenFile {
  /** Its path (`out` joined with its name). */
  path: string;
  sha256: string;
  /** False when the folder already held it, byte for byte (then it was left as it was). */
  written: boolean;
}

/** What a stat says a name holds. */
function kindOf(stats: Stats): string {
  if (stats.isFile()) return "a file";
  if (stats.isDirectory()) return "a folder";
  if (stats.isFIFO()) return "a named pipe (FIFO)";
  if (stats.isSocket()) return "a socket";
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return "a device";
  if (stats.isSymbolicLink()) return "a symbolic link";
  return "not a regular file";
}

function notAFile(path: string, what: string): UsageError {
  return new UsageError(
    `${path} is ${what}: the name of an issued document's file holds that file or nothing, and is never followed, read or replaced; ` +
      "move it away or write to another folder (the out option)",
    { code: "NOT_A_FILE" },
  );
}

/** Opening a name to compare it: never following a symbolic link, never waiting on a named pipe. */
const OPEN_TO_COMPARE = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * What `path` holds against `bytes`: nothing ("missing"), a regular file of these bytes ("same") or
 * of others ("other"). A symbolic link, a named pipe, a device or a folder at the name is a
 * UsageError (NOT_A_FILE): it is opened without following links or blocking and checked with
 * fstat before a byte is read, and a file is read only when its size is that of `bytes`.
 */
async function heldAs(path: string, bytes: Uint8Array): Promise<"missing" | "same" | "other"> {
  let handle;
  try {
    handle = await open(path, OPEN_TO_COMPARE);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return "missing";
    if (code === "ELOOP") throw notAFile(path, "a symbolic link");
    if (code === "ENXIO" || code === "EOPNOTSUPP") throw notAFile(path, "a socket or a device");
    throw error;
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw notAFile(path, kindOf(stats));
    if (stats.size !== bytes.length) return "other";
    const held = Buffer.alloc(bytes.length);
    const { bytesRead } = await handle.read(held, 0, held.length, 0);
    return bytesRead === held.length && Buffer.compare(held, bytes) === 0 ? "same" : "other";
  } finally {
    await handle.close();
  }
}

function otherBytes(path: string): UsageError {
  return new UsageError(
    `${path} exists with other bytes than the register's: an issued document's file is never overwritten; ` +
      "move it away or write to another folder (the out option)",
    { code: "FILE_EXISTS" },
  );
}

function notAFolder(out: string, what: string): UsageError {
  return new UsageError(`the out folder ${out}: ${what}: give a folder (made when missing)`, {
    code: "OUT_NOT_FOLDER",
  });
}

/**
 * Makes the `--out` folder when missing, one level at a time from the nearest folder that exists
 * (Node's recursive mkdir loops for ever under /proc). A UsageError (OUT_NOT_FOLDER) when it, or a
 * folder above it, is something else or cannot be made there; the machine's refusals (permission,
 * read-only, full) are thrown as they are, for `environmentErrorOf`.
 */
export async function outFolder(out: string): Promise<void> {
  const missing: string[] = [];
  for (let folder = resolve(out); ; folder = dirname(folder)) {
    const found = await stat(folder).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return undefined;
      if (error.code === "ENOTDIR") throw notAFolder(out, `${folder} is below a file`);
      if (error.code === "ENAMETOOLONG" || error.code === "ELOOP")
        throw notAFolder(out, "the path is too long or loops");
      throw error;
    });
    if (found === undefined) {
      if (folder === dirname(folder)) throw notAFolder(out, "no folder above it exists");
      missing.unshift(folder);
      continue;
    }
    if (!found.isDirectory()) throw notAFolder(out, `${folder} is ${kindOf(found)}`);
    break;
  }
  for (const folder of missing) {
    await mkdir(folder).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "EEXIST") return; // made meanwhile by another run
      if (error.code === "ENOENT" || error.code === "ENOTDIR") throw notAFolder(out, `${folder} cannot be made there`);
      throw error;
    });
  }
}

/** Throws a UsageError when `out` holds, at one of these names, a file with other bytes (FILE_EXISTS) or anything but a file (NOT_A_FILE). */
export async function checkIssuedFiles(out: string, files: readonly IssuedFile[]): Promise<void> {
  for (const file of files) {
    if ((await heldAs(join(out, file.name), file.bytes)) === "other") throw otherBytes(join(out, file.name));
  }
}

async function writeSynced(path: string, bytes: Uint8Array): Promise<void> {
  const handle = await open(path, "wx");
  try {
    await handle.write(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Gives the file `temp` the name `path` unless a file has it: false when one has. A file system
 * without hard links (EPERM, ENOTSUP) gets a rename after a look, which a writer racing for the
 * same name in that instant could lose to: still never a half-written file under the name.
 */
async function linkNew(temp: string, path: string): Promise<boolean> {
  try {
    await link(temp, path);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return false;
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EOPNOTSUPP") throw error;
    if ((await lstat(path).catch(() => undefined)) !== undefined) return false;
    await rename(temp, path);
    return true;
  }
}

/**
 * Writes issued files into `out` (made when missing), never over a file: each goes to a
 * temporary file that is then linked to its name, which fails if the name exists meanwhile. A
 * file already there with the same bytes is left as it is; with other bytes, a UsageError
 * (FILE_EXISTS) names it. `onFile` is told of each file once it is in place.
 */
export async function writeIssuedFiles(
  out: string,
  files: readonly IssuedFile[],
  onFile?: (file: WrittenFile) => void,
): Promise<WrittenFile[]> {
  await outFolder(out);
  const written: WrittenFile[] = [];
  for (const file of files) {
    const path = join(out, file.name);
    let wrote = false;
    if ((await heldAs(path, file.bytes)) === "missing") {
      const temp = join(out, `.${file.name}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
      try {
        await writeSynced(temp, file.bytes);
        wrote = await linkNew(temp, path);
      } finally {
        await rm(temp, { force: true });
      }
    }
    if (!wrote && (await heldAs(path, file.bytes)) !== "same") throw otherBytes(path);
    const entry = { path, sha256: sha256Hex(file.bytes), written: wrote };
    written.push(entry);
    onFile?.(entry);
  }
  return written;
}

/** A document of the register and its files in `out`. */
export interface DocumentWritten {
  entry: RegisterEntry;
  files: WrittenFile[];
}

/** Writes the files of register entries into `out`, from the register's bytes. */
export async function writeDocuments(
  connection: DuckDBConnection,
  entries: readonly RegisterEntry[],
  out: string,
  onStep?: (step: IssueStep) => void,
): Promise<DocumentWritten[]> {
  const written: DocumentWritten[] = [];
  for (const entry of entries) {
    written.push({
      entry,
      files: await writeIssuedFiles(out, await readRegisterFiles(connection, entry.document.number), () =>
        onStep?.("file"),
      ),
    });
  }
  return written;
}
