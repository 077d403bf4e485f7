import { DuckDBInstance } from "@duckdb/node-api";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli as cli } from "../helpers/runCli.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appendAccountHours } from "../../src/store/append.js";
import {
  accountStats,
  cloudspaceStats,
  generateHours,
  SCHEMA_SQL,
  statsToCsv,
  writeDataset,
} from "../../src/internal.js";
import { fixtureConnection, fixtureHours, T0, T5 } from "./statsFixture.js";

const PERIOD = ["--from", "2026-10-01T00:00Z", "--till", String(T5)];

let dir: string;
let db: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "cloudunits-stats-cli-"));
  db = join(dir, "fixture.duckdb");
  const instance = await DuckDBInstance.create(db);
  const connection = await instance.connect();
  await connection.run(SCHEMA_SQL);
  await appendAccountHours(connection, fixtureHours());
  connection.closeSync();
  instance.closeSync();
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("cloudunits stats", () => {
  // Each run spawns the CLI (seconds on a busy machine): one run per path through the command.
  it("writes the long CSV of a --db file's cloud space to --out, --include repeated or comma-separated, warning of the missing hour", async () => {
    const csvFile = join(dir, "stats.csv");
    const run = await cli([
      "stats",
      "cloudspace",
      "--db",
      db,
      "--id",
      "71",
      ...PERIOD,
      "--include",
      "cpu,memory",
      "--include",
      "network",
      "--format",
      "csv",
      "--out",
      csvFile,
    ]);
    expect([run.code, run.stdout]).toEqual([0, ""]);
    // T2 has no file: said on stderr, never silent (docs/cli.md)
    expect(run.stderr).toMatch(/^cloudunits: warning: account 7: 1 hour missing .*: 2026-10-01T02:00:00Z\n$/);
    const response = await cloudspaceStats(await fixtureConnection(), {
      cloudspaceId: 71,
      from: T0,
      till: T5,
      include: ["cpu", "memory", "network"],
    });
    expect(await readFile(csvFile, "utf8")).toBe(statsToCsv(response, { entity: "cloudspace", id: 71 }));
  });

  it("exits 2 for vdisk-latency, saying why, before reading any input", async () => {
    const run = await cli([
      "stats",
      "machine",
      join(dir, "no-such-input"),
      "--id",
      "102",
      ...PERIOD,
      "--include",
      "memory",
      "--include",
      "vdisk-latency",
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/vdisk-latency cannot be computed: the consumption files record no disk latency/);
    expect(run.stdout).toBe("");
  });

  it("prints the JSON of an account read from a generated tree, equal to the library's on the same records", async () => {
    const options = { accounts: 1, spaces: 2, machines: 3, hours: 4, start: T0, seed: 5 };
    const tree = join(dir, "tree");
    await writeDataset({ ...options, out: tree });
    const run = await cli([
      "stats",
      "account",
      tree,
      "--id",
      "1",
      ...PERIOD,
      "--include",
      "cpu,memory,network,capacity",
    ]);
    expect(run.code).toBe(0);
    const instance = await DuckDBInstance.create(":memory:");
    const connection = await instance.connect();
    await connection.run(SCHEMA_SQL);
    await appendAccountHours(connection, generateHours(options));
    const expected = await accountStats(connection, {
      accountId: 1,
      from: T0,
      till: T5,
      include: ["cpu", "memory", "network", "capacity"],
    });
    expect(expected.time).toHaveLength(4);
    expect(JSON.parse(run.stdout)).toEqual(expected);
  });
});
