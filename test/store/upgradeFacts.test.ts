import { spawn } from "node:child_process";
import { copyFileSync, cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { billInputs } from "../../src/billing/billInputs.js";
import { billWarehouse } from "../../src/billing/billWarehouse.js";
import { factsReadable } from "../../src/billing/warehouseFacts.js";
import { hourPath } from "../../src/generate/hourPath.js";
import { writeDataset } from "../../src/generate/writeDataset.js";
import { ingest } from "../../src/store/ingest.js";
import { openDatabaseFile } from "../../src/store/openDatabaseFile.js";
import { openWarehouse } from "../../src/store/openWarehouse.js";
import { readWarehouseMeta } from "../../src/store/warehouseMeta.js";
import { FACTS_EXTERNAL_NIC_TYPE } from "../../src/load/machineFacts.js";
import { DEFAULT_UNITS } from "../../src/billing/units.js";
import { factColumnsSql, VM_FACT_NAMES } from "../../src/load/vmFacts.js";
import { builtModule } from "../helpers/runCli.js";
import { agedWarehouse } from "../helpers/warehouse.js";

const START = 1790812800;
const HOURS = 48;
const PERIOD = { start: START, end: START + HOURS * 3600 };
let dir: string;
let data: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cloudunits-facts-"));
  data = join(dir, "data");
  await writeDataset({ out: data, accounts: 2, spaces: 2, machines: 40, hours: HOURS, start: START, seed: 3 });
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What billing a warehouse file gives, and whether it read the stored facts. */
async function billed(db: string): Promise<{ lines: unknown; facts: boolean }> {
  const w = await openWarehouse({ db });
  try {
    return {
      lines: (await billWarehouse(w.connection, PERIOD, { allUnits: true })).lines,
      facts: await factsReadable(w.connection, "external"),
    };
  } finally {
    w.close();
  }
}

/**
 * Upgrades `db` in a child process as opening it to write does (the schema's tables, then
 * `upgradeFacts`), saying "ready" just before the upgrade starts; SIGKILLed `afterMs` later
 * (undefined: let it finish). Its exit signal, or "exit N".
 */
function upgradeInChild(db: string, afterMs?: number): Promise<string | null> {
  const code = `
    const { duckdbApi } = await import(${JSON.stringify(builtModule("base/duckdb.ts"))});
    const { upgradeFacts } = await import(${JSON.stringify(builtModule("store/upgradeFacts.ts"))});
    const instance = await duckdbApi().DuckDBInstance.create(${JSON.stringify(db)});
    const connection = await instance.connect();
    const { SCHEMA_SQL } = await import(${JSON.stringify(builtModule("store/schema.ts"))});
    await connection.run(SCHEMA_SQL);
    await connection.run("CHECKPOINT");
    process.stdout.write("ready\\n");
    await upgradeFacts(connection);
    connection.closeSync();
    instance.closeSync();`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", code], { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve) => {
    child.stdout.on("data", (chunk: Buffer) => {
      if (afterMs !== undefined && chunk.toString().includes("ready")) setTimeout(() => child.kill("SIGKILL"), afterMs);
    });
    child.on("exit", (code, signal) => resolve(signal ?? (code === 0 ? null : `exit ${code}`)));
  });
}

describe("the billing facts of a warehouse file", () => {
  it("count the NICs of the published external type: billing with the default units reads them", () => {
    expect(FACTS_EXTERNAL_NIC_TYPE).toBe(DEFAULT_UNITS.externalNicType);
  });

  it("a new file has them and says so; billing reads them and gives what the files give", async () => {
    const db = join(dir, "new.duckdb");
    await ingest([data], { db });
    const { instance, connection } = await openDatabaseFile(db, { readOnly: true });
    try {
      expect(await readWarehouseMeta(connection)).toEqual({
        schemaVersion: 2,
        factsExternalNicType: "external",
        factsColumns: factColumnsSql(),
      });
      const counts = (
        await connection.runAndReadAll(
          "SELECT (SELECT count(*) FROM machines)::INT AS m, (SELECT count(*) FROM machine_facts)::INT AS f",
        )
      ).getRowObjectsJS()[0];
      // a row of facts per machine-hour (every record but the gateways)
      expect(counts!.f).toBe(counts!.m);
      expect(counts!.m).toBeGreaterThan(2 * 40 * HOURS);
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
    const fromFiles = await billInputs([data], PERIOD, { allUnits: true });
    expect(await billed(db)).toEqual({ lines: fromFiles.lines, facts: true });
  });

  it("an older file (no facts) is billed from its rows, upgraded once when opened to write, and bills the same", async () => {
    const db = join(dir, "old.duckdb");
    await agedWarehouse([data], db);
    const before = await billed(db);
    expect(before.facts).toBe(false);
    expect(await upgradeInChild(db)).toBe(null);
    expect(await billed(db)).toEqual({ lines: before.lines, facts: true });
    // once: opening it again to write finds version 2 and leaves the facts as they are
    const { instance, connection } = await openDatabaseFile(db);
    try {
      expect((await readWarehouseMeta(connection)).schemaVersion).toBe(2);
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  }, 120_000);

  it("a file whose facts are another set (a cloudunits with fewer facts made it) is billed from its rows, then remade with these facts when opened to write", async () => {
    const db = join(dir, "other-facts.duckdb");
    await ingest([data], { db });
    const now = await billed(db);
    // as a version without iops_limit left it: the column absent, the facts it recorded saying so
    const fewer = VM_FACT_NAMES.filter((n) => n !== "iopsLimit");
    {
      const { instance, connection } = await openDatabaseFile(db);
      try {
        await connection.run("ALTER TABLE machine_facts DROP COLUMN iops_limit");
        await connection.run("INSERT OR REPLACE INTO warehouse_meta (key, value) VALUES ('facts_columns', $c)", {
          c: factColumnsSql(fewer),
        });
      } finally {
        connection.closeSync();
        instance.closeSync();
      }
    }
    expect(await billed(db)).toEqual({ lines: now.lines, facts: false });
    const { instance, connection } = await openDatabaseFile(db); // opened to write: remade
    try {
      expect((await readWarehouseMeta(connection)).factsColumns).toBe(factColumnsSql());
      const columns = (
        await connection.runAndReadAll(
          "SELECT column_name FROM information_schema.columns WHERE table_name = 'machine_facts'",
        )
      )
        .getRowObjectsJS()
        .map((r) => r.column_name);
      expect(columns).toContain("iops_limit");
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
    expect(await billed(db)).toEqual(now);
  }, 120_000);

  it("an upgrade under a memory cap (ingest's) makes room for the long texts it repeats, then gives the cap back", async () => {
    const db = join(dir, "capped.duckdb");
    await agedWarehouse([data], db);
    const { instance, connection } = await openDatabaseFile(db, { memoryLimitBytes: 32 * 2 ** 20 }); // upgraded here
    try {
      expect((await readWarehouseMeta(connection)).schemaVersion).toBe(2);
      // the generated Windows images ("Windows 2022 Datacenter") are longer than DuckDB inlines
      const long = (
        await connection.runAndReadAll("SELECT count(*)::INT AS n FROM machine_facts WHERE strlen(image_name) > 12")
      ).getRowObjectsJS()[0]!;
      expect(long.n).toBeGreaterThan(0);
      expect(
        (await connection.runAndReadAll("SELECT current_setting('memory_limit') AS cap")).getRowObjectsJS()[0]!.cap,
      ).toBe("32.0 MiB");
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  }, 120_000);

  it("a SIGKILL mid-upgrade leaves a file that opens (still without facts) and upgrades on the next run", async () => {
    const aged = join(dir, "aged.duckdb");
    await agedWarehouse([data], aged);
    const expected = await billed(aged);
    let killedMidway = 0;
    for (const afterMs of [50, 150, 400]) {
      const db = join(dir, `killed-${afterMs}.duckdb`);
      copyFileSync(aged, db);
      const signal = await upgradeInChild(db, afterMs);
      const found = await billed(db); // opens read-only: the file is whole
      expect(found.lines).toEqual(expected.lines);
      if (signal === "SIGKILL" && !found.facts) killedMidway++;
      await ingest([data], { db }); // opened to write: upgraded; every file a duplicate
      expect(await billed(db)).toEqual({ lines: expected.lines, facts: true });
    }
    expect(killedMidway).toBeGreaterThan(0);
  }, 240_000);

  it("a rewritten hour (ingest --replace) replaces its facts: billing --db equals billing the files as they are now", async () => {
    const db = join(dir, "replace.duckdb");
    await ingest([data], { db });
    const rewritten = join(dir, "rewritten");
    await writeDataset({
      out: rewritten,
      accounts: 1,
      spaces: 1,
      machines: 3,
      hours: 1,
      start: START + 5 * 3600,
      seed: 9,
    });
    await ingest([rewritten], { db, replace: true });
    // the files as the platform has them now: the hour of account 1 swapped
    const now = join(dir, "now");
    cpSync(data, now, { recursive: true });
    rmSync(join(now, hourPath(1, START + 5 * 3600)), { recursive: true });
    cpSync(join(rewritten, hourPath(1, START + 5 * 3600)), join(now, hourPath(1, START + 5 * 3600)), {
      recursive: true,
    });
    const fromFiles = await billInputs([now], PERIOD, { allUnits: true });
    const fromDb = await billed(db);
    expect(fromDb).toEqual({ lines: fromFiles.lines, facts: true });
    const hourLines = await billInputs([now], { start: START + 5 * 3600, end: START + 6 * 3600, accountId: 1 });
    expect(hourLines.lines.filter((l) => l.level === "machine")).toHaveLength(3);
  }, 120_000);
});
