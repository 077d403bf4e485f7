import type { DuckDBConnection } from "@duckdb/node-api";
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { withRoom } from "../base/growArray.js";
import { duckdbApi } from "../base/duckdb.js";

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
 * The fingerprint of a set of loaded files: the SHA-256 of their content hashes (hex, each
 * followed by a newline) in ascending order, and their count. Two reports with the same
 * fingerprint were computed from the same files, whatever their paths or the order they were
 * read in. Hashes are kept as 32 bytes each, so a year of files costs a few MB.
 */
export class ContentFingerprint {
  private hashes = new Uint8Array(32 * 1024);
  private count = 0;

  /** Adds a file by the hex SHA-256 of its bytes. */
  add(sha256Hex: string): void {
    this.hashes = withRoom(this.hashes, 32 * this.count, 32 * (this.count + 1));
    this.hashes.set(Buffer.from(sha256Hex, "hex"), 32 * this.count++);
  }

  /** The fingerprint of the files added. */
  digest(): { files: number; hash: string } {
    const all = Array.from({ length: this.count }, (_, i) => Buffer.from(this.hashes.buffer, 32 * i, 32));
    all.sort(Buffer.compare); // bytewise order is the order of their hex spellings
    const hash = createHash("sha256");
    for (const h of all) hash.update(`${h.toString("hex")}\n`);
    return { files: this.count, hash: `sha256:${hash.digest("hex")}` };
  }
}

/** The ranges of hashes {@link dataFingerprint} reads apart: by their first hex digit. */
const HASH_RANGES = 16;

/**
 * The {@link ContentFingerprint} of the files loaded in a warehouse (its `files` manifest): the
 * same hashes, in the same order (lowercase hex sorts as the bytes do), each followed by a
 * newline, concatenated by DuckDB a sixteenth at a time (by their first digit, in order) and
 * hashed here: not every file's hash read into JavaScript (docs/performance.md), nor all of
 * them concatenated at once (a year of small files is 876,000 hashes).
 */
export async function dataFingerprint(connection: DuckDBConnection): Promise<{ files: number; hash: string }> {
  const { VARCHAR } = duckdbApi();
  const hash = createHash("sha256");
  let files = 0;
  for (let range = 0; range < HASH_RANGES; range++) {
    const reader = await connection.runAndReadAll(
      `SELECT count(*)::DOUBLE, coalesce(string_agg(h || chr(10), '' ORDER BY h), '')
       FROM (SELECT lower(content_sha256) AS h FROM files WHERE status = 'loaded')
       WHERE ($from IS NULL OR h >= $from) AND ($to IS NULL OR h < $to)`,
      {
        from: range === 0 ? null : range.toString(16),
        to: range === HASH_RANGES - 1 ? null : (range + 1).toString(16),
      },
      { from: VARCHAR, to: VARCHAR },
    );
    const [count, text] = reader.getRowsJS()[0]!;
    files += count as number;
    hash.update(text as string);
  }
  return { files, hash: `sha256:${hash.digest("hex")}` };
}
