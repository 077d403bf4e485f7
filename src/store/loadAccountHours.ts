import { createHash } from "node:crypto";
import type { DuckDBConnection } from "@duckdb/node-api";
import type { DecodedAccountHour } from "../capnp/records.js";
import { BadFileError, ConflictError } from "../errors.js";
import type { AccountHour } from "../input/types.js";
import { appendAccountHours } from "./append.js";
import { classifySources, type HashedSource } from "./classifySources.js";
import type { Manifest, ManifestRow } from "./manifest.js";
import { DATA_TABLES, type DataTable } from "./schema.js";
import type { SkippedFile } from "./types.js";

/** How {@link loadAccountHours} treats what it finds. */
export interface LoadRules {
  /** Record bad files and conflicts as skipped (manifest `rejected`) and go on. Default false: collect them as errors. */
  skipBad?: boolean;
  /** A different file for an account-hour already in the manifest replaces it (`ingest --replace`). Default false: a conflict. */
  replace?: boolean;
  /** Once an error is found (and not skipBad), stop appending data (the load will fail anyway). Default false. */
  stopOnError?: boolean;
  /** The data tables to fill. Default: all. */
  tables?: readonly DataTable[];
  /** Commit after this many input bytes. Default 64 MiB. */
  batchBytes?: number;
  /** Wrap each batch (data + manifest rows) in one transaction. Default true. */
  transactions?: boolean;
  /** Decodes one account-hour whose sources are the kept files; throws BadFileError. */
  decode: (hour: AccountHour) => DecodedAccountHour;
  /** Called after each committed batch. */
  onBatch?: () => void;
}

/** What a load did (the parts of a LoadReport it knows). */
export interface LoadOutcome {
  filesLoaded: number;
  accountHours: number;
  /** Display names of byte-identical copies dropped. */
  duplicates: string[];
  /** Files skipped under skipBad. */
  skipped: SkippedFile[];
  /** Bad files and conflicts found without skipBad, in input order. */
  errors: (BadFileError | ConflictError)[];
  /** Account-hours replaced (`replace`). */
  replacedHours: number;
}

const sha256Hex = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex");

/**
 * Loads account-hours into the data tables and the manifest: hashes every file, drops
 * byte-identical duplicates, finds conflicts (within the inputs, and with the hours the
 * manifest already holds), decodes, appends in large batches, each committed in one
 * transaction with its manifest rows. Bad files reported by the reader are passed in
 * `readerBadFiles` (filled while iterating) and handled like decode errors.
 */
export async function loadAccountHours(
  connection: DuckDBConnection,
  hours: AsyncIterable<AccountHour>,
  manifest: Manifest,
  readerBadFiles: BadFileError[],
  rules: LoadRules,
): Promise<LoadOutcome> {
  const skipBad = rules.skipBad ?? false;
  const tables = rules.tables ?? DATA_TABLES;
  const batchBytes = rules.batchBytes ?? 64 * 1024 * 1024;
  const transactions = rules.transactions ?? true;
  const outcome: LoadOutcome = { filesLoaded: 0, accountHours: 0, duplicates: [], skipped: [], errors: [], replacedHours: 0 };
  let batch: DecodedAccountHour[] = [];
  let bytesInBatch = 0;
  let readerErrorsSeen = 0;

  const row = (s: HashedSource, hour: AccountHour, status: ManifestRow["status"], reason: string | null, code: string | null): ManifestRow => ({
    sha256: s.sha256, source: s.source.name, accountId: hour.accountId, hourEpoch: hour.hourEpoch,
    sizeBytes: s.source.bytes.byteLength, status, reason, code,
  });
  const reject = (files: { row: ManifestRow }[], error: BadFileError | ConflictError): void => {
    if (!skipBad) {
      outcome.errors.push(error);
      return;
    }
    for (const f of files) {
      manifest.add(f.row);
      outcome.skipped.push({ file: f.row.source, code: f.row.code ?? error.code, reason: f.row.reason ?? error.message });
    }
  };
  const takeReaderErrors = (): void => {
    for (; readerErrorsSeen < readerBadFiles.length; readerErrorsSeen++) {
      const e = readerBadFiles[readerErrorsSeen]!;
      reject([{ row: { sha256: "", source: e.file, accountId: null, hourEpoch: null, sizeBytes: 0, status: "rejected", reason: e.reason, code: e.code } }], e);
    }
  };
  const commit = async (): Promise<void> => {
    takeReaderErrors();
    if (transactions) await connection.run("BEGIN TRANSACTION");
    try {
      for (const { accountId, hourEpoch } of manifest.supersededHours) {
        for (const table of DATA_TABLES) {
          await connection.run(`DELETE FROM ${table} WHERE account_id = $a AND hour_epoch = $h`, { a: accountId, h: hourEpoch });
        }
      }
      await appendAccountHours(connection, batch, { tables });
      await manifest.flush(connection);
      if (transactions) await connection.run("COMMIT");
    } catch (error) {
      if (transactions) await connection.run("ROLLBACK");
      throw error;
    }
    batch = [];
    bytesInBatch = 0;
    rules.onBatch?.();
  };

  for await (const hour of hours) {
    takeReaderErrors();
    const hashed = hour.sources.map((source) => ({ source, sha256: sha256Hex(source.bytes) }));
    const { kept, duplicates, conflicting } = classifySources(hashed);
    if (conflicting.length > 0) {
      const error = new ConflictError(hour.accountId, hour.hourEpoch, conflicting.map((s) => s.source.name));
      reject(conflicting.map((s) => ({ row: row(s, hour, "rejected", "different files for the same account-hour", "CONFLICT") })), error);
      continue;
    }
    const recordDuplicates = (list: (HashedSource & { of: string })[]): void => {
      for (const d of list) {
        outcome.duplicates.push(d.source.name);
        manifest.add(row(d, hour, "duplicate", `same bytes as ${d.of}`, null));
      }
    };
    const loaded = manifest.loadedFiles(hour.accountId, hour.hourEpoch);
    let replacing = false;
    if (loaded.length > 0) {
      const loadedBy = new Map(loaded.map((f) => [f.sha256, f.source]));
      if (kept.every((s) => loadedBy.has(s.sha256))) {
        recordDuplicates(duplicates);
        for (const s of kept) {
          // The same file again is a no-op; the same bytes under another name is recorded as a duplicate.
          outcome.duplicates.push(s.source.name);
          if (loadedBy.get(s.sha256) !== s.source.name) manifest.add(row(s, hour, "duplicate", `same bytes as ${loadedBy.get(s.sha256)}`, null));
        }
        continue;
      }
      if (!rules.replace) {
        const error = new ConflictError(
          hour.accountId, hour.hourEpoch,
          [...loaded.map((f) => `${f.source} (loaded)`), ...kept.map((s) => s.source.name)],
          "use --replace to load the new file instead",
        );
        reject(kept.map((s) => ({ row: row(s, hour, "rejected", `differs from the loaded ${loaded.map((f) => f.source).join(", ")}`, "CONFLICT") })), error);
        continue;
      }
      replacing = true;
    }
    let decoded: DecodedAccountHour;
    try {
      decoded = rules.decode({ ...hour, sources: kept.map((s) => s.source) });
    } catch (error) {
      if (!(error instanceof BadFileError)) throw error;
      reject(kept.map((s) => ({
        row: row(s, hour, "rejected", s.source.name === error.file ? error.reason : `not loaded: ${error.file} of the same account-hour is unreadable`, error.code),
      })), error);
      continue;
    }
    if (rules.stopOnError && outcome.errors.length > 0) continue;
    if (replacing) {
      manifest.supersede(hour.accountId, hour.hourEpoch, kept.map((s) => s.source.name).join(", "));
      outcome.replacedHours++;
    }
    for (const s of kept) {
      manifest.add(row(s, hour, "loaded", null, null));
      bytesInBatch += s.source.bytes.byteLength;
    }
    recordDuplicates(duplicates);
    outcome.filesLoaded += kept.length;
    outcome.accountHours++;
    batch.push(decoded);
    if (bytesInBatch >= batchBytes) await commit();
  }
  await commit();
  return outcome;
}
