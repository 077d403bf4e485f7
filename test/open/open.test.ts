import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ingest, open, writeDataset, type Store } from "../../src/index.js";

const START = 1790812800; // 2026-10-01T00:00Z
let dir: string;
let tree: string;
let fromFiles: Store;
let fromDb: Store;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cloudunits-open-"));
  tree = join(dir, "tree");
  await writeDataset({ out: tree, accounts: 2, spaces: 2, machines: 3, hours: 6, start: START, seed: 11 });
  await ingest([tree], { db: join(dir, "w.duckdb") });
  fromFiles = await open([tree]);
  fromDb = await open({ db: join(dir, "w.duckdb") });
});
afterAll(() => {
  fromFiles?.close();
  fromDb?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("open()", () => {
  it("gives the same billing from the files and from the database made by ingest", async () => {
    const params = { start: START, end: START + 6 * 3600, accountId: 1 };
    const bill = await fromFiles.calculate(params);
    if (!("account" in bill)) throw new Error("an account's bill has an account");
    expect(Object.keys(bill.account.cloudspaces)).toHaveLength(2);
    expect(bill.account.consumption.CU).toBeGreaterThan(0);
    expect(await fromDb.calculate(params)).toEqual(bill);
    expect(await fromDb.calculate({ start: START, end: START + 3600 })).toEqual(
      await fromFiles.calculate({ start: START, end: START + 3600 }),
    );
  });

  it("gives the same statistics series both ways", async () => {
    const request = { accountId: 2, from: START, till: START + 6 * 3600, include: ["cpu", "memory"] };
    const stats = await fromFiles.accountStats(request);
    expect(stats.time).toHaveLength(6);
    expect(await fromDb.accountStats(request)).toEqual(stats);
  });

  it("answers SQL with arquero tables whose counts are plain numbers", async () => {
    const t = await fromFiles.query(
      "SELECT account_id, count(*) AS hours FROM account_hours GROUP BY ALL ORDER BY ALL",
    );
    expect(t.objects()).toEqual([
      { account_id: 1, hours: 6 },
      { account_id: 2, hours: 6 },
    ]);
    const machines = await fromDb.table("machines");
    expect(machines.numRows()).toBe((await fromFiles.table("machines")).numRows());
    expect(machines.columnNames()).toContain("mem_mb");
  });

  it("carries the load report, the data-quality check and reports", async () => {
    expect(fromFiles.load).toMatchObject({ filesLoaded: 12, accountHours: 12, skipped: [], duplicates: [] });
    expect(fromDb.load).toMatchObject({ filesLoaded: 12, accountHours: 12 });
    expect((await fromDb.check()).accounts.map((a) => a.hours)).toEqual([6, 6]);
    const daily = await fromFiles.report("daily-totals");
    expect(daily.rows.map((r) => r.hours_with_file)).toEqual([6, 6]);
  });
});
