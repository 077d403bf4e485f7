/** What the reader finds in zips and trees: account-hours and the files that make them. */

/** The root message of a source file: a whole `Account`, or one `CloudSpace` of the controller. */
export type SourceRoot = "Account" | "CloudSpace";

/** One file of an account-hour, read into memory. */
export interface Source {
  /** Display name: a file path, or `archive.zip!entry/path` for a zip entry. */
  name: string;
  /** The zip archive's path, when the file is a zip entry. */
  archive?: string;
  /** The entry's name inside the archive. */
  entry?: string;
  root: SourceRoot;
  /** Packed encoding (`.packed` suffix, or the `packed` option). */
  packed: boolean;
  /** The file's bytes. */
  bytes: Uint8Array;
}

/** All files of one account for one hour. */
export interface AccountHour {
  accountId: number;
  /** Start of the hour directory, epoch seconds UTC (the sample time `t`). */
  hourEpoch: number;
  /** One `Account` file, or one or more `CloudSpace` files (sorted by name). */
  sources: Source[];
}
