import { DuckDBInstance, type DuckDBConnection } from "@duckdb/node-api";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { accountHour, OCT_1, vm } from "../helpers/warehouse.js";
import { BatchWriter } from "../../src/store/batchWriter.js";
import { buildColumns } from "../../src/load/stageRecords.js";
import { openDatabaseFile } from "../../src/store/openDatabaseFile.js";
import { DATA_TABLES, SCHEMA_SQL } from "../../src/store/schema.js";

let instance: DuckDBInstance;
let connections: DuckDBConnection[];
beforeEach(async () => {
  instance = await DuckDBInstance.create(":memory:");
  connections = [await instance.connect(), await instance.connect()];
  await connections[0]!.run(SCHEMA_SQL);
});
afterEach(() => {
  for (const c of connections) c.closeSync();
  instance.closeSync();
});

const staged = (...hours: number[]) =>
  buildColumns(
    hours.map((h) => accountHour(7, h, { 1: [vm(5, { mem: h / 3600 })] })),
    new Set(DATA_TABLES),
  );
/** A stand-in for the manifest write of a batch: a row of `runs`. */
const noteRun = (id: number, label: string) => async (c: DuckDBConnection) => {
  await c.run("INSERT INTO runs (run_id, inputs) VALUES ($id, [$label])", { id, label });
};
const rows = async (sql: string) => (await connections[0]!.runAndReadAll(sql)).getRowObjectsJson();

describe("writing staged batches", () => {
  it("commits each batch with its manifest write, taking turns on the connections", async () => {
    const writer = new BatchWriter(connections, DATA_TABLES);
    await writer.add(staged(3600, 7200), 100);
    await writer.commit(noteRun(1, "first"));
    await writer.add(staged(10800), 100);
    await writer.commit(noteRun(2, "second"));
    await writer.settle();
    expect(await rows("SELECT hour_epoch, mem_mb FROM machines ORDER BY hour_epoch")).toEqual([
      { hour_epoch: "3600", mem_mb: 1 },
      { hour_epoch: "7200", mem_mb: 2 },
      { hour_epoch: "10800", mem_mb: 3 },
    ]);
    expect(await rows("SELECT run_id, inputs FROM runs ORDER BY run_id")).toEqual([
      { run_id: "1", inputs: ["first"] },
      { run_id: "2", inputs: ["second"] },
    ]);
  });

  it("throws a failed insert at the next wait and leaves nothing of its batch, the earlier batch kept", async () => {
    const writer = new BatchWriter(connections, DATA_TABLES);
    await writer.add(staged(3600), 100);
    await writer.commit(noteRun(1, "first"));
    await writer.add(staged(7200, 3600), 100); // 3600 again: account_hours' primary key refuses it
    await writer.commit(noteRun(2, "second"));
    await expect(writer.settle()).rejects.toThrow(/primary key|duplicate key/i);
    await writer.abort();
    expect(await rows("SELECT hour_epoch FROM account_hours")).toEqual([{ hour_epoch: "3600" }]);
    expect(await rows("SELECT count(*)::INT AS n FROM machines")).toEqual([{ n: 1 }]);
    expect(await rows("SELECT inputs FROM runs")).toEqual([{ inputs: ["first"] }]);
  });

  it("raises DuckDB's cap to the large files' cap once the files average 16 KiB or more, not for small files", async () => {
    const MiB = 1024 * 1024;
    const capAfter = async (fileBytes: number, hour: number) => {
      await connections[0]!.run("SET memory_limit = '64MiB'");
      const writer = new BatchWriter(connections, DATA_TABLES, undefined, 64 * MiB, 96 * MiB);
      await writer.add(staged(hour, hour + 3600), 2 * fileBytes, 2); // 2 files of fileBytes each
      await writer.commit(noteRun(fileBytes, "cap"));
      await writer.settle();
      return (await rows("SELECT current_setting('memory_limit') AS cap"))[0]!.cap;
    };
    // 578 bytes a file (an hour of 2 machines) is under 16 KiB; 58 KB (an hour of 200 machines) is over
    expect([await capAfter(578, 3600), await capAfter(58_000, 10800)]).toEqual(["64.0 MiB", "96.0 MiB"]);
  });

  it("loads 2048 rows of 64 KiB texts into a database capped at 96 MiB: the cap is raised until the commit", async () => {
    const dir = await mkdtemp(join(tmpdir(), "cloudunits-batch-"));
    const cap = 96 * 1024 * 1024;
    const { instance: capped, connection } = await openDatabaseFile(join(dir, "w.duckdb"), { memoryLimitBytes: cap });
    const more = await capped.connect();
    try {
      const image = "i".repeat(64 * 1024 - 8);
      const machines = Array.from({ length: 2048 }, (_, i) => vm(i + 1, { imageName: `${i}:${image}` }));
      const writer = new BatchWriter([connection, more], ["machines"], undefined, cap);
      await writer.add(
        buildColumns([accountHour(2, OCT_1, { 1: machines })], new Set(["machines"])),
        128 * 1024 * 1024,
      );
      await writer.commit(noteRun(1, "texts"));
      await writer.settle();
      const found = (
        await connection.runAndReadAll("SELECT count(*) AS n, sum(strlen(image_name)) AS bytes FROM machines")
      ).getRowObjectsJS()[0]!;
      expect([Number(found.n), Number(found.bytes)]).toEqual([
        2048,
        machines.reduce((n, m) => n + m.imageName.length, 0),
      ]);
    } finally {
      more.closeSync();
      connection.closeSync();
      capped.closeSync();
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
