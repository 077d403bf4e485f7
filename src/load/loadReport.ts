/** A file that could not be used, and why (docs/cli.md). */
export interface SkippedFile {
  /** Display name: path, or archive!entry. */
  file: string;
  /** Stable error code, e.g. CAPNP_OUT_OF_BOUNDS or CONFLICT. */
  code: string;
  reason: string;
}

/** What reading the inputs found, beyond the data itself: it travels with every report. */
export interface LoadReport {
  /** Input arguments as given (paths, zips, or the database file). */
  inputs: string[];
  /** Files read and loaded. */
  filesLoaded: number;
  /** Account-hours loaded. */
  accountHours: number;
  /** Byte-identical duplicates dropped (display names of the dropped copies). */
  duplicates: string[];
  /** Bad files skipped under `skipBad` (never silently: every report lists them). */
  skipped: SkippedFile[];
  /** Files whose path is not a consumption path, ignored. */
  ignoredPaths: number;
  /**
   * Copies Syncthing left in the inputs (`.stversions` folders, `*.sync-conflict-*` files),
   * never read: display names. Known only when reading inputs (a `.duckdb` file does not keep them).
   */
  syncthingCopies?: string[];
}
