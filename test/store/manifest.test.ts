import type { DuckDBConnection } from "@duckdb/node-api";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { memoryWarehouse } from "../helpers/warehouse.js";
import { Manifest } from "../../src/store/manifest.js";

let connection: DuckDBConnection;
beforeEach(async () => {
  connection = await memoryWarehouse([]);
});
afterEach(() => {
  connection.closeSync();
});
const rows = async (sql: string) => (await connection.runAndReadAll(sql)).getRowObjectsJson();

describe("the manifest's rows", () => {
  it("are written as recorded, column by column: NULL account-hours, reasons and codes, long and short texts, sizes past 4 GiB", async () => {
    await connection.run(
      "INSERT INTO files (file_id, content_sha256, source, size_bytes, status, run_id) VALUES (41, 'x', 'old', 1, 'loaded', 1)",
    );
    const manifest = await Manifest.read(connection);
    const sha = "ab".repeat(32); // 64 characters: too long to inline in DuckDB's 16-byte string record
    manifest.add({
      sha256: sha,
      source: "big.zip!7/2026/10/3/23/account_capnp.bin",
      accountId: 7,
      hourEpoch: 1_790_000_000,
      sizeBytes: 5 * 2 ** 32 + 3, // 21,474,836,483: the int64's high word is 5
      status: "loaded",
      reason: null,
      code: null,
    });
    manifest.add({
      sha256: "",
      source: "a.zip!x", // 7 bytes: inlined
      accountId: null,
      hourEpoch: null,
      sizeBytes: 0,
      status: "rejected",
      reason: "bad path",
      code: "ARCHIVE_BAD_ENTRY",
    });
    await connection.run("BEGIN");
    await manifest.take()(connection);
    await connection.run("COMMIT");
    expect(
      await rows(
        `SELECT file_id, content_sha256, source, account_id, hour_epoch, size_bytes, status, reason, code, run_id
         FROM files WHERE file_id > 41 ORDER BY file_id`,
      ),
    ).toEqual([
      {
        file_id: "42", // after the largest file id already there (41)
        content_sha256: sha,
        source: "big.zip!7/2026/10/3/23/account_capnp.bin",
        account_id: "7",
        hour_epoch: "1790000000",
        size_bytes: "21474836483",
        status: "loaded",
        reason: null,
        code: null,
        run_id: String(manifest.runId),
      },
      {
        file_id: "43",
        content_sha256: "",
        source: "a.zip!x",
        account_id: null,
        hour_epoch: null,
        size_bytes: "0",
        status: "rejected",
        reason: "bad path",
        code: "ARCHIVE_BAD_ENTRY",
        run_id: String(manifest.runId),
      },
    ]);
  });
});
