import { cpSync, mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BadInputError, UsageError } from "../../src/base/errors.js";
import { writeDataset } from "../../src/generate/writeDataset.js";
import { hourPath } from "../../src/generate/hourPath.js";
import { openWarehouse } from "../../src/store/openWarehouse.js";
import { BILLING_COLUMNS, BILLING_TABLES } from "../../src/billing/warehouseFacts.js";
import { linesFrom } from "../helpers/billFrom.js";

const START = 1790812800; // 2026-10-01T00:00Z
let dir: string;
let tree: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cloudunits-open-"));
  tree = join(dir, "tree");
  await writeDataset({ out: tree, accounts: 2, spaces: 1, machines: 3, hours: 3, start: START, seed: 5 });
  await writeDataset({
    out: join(dir, "same.zip"),
    accounts: 2,
    spaces: 1,
    machines: 3,
    hours: 3,
    start: START,
    seed: 5,
  });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const count = async (w: Awaited<ReturnType<typeof openWarehouse>>, sql: string) =>
  Number((await w.connection.runAndReadAll(sql)).getRows()[0]![0]);

describe("openWarehouse from input paths", () => {
  it("loads every account-hour of a tree into memory", async () => {
    const w = await openWarehouse([tree]);
    try {
      expect(w.load).toMatchObject({ inputs: [tree], filesLoaded: 6, accountHours: 6, duplicates: [], skipped: [] });
      expect(await count(w, "SELECT count(DISTINCT account_id) FROM account_hours")).toBe(2);
      expect(await count(w, "SELECT count(*) FROM gateways")).toBe(6);
    } finally {
      w.close();
    }
  });

  it("gives the same tables from a zip and a tree of the same data, counting the second copy as duplicates", async () => {
    const once = await openWarehouse([tree]);
    const twice = await openWarehouse([tree, join(dir, "same.zip")]);
    try {
      expect(twice.load.accountHours).toBe(6);
      expect(twice.load.duplicates).toHaveLength(6);
      const sql = "SELECT count(*) || '/' || sum(mem_mb) || '/' || sum(cpu_minutes) FROM machines";
      expect((await twice.connection.runAndReadAll(sql)).getRows()).toEqual(
        (await once.connection.runAndReadAll(sql)).getRows(),
      );
    } finally {
      once.close();
      twice.close();
    }
  });

  it("names every bad file and conflict in one error, or skips them all with skipBad", async () => {
    const bad = join(dir, "bad");
    cpSync(tree, bad, { recursive: true });
    const truncated = join(bad, hourPath(1, START), "account_capnp.bin");
    writeFileSync(truncated, Buffer.from([0, 0, 0, 0, 9, 0, 0, 0]));
    const other = join(dir, "other");
    mkdirSync(join(other, hourPath(2, START + 3600)), { recursive: true });
    cpSync(
      join(tree, hourPath(2, START), "account_capnp.bin"),
      join(other, hourPath(2, START + 3600), "account_capnp.bin"),
    );
    const error = await openWarehouse([bad, other]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadInputError);
    const message = (error as BadInputError).message;
    expect(message).toContain(truncated);
    expect(message).toContain(join(other, hourPath(2, START + 3600), "account_capnp.bin"));
    expect((error as BadInputError).errors).toHaveLength(2);

    const w = await openWarehouse([bad, other], { skipBad: true });
    try {
      expect(w.load.skipped.map((s) => s.file).sort()).toEqual(
        [
          join(bad, hourPath(2, START + 3600), "account_capnp.bin"),
          join(other, hourPath(2, START + 3600), "account_capnp.bin"),
          truncated,
        ].sort(),
      );
      expect(w.load.accountHours).toBe(4);
      expect(
        await count(w, `SELECT count(*) FROM account_hours WHERE account_id = 2 AND hour_epoch = ${START + 3600}`),
      ).toBe(0);
    } finally {
      w.close();
    }
  });

  it("refuses no inputs, and a database file that does not exist, as usage errors", async () => {
    await expect(openWarehouse([])).rejects.toBeInstanceOf(UsageError);
    await expect(openWarehouse({ db: join(dir, "missing.duckdb") })).rejects.toThrow(/ingest/);
  });

  it("gives the queries after the load DuckDB's own number of threads back (loading runs one)", async () => {
    const fresh = await DuckDBInstance.create(":memory:");
    const c = await fresh.connect();
    const threads = Number((await c.runAndReadAll("SELECT current_setting('threads')")).getRows()[0]![0]);
    c.closeSync();
    fresh.closeSync();
    const w = await openWarehouse([tree], { workers: 0 });
    try {
      expect(await count(w, "SELECT current_setting('threads')")).toBe(threads);
    } finally {
      w.close();
    }
  });

  it("loads only the tables a command asks for", async () => {
    const w = await openWarehouse([tree], { tables: ["machines", "account_hours"] });
    try {
      expect(await count(w, "SELECT count(*) FROM machines")).toBeGreaterThan(0);
      expect(await count(w, "SELECT count(*) FROM disks")).toBe(0);
    } finally {
      w.close();
    }
  });
});

describe("openWarehouse keeping only some columns", () => {
  it("keeps only the columns billing reads, and bills exactly as a load of every column does", async () => {
    const full = await openWarehouse([tree], { workers: 0 });
    const narrow = await openWarehouse([tree], { tables: BILLING_TABLES, columns: BILLING_COLUMNS, workers: 1 });
    try {
      const disks = (await narrow.connection.runAndReadAll("SELECT column_name FROM (DESCRIBE disks)"))
        .getRows()
        .map((r) => r[0]);
      expect(disks).toEqual([...BILLING_COLUMNS.disks]);
      expect(await count(narrow, "SELECT count(*) FROM disks")).toBe(await count(full, "SELECT count(*) FROM disks"));
      const period = { start: START, end: START + 3 * 3600 };
      for (const params of [period, { ...period, accountId: 1 }, { ...period, accountId: 2 }]) {
        const lines = await linesFrom(narrow.connection, params, { allUnits: true });
        expect(lines.length).toBeGreaterThan(1);
        expect(lines).toEqual(await linesFrom(full.connection, params, { allUnits: true }));
      }
    } finally {
      full.close();
      narrow.close();
    }
  });

  it("refuses a column the table does not have, naming it", async () => {
    await expect(openWarehouse([tree], { columns: { disks: ["account_id", "size_tb"] } })).rejects.toThrow(
      "table disks has no column size_tb",
    );
  });
});

describe("openWarehouse with decoding worker threads", () => {
  it("loads the same tables and names the same bad files as decoding in the main thread", async () => {
    const bad = join(dir, "bad-workers");
    cpSync(tree, bad, { recursive: true });
    writeFileSync(join(bad, hourPath(2, START + 7200), "account_capnp.bin"), Buffer.from([1, 0, 0, 0]));
    const inline = await openWarehouse([bad], { workers: 0, skipBad: true });
    const threaded = await openWarehouse([bad], { workers: 1, skipBad: true });
    try {
      expect(threaded.load).toEqual(inline.load);
      expect(threaded.load.skipped).toHaveLength(1);
      for (const table of ["account_hours", "cloudspaces", "machines", "gateways", "disks", "nics"]) {
        const sql = `SELECT * FROM ${table} ORDER BY ALL`;
        expect((await threaded.connection.runAndReadAll(sql)).getRows()).toEqual(
          (await inline.connection.runAndReadAll(sql)).getRows(),
        );
      }
    } finally {
      inline.close();
      threaded.close();
    }
  });
});
