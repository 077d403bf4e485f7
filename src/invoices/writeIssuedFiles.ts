import { randomBytes } from "node:crypto";
import { link, mkdir, open, readFile, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { UsageError } from "../base/errors.js";
import type { DuckDBConnection } from "@duckdb/node-api";
import { sha256Hex, type IssuedFile } from "../store/appendToRegister.js";
import { readRegisterFiles, type RegisterEntry } from "../store/readRegister.js";
import type { IssueStep } from "./recordDocuments.js";

/** A file of an issued document in the `--out` folder. */
export interface WrittenFile {
  /** Its path (`out` joined with its name). */
  path: string;
  sha256: string;
  /** False when the folder already held it, byte for byte (then it was left as it was). */
  written: boolean;
}

/** The bytes of `path`, or undefined when there is no such file. */
async function existing(path: string): Promise<Buffer | undefined> {
  try {
    return await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

const sameBytes = (a: Uint8Array, b: Uint8Array) => Buffer.compare(a, b) === 0;

function otherBytes(path: string): UsageError {
  return new UsageError(
    `${path} exists with other bytes than the register's: an issued document's file is never overwritten; ` +
      "move it away or write to another folder (--out)",
    { code: "FILE_EXISTS" },
  );
}

/** Makes the `--out` folder when missing; a UsageError when it is a file. */
export async function outFolder(out: string): Promise<void> {
  const found = await stat(out).catch(() => undefined);
  if (found !== undefined && !found.isDirectory()) throw new UsageError(`--out ${out} is a file: give a folder (made when missing)`, { code: "OUT_NOT_FOLDER" });
  await mkdir(out, { recursive: true });
}

/** Throws a UsageError (FILE_EXISTS) when `out` holds a file of one of these names with other bytes. */
export async function checkIssuedFiles(out: string, files: readonly IssuedFile[]): Promise<void> {
  for (const file of files) {
    const held = await existing(join(out, file.name));
    if (held !== undefined && !sameBytes(held, file.bytes)) throw otherBytes(join(out, file.name));
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
    if ((await existing(path)) !== undefined) return false;
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
export async function writeIssuedFiles(out: string, files: readonly IssuedFile[], onFile?: (file: WrittenFile) => void): Promise<WrittenFile[]> {
  await outFolder(out);
  const written: WrittenFile[] = [];
  for (const file of files) {
    const path = join(out, file.name);
    let wrote = false;
    const held = await existing(path);
    if (held === undefined) {
      const temp = join(out, `.${file.name}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
      try {
        await writeSynced(temp, file.bytes);
        wrote = await linkNew(temp, path);
      } finally {
        await rm(temp, { force: true });
      }
    }
    if (!wrote && !sameBytes((await existing(path)) ?? new Uint8Array(), file.bytes)) throw otherBytes(path);
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
  connection: DuckDBConnection, entries: readonly RegisterEntry[], out: string, onStep?: (step: IssueStep) => void,
): Promise<DocumentWritten[]> {
  const written: DocumentWritten[] = [];
  for (const entry of entries) {
    written.push({ entry, files: await writeIssuedFiles(out, await readRegisterFiles(connection, entry.document.number), () => onStep?.("file")) });
  }
  return written;
}
