import type { DuckDBConnection } from "@duckdb/node-api";
import type { LoadReport } from "./types.js";

/**
 * Rebuilds the load report of a warehouse from its manifest: files loaded (not
 * superseded), account-hours, byte-identical duplicates and rejected files recorded by
 * every ingest, and the ignored paths they counted. `inputs` are what the caller opened.
 */
export async function readLoadReport(connection: DuckDBConnection, inputs: string[]): Promise<LoadReport> {
  const counts = (
    await connection.runAndReadAll(`
    SELECT (SELECT count(*) FROM files WHERE status = 'loaded') AS files_loaded,
           (SELECT count(*) FROM account_hours) AS account_hours,
           (SELECT coalesce(sum(ignored_paths), 0) FROM runs) AS ignored_paths`)
  ).getRowObjectsJS()[0]!;
  const duplicates = (
    await connection.runAndReadAll("SELECT source FROM files WHERE status = 'duplicate' ORDER BY file_id")
  )
    .getRows()
    .map(([source]) => String(source));
  const skipped = (
    await connection.runAndReadAll(
      "SELECT source, coalesce(code, 'REJECTED') AS code, coalesce(reason, '') AS reason FROM files WHERE status = 'rejected' ORDER BY file_id",
    )
  )
    .getRowObjectsJS()
    .map((r) => ({ file: String(r.source), code: String(r.code), reason: String(r.reason) }));
  return {
    inputs,
    filesLoaded: Number(counts.files_loaded),
    accountHours: Number(counts.account_hours),
    duplicates,
    skipped,
    ignoredPaths: Number(counts.ignored_paths),
  };
}
