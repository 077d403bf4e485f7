import type { EnvironmentError } from "../base/errors.js";
import { environmentErrorOf } from "../base/environmentError.js";

/** What a refused write of the warehouse leaves as it was. */
export const WAREHOUSE_KEPT = "the transaction in flight was rolled back; the warehouse keeps every commit before it";

/**
 * The EnvironmentError (exit 8) for `error` when the machine refused a write of the warehouse
 * `file` (a full disk, a read-only file system, permission denied), else undefined. DuckDB rolls
 * back the transaction a failed write belonged to, so the file keeps every commit: the message
 * says so. An EnvironmentError already made (by an inner call) is returned as it is.
 */
export function storageErrorOf(file: string, error: unknown): EnvironmentError | undefined {
  return environmentErrorOf(error, file, WAREHOUSE_KEPT);
}
