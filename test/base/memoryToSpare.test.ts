import type { DuckDBConnection, DuckDBInstance } from "@duckdb/node-api";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { duckdbApi, parseBytes, withMemoryLimitKept, withMemoryToSpare } from "../../src/base/duckdb.js";

// A list aggregate cannot spill to disk: a million integers in one list need some 8 MB at once.
const BIG_LIST = "SELECT len(list(range)) AS n FROM range(1000000)";

let instance: DuckDBInstance;
let connection: DuckDBConnection;
const limit = async () =>
  String((await connection.runAndReadAll("SELECT current_setting('memory_limit')")).getRowsJS()[0]![0]);
const count = async () => Number((await connection.runAndReadAll(BIG_LIST)).getRowsJS()[0]![0]);

beforeEach(async () => {
  instance = await duckdbApi().DuckDBInstance.create(":memory:", { memory_limit: "2MiB", threads: "1" });
  connection = await instance.connect();
});
afterEach(() => {
  connection.closeSync();
  instance.closeSync();
});

describe("withMemoryToSpare: a query past DuckDB's memory cap runs again with the cap doubled", () => {
  it("fails at the cap as DuckDB words it, and gives the whole answer once the cap is raised; the cap stays raised", async () => {
    await expect(count()).rejects.toThrow(/^Out of Memory Error/);
    expect(await withMemoryToSpare(connection, count)).toBe(1_000_000);
    expect(parseBytes(await limit())).toBeGreaterThanOrEqual(8 * 2 ** 20); // doubled from 2 MiB at least twice
    expect(await count()).toBe(1_000_000);
  });

  it("stops at its ceiling with DuckDB's error, the cap at the ceiling", async () => {
    await expect(withMemoryToSpare(connection, count, 4 * 2 ** 20)).rejects.toThrow(/^Out of Memory Error/);
    expect(await limit()).toBe("4.0 MiB");
  });

  it("passes any other error through at once, the cap unchanged", async () => {
    let runs = 0;
    await expect(
      withMemoryToSpare(connection, () => (runs++, connection.run("SELECT * FROM no_such_table"))),
    ).rejects.toThrow(/no_such_table/);
    expect([runs, await limit()]).toEqual([1, "2.0 MiB"]);
  });
});

describe("withMemoryLimitKept: the cap a query raised is set back after it", () => {
  it("gives the query's answer, then the queries after it run under the cap from before (2 MiB: the big list fails again)", async () => {
    expect(await withMemoryLimitKept(connection, () => withMemoryToSpare(connection, count))).toBe(1_000_000);
    expect(await limit()).toBe("2.0 MiB");
    await expect(count()).rejects.toThrow(/^Out of Memory Error/);
  });
});

describe("parseBytes reads sizes as DuckDB prints its settings", () => {
  it.each([
    ["64.0 MiB", 64 * 2 ** 20],
    ["1.5 GiB", 1.5 * 2 ** 30],
    ["512 bytes", 512],
    ["256.0 KiB", 256 * 1024],
    ["2.0 GB", 2e9],
    ["lots", undefined],
  ])("%s is %s bytes", (text, bytes) => {
    expect(parseBytes(text)).toBe(bytes);
  });
});
