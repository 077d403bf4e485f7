import type { DuckDBConnection } from "@duckdb/node-api";

/**
 * The statuses of a manifest row (`files.status`):
 * - `loaded`: the file's data is in the data tables;
 * - `duplicate`: byte-identical (same SHA-256) to a file of the same account-hour that is
 *   loaded; nothing was loaded from it;
 * - `rejected`: unreadable, unsafe, or in conflict with another file (`code`, `reason` say
 *   why); nothing was loaded from it;
 * - `superseded`: it was loaded, then `ingest --replace` swapped its account-hour for another
 *   file; its rows are gone from the data tables, the manifest row stays for audit.
 */
export const FILE_STATUSES = ["loaded", "duplicate", "rejected", "superseded"] as const;

/** A manifest row's status, see {@link FILE_STATUSES}. */
export type FileStatus = (typeof FILE_STATUSES)[number];

/** A row of the `files` manifest (schema.ts). */
export interface ManifestRow {
  sha256: string;
  /** Display name: a path, or archive!entry. */
  source: string;
  accountId: number | null;
  hourEpoch: number | null;
  sizeBytes: number;
  status: FileStatus;
  reason: string | null;
  code: string | null;
}

/** A loaded file of an account-hour, as the manifest knows it. */
export interface LoadedFile {
  source: string;
  sha256: string;
}

/** What a load reads and records of a manifest (see {@link Manifest}). */
export interface LoadManifest {
  /**
   * Called before each account-hour of the inputs, in the reader's order: a manifest that keeps
   * only a window of the rows already recorded reads the one that holds this account-hour (a
   * promise then; `undefined` when it holds it already), so that {@link loadedFiles} can answer.
   */
  cover?(accountId: number, hourEpoch: number): Promise<void> | undefined;
  /** The files loaded by earlier runs for an account-hour (the reader gives each account-hour once a run); empty when none. */
  loadedFiles(accountId: number, hourEpoch: number): LoadedFile[];
  /** Records a row, written by the next flush. */
  add(row: ManifestRow): void;
  /** Marks the loaded files of an account-hour superseded (by `by`, a display name) and forgets them. */
  supersede(accountId: number, hourEpoch: number, by: string): void;
  /** Takes the rows recorded since the last call: the function returned writes them in a connection's current transaction. */
  take(): (connection: DuckDBConnection) => Promise<void>;
}
