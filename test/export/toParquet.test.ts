import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance, type DuckDBConnection } from "@duckdb/node-api";
import { memoryWarehouse } from "../helpers/warehouse.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DecodedAccountHour } from "../../src/capnp/records.js";
import { UsageError } from "../../src/base/errors.js";
import { toParquet } from "../../src/export/toParquet.js";

const OCT_31_23H = 1793487600; // 2026-10-31T23:00Z
const hour = (accountId: number, hourEpoch: number, memMb: number): DecodedAccountHour => ({
  accountId, hourEpoch, rootAccountId: accountId,
  account: { accountId, cloudspaces: [{ cloudSpaceId: 2, accountId, state: "DEPLOYED", machines: [
    { id: 9, type: "vm", vcpus: 1, cpuMinutes: 5, mem: memMb, imageName: "Debian 12", status: "RUNNING", disks: [], networks: [] },
  ] }] },
});

let connection: DuckDBConnection;
let dir: string;
beforeAll(async () => {
  // The last hour of October and the first of November (UTC), for two accounts.
  connection = await memoryWarehouse([hour(7, OCT_31_23H, 1024), hour(7, OCT_31_23H + 3600, 2048), hour(8, OCT_31_23H, 4096)]);
  dir = mkdtempSync(join(tmpdir(), "cloudunits-parquet-"));
});
afterAll(() => {
  connection.closeSync();
  rmSync(dir, { recursive: true, force: true });
});

describe("Parquet export", () => {
  it("partitions by account, UTC year and month, adds hour_utc, and reads back the same rows", async () => {
    const out = join(dir, "out");
    const result = await toParquet(connection, { outDir: out });
    expect(result.tables.find((t) => t.table === "machines")).toMatchObject({ rows: 3 });
    const reader = await DuckDBInstance.create(":memory:");
    const c = await reader.connect();
    try {
      const rows = (await c.runAndReadAll(`
        SELECT account_id, year, month, hour_epoch, strftime(hour_utc, '%Y-%m-%dT%H:%M') AS hour_utc, mem_mb, parse_path(filename)[-4:-2] AS dirs
        FROM read_parquet('${out}/machines/**/*.parquet', hive_partitioning = true, filename = true) ORDER BY account_id, hour_epoch`)).getRowObjectsJson();
      expect(rows).toEqual([
        { account_id: "7", year: "2026", month: "10", hour_epoch: String(OCT_31_23H), hour_utc: "2026-10-31T23:00", mem_mb: 1024, dirs: ["account_id=7", "year=2026", "month=10"] },
        { account_id: "7", year: "2026", month: "11", hour_epoch: String(OCT_31_23H + 3600), hour_utc: "2026-11-01T00:00", mem_mb: 2048, dirs: ["account_id=7", "year=2026", "month=11"] },
        { account_id: "8", year: "2026", month: "10", hour_epoch: String(OCT_31_23H), hour_utc: "2026-10-31T23:00", mem_mb: 4096, dirs: ["account_id=8", "year=2026", "month=10"] },
      ]);
      const files = (await c.runAndReadAll(`SELECT count(*)::INT AS n FROM read_parquet('${out}/files.parquet')`)).getRowObjectsJson();
      expect(files).toEqual([{ n: 0 }]);
    } finally {
      c.closeSync();
      reader.closeSync();
    }
  });

  it("refuses to write into a directory that already holds files", async () => {
    const used = join(dir, "used");
    mkdirSync(used);
    writeFileSync(join(used, "keep.txt"), "mine");
    await expect(toParquet(connection, { outDir: used })).rejects.toBeInstanceOf(UsageError);
  });
});
