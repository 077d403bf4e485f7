import { accessSync, constants, existsSync } from "node:fs";
import { dirname } from "node:path";
import { EnvironmentError, type EnvironmentFailure } from "./errors.js";

/** Node's error codes (errno) of a write the machine refused. EFBIG: beyond the process's file size limit (`ulimit -f`), a quota. */
const BY_ERRNO: Record<string, EnvironmentFailure> = {
  ENOSPC: "DISK_FULL",
  EDQUOT: "DISK_FULL",
  EFBIG: "DISK_FULL",
  EROFS: "READ_ONLY",
  EACCES: "PERMISSION_DENIED",
  EPERM: "PERMISSION_DENIED",
};

/** What DuckDB (which gives no errno) says of the same failures. */
const BY_MESSAGE: [RegExp, EnvironmentFailure][] = [
  [/No space left on device|Disk quota exceeded|File too large|could not write all bytes/i, "DISK_FULL"],
  [/Read-only file system/i, "READ_ONLY"],
  [/Permission denied|Operation not permitted/i, "PERMISSION_DENIED"],
];

/** The file a message names in double quotes (DuckDB: `Cannot open file "/srv/w.duckdb": ...`). */
const QUOTED_PATH = /"(\/[^"]+|[A-Za-z]:\\[^"]+)"/;

/** What is left as it was, by default: every writer of cloudunits writes to a temporary file renamed when whole, or in transactions. */
const KEPT = "what was there before is as it was";

/**
 * The {@link EnvironmentError} (exit 8) for `error` when it is the machine refusing a write (a
 * full disk or quota, a read-only file system, permission denied), else undefined. `file` is
 * the path to name (the warehouse, the `--out` file; default: the path the error names);
 * `kept` says what is left as it was. An EnvironmentError is returned as it is, so a caller
 * that wraps again never nests its message.
 */
export function environmentErrorOf(error: unknown, file?: string, kept = KEPT): EnvironmentError | undefined {
  if (error instanceof EnvironmentError) return error;
  if (error === null || typeof error !== "object") return undefined;
  const { path, syscall } = error as { path?: unknown; syscall?: unknown };
  let { code } = error as { code?: unknown };
  // a recursive mkdir under a folder it may not write says ENOENT: ask the nearest folder that exists
  if (code === "ENOENT" && syscall === "mkdir" && typeof path === "string") code = refusalOfNearestFolder(path) ?? code;
  const message = error instanceof Error ? error.message : "";
  const failure =
    (typeof code === "string" ? BY_ERRNO[code] : undefined) ??
    BY_MESSAGE.find(([pattern]) => pattern.test(message))?.[1];
  if (failure === undefined) return undefined;
  const where = file ?? (typeof path === "string" ? path : QUOTED_PATH.exec(message)?.[1]) ?? "a file";
  return new EnvironmentError(failure, where, kept, { cause: error });
}

/** The errno code of a write into the nearest existing folder above `path`, when it is refused; else undefined. */
function refusalOfNearestFolder(path: string): string | undefined {
  for (let folder = dirname(path); ; folder = dirname(folder)) {
    if (existsSync(folder)) {
      try {
        accessSync(folder, constants.W_OK);
        return undefined;
      } catch (error) {
        return (error as { code?: string }).code;
      }
    }
    if (dirname(folder) === folder) return undefined;
  }
}
