import type { DuckDBConnection } from "@duckdb/node-api";
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";

/** An input of a report and its fingerprint. */
export interface InputFingerprint {
  /** The input as given (a zip, a directory, a database file). */
  input: string;
  /** `sha256:<hex>` of a file's bytes; for a directory, `directory`. */
  hash: string;
}

/** The SHA-256 of each input file (zips, database files); directories are named as such. */
export async function inputFingerprints(inputs: readonly string[]): Promise<InputFingerprint[]> {
  const out: InputFingerprint[] = [];
  for (const input of inputs) {
    const info = await stat(input).catch(() => undefined);
    if (!info?.isFile()) {
      out.push({ input, hash: info?.isDirectory() ? "directory" : "missing" });
      continue;
    }
    const hash = createHash("sha256");
    for await (const chunk of createReadStream(input)) hash.update(chunk as Buffer);
    out.push({ input, hash: `sha256:${hash.digest("hex")}` });
  }
  return out;
}

/**
 * A fingerprint of the data loaded in the warehouse: the SHA-256 of the sorted content
 * hashes of every loaded file of the manifest (`files`), and their count. Two reports with
 * the same fingerprint were computed from the same files, whatever their paths.
 */
export async function dataFingerprint(connection: DuckDBConnection): Promise<{ files: number; hash: string }> {
  const reader = await connection.runAndReadAll(
    "SELECT content_sha256 FROM files WHERE status = 'loaded' ORDER BY content_sha256",
  );
  const hash = createHash("sha256");
  const rows = reader.getRowsJS();
  for (const [sha] of rows) hash.update(`${String(sha)}\n`);
  return { files: rows.length, hash: `sha256:${hash.digest("hex")}` };
}
