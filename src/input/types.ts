/** What the reader finds in zips and trees: account-hours and the files that make them. */
import type { BadFileError } from "../base/errors.js";
import type { ArchiveKind } from "./archive.js";

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
  /** The file's bytes (empty while `deferred`). */
  bytes: Uint8Array;
  /**
   * A tree file left unread (`ReadOptions.deferTreeReads`): where it is, its size when
   * indexed, and the most bytes it may have. `readDeferred` reads it into `bytes`.
   */
  deferred?: DeferredRead;
}

/** Where to read a tree file the reader left unread. */
export interface DeferredRead {
  path: string;
  sizeBytes: number;
  maxBytes: number;
}

/** All files of one account for one hour. */
export interface AccountHour {
  accountId: number;
  /** Start of the hour directory, epoch seconds UTC (the sample time `t`). */
  hourEpoch: number;
  /** One `Account` file, or one or more `CloudSpace` files (sorted by name). */
  sources: Source[];
}

/** Where one file of an account-hour is, found by indexing names only (no bytes read). */
export interface SourceLocation {
  /** Display name: a file path, or `archive.zip!entry/path` for a zip entry. */
  name: string;
  /** The zip archive's path, when the file is a zip entry. */
  archive?: string;
  /** The entry's name inside the archive. */
  entry?: string;
  root: SourceRoot;
  /** Packed encoding (`.packed` suffix, or the `packed` option). */
  packed: boolean;
  /** The file's size in bytes (a zip entry's declared uncompressed size). */
  sizeBytes: number;
}

/** One account-hour found by `listAccountHours`: its files, not their bytes. */
export interface AccountHourLocation {
  accountId: number;
  /** Start of the hour directory, epoch seconds UTC. */
  hourEpoch: number;
  /** Every file of the account-hour, in the order `readAccountHours` yields them. */
  sources: SourceLocation[];
}

/** Safety limits on zip archives and files (docs/input.md). */
export interface InputLimits {
  /** Largest file or zip entry read, in bytes (uncompressed). Default 256 MiB. */
  maxEntryBytes?: number;
  /** Largest compression ratio (uncompressed / compressed size) of a zip entry. Default 1000. */
  maxCompressionRatio?: number;
  /** Most entries in one zip archive (its central directory). Default 1,000,000. */
  maxEntries?: number;
  /** Largest sum of the uncompressed sizes of the consumption entries of one zip archive, in bytes. Default 64 GiB. */
  maxTotalBytes?: number;
  /**
   * Largest sum of the sizes of the files of one account-hour (all read into memory together),
   * in bytes; the files of an account-hour over it are refused, each named. Default 512 MiB.
   */
  maxAccountHourBytes?: number;
}

/** Options of `listAccountHours` and `readAccountHours`. */
export interface ListOptions extends InputLimits {
  /** Read every file as packed Cap'n Proto, whatever its name (`--packed`). Default false: only `*.packed` files are. */
  packed?: boolean;
  /**
   * Called with each bad file (impossible path, unsafe or corrupt zip entry, unreadable file); reading
   * goes on without it (`--skip-bad`). Without it, the first bad file throws its BadFileError.
   */
  onBadFile?: (error: BadFileError) => void;
  /**
   * Only the account-hours it selects, by path: the files of the others are passed over
   * unread, neither counted as ignored nor checked. Default: every account-hour.
   */
  select?: AccountHourSelection;
  /**
   * The names the inputs go by in messages and the manifest (`name!entry` for a zip), one per
   * input, e.g. where a downloaded archive came from rather than the temporary file it
   * waits in. Default: the inputs as given.
   */
  inputNames?: readonly string[];
  /** The kinds of archive an input file may be, known by their bytes (see `openArchive`). Default: zip. */
  archiveKinds?: readonly ArchiveKind[];
  /**
   * The order account-hours come in: `account` (by account, then hour) or `hour` (by hour, then
   * account: every account's hour together, for a consumer that finishes an hour before the
   * next, as the hourly lines do). Default `account`.
   */
  order?: "account" | "hour";
}

/** Account-hours chosen by their paths: one account, and hours in `[start, end)` (epoch seconds). Each part is optional. */
export interface AccountHourSelection {
  accountId?: number;
  start?: number;
  end?: number;
}

/** Progress of `readAccountHours`, for a progress bar. Totals are known once inputs are indexed. */
export interface ReadProgress {
  /** Files (tree files and zip entries) read so far. */
  filesRead: number;
  /** Bytes read so far (uncompressed). */
  bytesRead: number;
  /** Files found by indexing. */
  filesTotal: number;
  /** Sum of their sizes in bytes (zip entries: declared uncompressed size). */
  bytesTotal: number;
}

/** Options of `readAccountHours`. */
export interface ReadOptions extends ListOptions {
  /** Called after indexing (with 0 read) and after each account-hour is read. */
  onProgress?: (progress: ReadProgress) => void;
  /** Most account-hours read ahead of the consumer (reads overlap with decoding). Default 16. */
  readAheadHours?: number;
  /** Most bytes read ahead of the consumer; at least one account-hour is always read. Default 64 MiB. */
  readAheadBytes?: number;
  /**
   * Leave tree files unread: their sources come with `deferred` set and empty `bytes`, for
   * the consumer to read where it decodes (a worker thread), with `readDeferred`. Zip
   * entries are read as always. Default false.
   */
  deferTreeReads?: boolean;
  /**
   * Start handing out account-hours of a large input folder while it is still being walked,
   * once `streamAfterBytes` of consumption files are found (a smaller tree is indexed whole
   * first, as without it): see `streamInputs`. Only for a consumer that can read the inputs
   * again when iterating throws `StreamFallback` (the tree was not in reading order after
   * all). Default: index the inputs whole before the first account-hour.
   */
  streamAfterBytes?: number;
}

/** What `listAccountHours` finds: account-hours by name only, and the paths it ignored. */
export interface AccountHourListing {
  /** Sorted by accountId, then hourEpoch. */
  accountHours: AccountHourLocation[];
  /** Files found (tree files and zip entries at consumption paths). */
  filesTotal: number;
  /** Sum of their sizes in bytes. */
  bytesTotal: number;
  /** Files whose path is not a consumption path, ignored. */
  ignoredPaths: number;
  /** The first few ignored paths (display names), to show the user. */
  ignoredExamples: string[];
  /** Copies Syncthing left (`.stversions` folders, `*.sync-conflict-*` files), never read: display names. */
  syncthingCopies: string[];
  /** Bad files reported to `onBadFile`. */
  badFiles: number;
}

/** What `readAccountHours` did, complete once iteration ends. */
export interface ReadSummary {
  /** Files read (tree files and zip entries). */
  filesRead: number;
  /** Bytes read (uncompressed). */
  bytesRead: number;
  /** Account-hours yielded. */
  accountHours: number;
  /** Files whose path is not a consumption path, ignored. */
  ignoredPaths: number;
  /** The first few ignored paths (display names). */
  ignoredExamples: string[];
  /** Copies Syncthing left (`.stversions` folders, `*.sync-conflict-*` files), never read: display names. */
  syncthingCopies: string[];
  /** Bad files reported to `onBadFile`. */
  badFiles: number;
}
