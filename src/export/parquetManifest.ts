import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { UsageError } from "../base/errors.js";
import { writeAtomic } from "./writeAtomic.js";

/** The manifest's file name, at the top of the export's directory. */
export const PARQUET_MANIFEST = "manifest.json";

/** What `format` says in every manifest of a cloudunits Parquet export. */
export const PARQUET_MANIFEST_FORMAT = "cloudunits-parquet";

/** One Parquet file of a partition, as written. */
export interface ParquetFileEntry {
  table: string;
  /** Path from the export's directory, with `/`: `machines/year=2026/month=10/part-0.parquet`. */
  file: string;
  rows: number;
  bytes: number;
  /** Hex SHA-256 of the file's bytes. */
  sha256: string;
}

/** One month: every table's file for the month, and what the month holds. */
export interface ParquetPartition {
  year: number;
  /** 1 to 12. */
  month: number;
  /** The month, half-open, ISO 8601 UTC: `[start, end)`. */
  start: string;
  end: string;
  /** Account-hours in the month (rows of `account_hours`). */
  accountHours: number;
  /** Distinct hours with data of at least one account. */
  hours: number;
  /** First and last hour with data (ISO 8601 UTC), or null for a month with none. */
  firstHour: string | null;
  lastHour: string | null;
  /** The accounts with data in the month, ascending. */
  accounts: number[];
  /** When the month was last written (ISO 8601 UTC). */
  exportedAt: string;
  files: ParquetFileEntry[];
}

/** `manifest.json`: what each partition holds. Months are ascending. */
export interface ParquetManifest {
  format: typeof PARQUET_MANIFEST_FORMAT;
  version: 1;
  /** The file layout, with the placeholders `<table>`, `<year>`, `<month>`. */
  layout: string;
  partitions: ParquetPartition[];
  /** The ingest manifest (`files` table), one unpartitioned file, or null before its first write. */
  sourceFiles: ParquetFileEntry | null;
}

/** An empty manifest. */
export function emptyParquetManifest(layout: string): ParquetManifest {
  return { format: PARQUET_MANIFEST_FORMAT, version: 1, layout, partitions: [], sourceFiles: null };
}

/**
 * The manifest of the export in `dir`, or undefined when there is none. Throws a UsageError
 * naming the file when it is not a cloudunits Parquet manifest.
 */
export function readParquetManifest(dir: string): ParquetManifest | undefined {
  const file = join(dir, PARQUET_MANIFEST);
  if (!existsSync(file)) return undefined;
  let manifest: Partial<ParquetManifest>;
  try {
    manifest = JSON.parse(readFileSync(file, "utf8")) as Partial<ParquetManifest>;
  } catch (cause) {
    throw new UsageError(`${file} is not JSON: it is not the manifest of a cloudunits Parquet export`, { cause });
  }
  if (manifest.format !== PARQUET_MANIFEST_FORMAT || manifest.version !== 1 || !Array.isArray(manifest.partitions)) {
    throw new UsageError(
      `${file} is not the manifest of a cloudunits Parquet export (format "${PARQUET_MANIFEST_FORMAT}", version 1)`,
    );
  }
  return manifest as ParquetManifest;
}

/** Writes the manifest atomically (a reader sees the old one or the new one, whole), months ascending. */
export async function writeParquetManifest(dir: string, manifest: ParquetManifest): Promise<void> {
  manifest.partitions.sort((a, b) => a.year - b.year || a.month - b.month);
  await writeAtomic(join(dir, PARQUET_MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
}
