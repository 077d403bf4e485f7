import { WarehouseStorageError } from "../base/errors.js";

/** What DuckDB (or Node) says when a write finds no room: "No space left on device" (ENOSPC), or a disk quota. */
const NO_ROOM = /No space left on device|ENOSPC|Disk quota exceeded|EDQUOT|could not write all bytes/i;

/**
 * A WarehouseStorageError for `error` when it says the disk under `file` is full, else
 * undefined. DuckDB rolls back the transaction a failed write belonged to, so the file keeps
 * what it held: the error says so.
 */
export function storageErrorOf(file: string, error: unknown): WarehouseStorageError | undefined {
  const message = error instanceof Error ? error.message : String(error);
  if (!NO_ROOM.test(message)) return undefined;
  return new WarehouseStorageError(file, `no space left on the device (${message.replace(/^IO Error: /, "").split("\n")[0]})`, { cause: error });
}
