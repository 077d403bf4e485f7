import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance, type DuckDBConnection } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UsageError } from "../../src/base/errors.js";
import type { ParquetManifest } from "../../src/export/parquetManifest.js";
import { PARQUET_DATA_TABLES } from "../../src/export/parquetTables.js";
import { toParquet } from "../../src/export/toParquet.js";
import { DATA_TABLES } from "../../src/store/schema.js";
import { accountHour, disk, memoryWarehouse, nic, vm } from "../helpers/warehouse.js";

const OCT_31_23H = 1793487600; // 2026-10-31T23:00Z
const NOV_1 = OCT_31_23H + 3600;
const machine = (id: number, memMb: number) =>
  vm(id, { mem: memMb, disks: [disk(1, 10), disk(2, 20)], networks: [nic("external", 5, 6)] });

let connection: DuckDBConnection;
let reader: DuckDBConnection;
let dir: string;
beforeAll(async () => {
  // The last hour of October and the first of November (UTC), for two accounts, appended out of order.
  connection = await memoryWarehouse([
    accountHour(8, OCT_31_23H, { 3: [machine(9, 4096)] }),
    accountHour(7, NOV_1, { 2: [machine(9, 2048), machine(1, 512)] }),
    accountHour(7, OCT_31_23H, { 2: [machine(9, 1024), machine(1, 256)] }),
  ]);
  reader = await (await DuckDBInstance.create(":memory:")).connect();
  dir = mkdtempSync(join(tmpdir(), "cloudunits-parquet-"));
});
afterAll(() => {
  connection.closeSync();
  reader.closeSync();
  rmSync(dir, { recursive: true, force: true });
});

const read = async (sql: string, values?: Record<string, string>) =>
  (await reader.runAndReadAll(sql, values)).getRowObjectsJson();
const manifestOf = (out: string) => JSON.parse(readFileSync(join(out, "manifest.json"), "utf8")) as ParquetManifest;

describe("Parquet export", () => {
  it("writes one file per table and UTC month under year=/month=, rows sorted by account, machine and hour, with hour_utc", async () => {
    const out = join(dir, "layout");
    const result = await toParquet(connection, { outDir: out });
    expect(result.tables.find((t) => t.table === "machines")).toEqual({ table: "machines", rows: 5 });
    expect(readdirSync(join(out, "machines"))).toEqual(["year=2026"]);
    expect(readdirSync(join(out, "machines/year=2026")).sort()).toEqual(["month=10", "month=11"]);
    expect(readdirSync(join(out, "machines/year=2026/month=10"))).toEqual(["part-0.parquet"]);
    const rows = await read(
      `
      SELECT account_id, year, month, machine_id, strftime(hour_utc, '%Y-%m-%dT%H:%M') AS hour_utc, mem_mb
      FROM read_parquet($glob, hive_partitioning = true, filename = true, file_row_number = true) ORDER BY filename, file_row_number`,
      { glob: `${out}/machines/**/*.parquet` },
    );
    expect(rows).toEqual([
      { account_id: "7", year: "2026", month: "10", machine_id: 1, hour_utc: "2026-10-31T23:00", mem_mb: 256 },
      { account_id: "7", year: "2026", month: "10", machine_id: 9, hour_utc: "2026-10-31T23:00", mem_mb: 1024 },
      { account_id: "8", year: "2026", month: "10", machine_id: 9, hour_utc: "2026-10-31T23:00", mem_mb: 4096 },
      { account_id: "7", year: "2026", month: "11", machine_id: 1, hour_utc: "2026-11-01T00:00", mem_mb: 512 },
      { account_id: "7", year: "2026", month: "11", machine_id: 9, hour_utc: "2026-11-01T00:00", mem_mb: 2048 },
    ]);
    const disks = await read("SELECT machine_id, disk_index FROM read_parquet($file)", {
      file: `${out}/disks/year=2026/month=10/part-0.parquet`,
    });
    expect(disks).toEqual([
      { machine_id: 1, disk_index: 0 },
      { machine_id: 1, disk_index: 1 },
      { machine_id: 9, disk_index: 0 },
      { machine_id: 9, disk_index: 1 },
      { machine_id: 9, disk_index: 0 },
      { machine_id: 9, disk_index: 1 },
    ]);
    expect(await read("SELECT count(*)::INT AS n FROM read_parquet($file)", { file: `${out}/files.parquet` })).toEqual([
      { n: 0 },
    ]);
  });

  it("states in manifest.json what each month holds: tables, rows, hours, accounts, files and their SHA-256", async () => {
    const out = join(dir, "manifest");
    await toParquet(connection, { outDir: out });
    const manifest = manifestOf(out);
    expect(
      manifest.partitions.map((p) => [
        p.year,
        p.month,
        p.start,
        p.end,
        p.accountHours,
        p.hours,
        p.firstHour,
        p.lastHour,
        p.accounts,
      ]),
    ).toEqual([
      [
        2026,
        10,
        "2026-10-01T00:00:00Z",
        "2026-11-01T00:00:00Z",
        2,
        1,
        "2026-10-31T23:00:00Z",
        "2026-10-31T23:00:00Z",
        [7, 8],
      ],
      [
        2026,
        11,
        "2026-11-01T00:00:00Z",
        "2026-12-01T00:00:00Z",
        1,
        1,
        "2026-11-01T00:00:00Z",
        "2026-11-01T00:00:00Z",
        [7],
      ],
    ]);
    const october = manifest.partitions[0]!;
    expect(october.files.map((f) => [f.table, f.file, f.rows])).toEqual([
      ["account_hours", "account_hours/year=2026/month=10/part-0.parquet", 2],
      ["cloudspaces", "cloudspaces/year=2026/month=10/part-0.parquet", 2],
      ["machines", "machines/year=2026/month=10/part-0.parquet", 3],
      ["gateways", "gateways/year=2026/month=10/part-0.parquet", 0],
      ["disks", "disks/year=2026/month=10/part-0.parquet", 6],
      ["nics", "nics/year=2026/month=10/part-0.parquet", 3],
      ["machine_facts", "machine_facts/year=2026/month=10/part-0.parquet", 3],
      ["gateway_facts", "gateway_facts/year=2026/month=10/part-0.parquet", 0],
    ]);
    for (const f of [...october.files, manifest.sourceFiles!]) {
      const bytes = readFileSync(join(out, f.file));
      expect({ file: f.file, sha256: createHash("sha256").update(bytes).digest("hex"), bytes: bytes.length }).toEqual({
        file: f.file,
        sha256: f.sha256,
        bytes: f.bytes,
      });
    }
    const gateways = await read("SELECT count(*)::INT AS n FROM read_parquet($file)", {
      file: join(out, october.files[3]!.file),
    });
    expect(gateways).toEqual([{ n: 0 }]); // an empty month of a table is a file with the table's columns and no row
  });

  it("exported again into the same directory with a month, replaces that month's files and keeps the others", async () => {
    const out = join(dir, "again");
    await toParquet(connection, { outDir: out });
    const before = manifestOf(out);
    const changed = await memoryWarehouse([accountHour(7, OCT_31_23H, { 2: [machine(5, 8192)] })]);
    try {
      const result = await toParquet(changed, { outDir: out, month: "2026-10" });
      expect(result.partitions.map((p) => [p.month, p.accounts])).toEqual([[10, [7]]]);
    } finally {
      changed.closeSync();
    }
    const after = manifestOf(out);
    expect(after.partitions[1]).toEqual(before.partitions[1]);
    expect(after.partitions[0]!.files.find((f) => f.table === "machines")!.rows).toBe(1);
    const rows = await read(
      "SELECT account_id, machine_id, mem_mb FROM read_parquet($glob, hive_partitioning = true) ORDER BY ALL",
      { glob: `${out}/machines/**/*.parquet` },
    );
    expect(rows).toEqual([
      { account_id: "7", machine_id: 1, mem_mb: 512 },
      { account_id: "7", machine_id: 5, mem_mb: 8192 },
      { account_id: "7", machine_id: 9, mem_mb: 2048 },
    ]);
    expect(readdirSync(join(out, "machines/year=2026/month=10"))).toEqual(["part-0.parquet"]);
  });

  it("exported again from a warehouse made before the billing facts, drops the month's old facts files", async () => {
    const out = join(dir, "nofacts");
    await toParquet(connection, { outDir: out });
    const older = await memoryWarehouse([accountHour(7, OCT_31_23H, { 2: [machine(5, 8192)] })]);
    try {
      await older.run("DROP TABLE machine_facts; DROP TABLE gateway_facts");
      await toParquet(older, { outDir: out, month: "2026-10" });
    } finally {
      older.closeSync();
    }
    const october = manifestOf(out).partitions[0]!;
    expect(october.files.map((f) => f.table)).toEqual([
      "account_hours",
      "cloudspaces",
      "machines",
      "gateways",
      "disks",
      "nics",
    ]);
    expect(existsSync(join(out, "machine_facts/year=2026/month=10/part-0.parquet"))).toBe(false);
    expect(existsSync(join(out, "machine_facts/year=2026/month=11/part-0.parquet"))).toBe(true);
  });

  it("removes the temporary files a killed export left, which no reader's *.parquet glob sees", async () => {
    const out = join(dir, "leftovers");
    await toParquet(connection, { outDir: out });
    const left = join(out, "disks/year=2026/month=10/.part-0.parquet.4242.tmp");
    writeFileSync(left, "half a file");
    expect(
      await read("SELECT count(*)::INT AS n FROM read_parquet($glob)", { glob: `${out}/disks/**/*.parquet` }),
    ).toEqual([{ n: 10 }]); // the half file would fail the read
    await toParquet(connection, { outDir: out });
    expect(existsSync(left)).toBe(false);
  });

  it("knows every data table of the warehouse, so a new table cannot go unexported", () => {
    expect(PARQUET_DATA_TABLES.map((t) => t.table)).toEqual(expect.arrayContaining([...DATA_TABLES]));
  });

  it("refuses a directory that holds other files, or a manifest that is not an export's", async () => {
    const used = join(dir, "used");
    mkdirSync(used);
    writeFileSync(join(used, "keep.txt"), "mine");
    await expect(toParquet(connection, { outDir: used })).rejects.toThrow(
      /used is not empty and holds no manifest.json/,
    );
    writeFileSync(join(used, "manifest.json"), JSON.stringify({ format: "something else" }));
    await expect(toParquet(connection, { outDir: used })).rejects.toBeInstanceOf(UsageError);
    expect(readdirSync(used).sort()).toEqual(["keep.txt", "manifest.json"]);
  });
});
