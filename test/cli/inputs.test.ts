import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadNotes, storeSourceOf } from "../../src/cli/inputs.js";
import { UsageError } from "../../src/base/errors.js";
import { writeDataset } from "../../src/index.js";
import { runCli as cli } from "../helpers/runCli.js";

describe("the shared input options", () => {
  it("takes input paths, or --db, exactly one of them", () => {
    expect(storeSourceOf({ inputs: ["a.zip", "tree"] })).toEqual(["a.zip", "tree"]);
    expect(storeSourceOf({ db: "w.duckdb" })).toEqual({ db: "w.duckdb" });
    expect(() => storeSourceOf({ inputs: ["a.zip"], db: "w.duckdb" })).toThrow(UsageError);
    expect(() => storeSourceOf({ inputs: ["a.zip"], db: "w.duckdb" })).toThrow(/not both/);
    expect(() => storeSourceOf({})).toThrow(/name the inputs/);
  });

  it("lists every skipped file with its reason and counts ignored paths; byte-identical duplicates are dropped silently", () => {
    expect(
      loadNotes({
        inputs: ["x"],
        filesLoaded: 3,
        accountHours: 3,
        ignoredPaths: 2,
        duplicates: ["b/7/2026/10/1/0/account_capnp.bin"],
        skipped: [
          {
            file: "a/7/2026/10/1/1/account_capnp.bin",
            code: "CAPNP_TRUNCATED",
            reason: "segment 0 declares 9 words, has 2",
          },
        ],
      }),
    ).toEqual([
      "skipped 1 bad file:",
      "  a/7/2026/10/1/1/account_capnp.bin: segment 0 declares 9 words, has 2 [CAPNP_TRUNCATED]",
      "ignored 2 files whose path is not a consumption path",
    ]);
    expect(
      loadNotes({ inputs: ["x"], filesLoaded: 3, accountHours: 3, ignoredPaths: 0, duplicates: [], skipped: [] }),
    ).toEqual([]);
  });
});

describe("a folder of zips as an input (the zips fetch writes into --out DIR)", () => {
  const START = 1790812800; // 2026-10-01T00:00Z
  const DATA = { accounts: 1, spaces: 1, machines: 2, hours: 3, start: START, seed: 5 };
  const PERIOD = ["--start", "2026-10-01T00:00Z", "--end", "2026-10-01T03:00Z"];
  let dir: string;
  let zips: string[];
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "cloudunits-zipfolder-"));
    zips = [join(dir, "dl/consumption-1.zip"), join(dir, "dl/consumption-2.zip")];
    await mkdir(join(dir, "dl"));
    for (const [i, out] of zips.entries()) await writeDataset({ ...DATA, firstAccountId: i + 1, out });
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("billing, ingest, check, stats and export read every zip in it, as if each zip were named", async () => {
    const dl = join(dir, "dl");
    const db = join(dir, "w.duckdb");
    const [fromFolder, fromZips, ingest, check, stats, exported] = await Promise.all([
      cli(["billing", dl, ...PERIOD, "--format", "json"]),
      cli(["billing", ...zips, ...PERIOD, "--format", "json"]),
      cli(["ingest", dl, "--db", db]),
      cli(["check", dl, "--format", "json"]),
      cli([
        "stats",
        "account",
        dl,
        "--id",
        "2",
        "--from",
        "2026-10-01T00:00Z",
        "--till",
        "2026-10-01T03:00Z",
        "--include",
        "memory",
      ]),
      cli(["export", dl, "--format", "parquet", "--out", join(dir, "parquet")]),
    ]);
    for (const run of [fromFolder, fromZips, check, stats]) expect([run.code, run.stderr]).toEqual([0, ""]);
    expect([ingest.code, exported.code]).toEqual([0, 0]);
    expect(JSON.parse(fromFolder.stdout)).toEqual(JSON.parse(fromZips.stdout));
    expect(JSON.parse(fromFolder.stdout).consumption.CU).toBeGreaterThan(0);
    expect(ingest.stderr).toMatch(/ingested 6 files \(6 account-hours\)/); // it said "ingested 0 files" before
    const fromDb = await cli(["billing", "--db", db, ...PERIOD, "--format", "json"]);
    expect(JSON.parse(fromDb.stdout)).toEqual(JSON.parse(fromZips.stdout));
    const report = JSON.parse(check.stdout) as {
      accounts: { accountId: number; hours: number }[];
      ignoredPaths: number;
    };
    expect([report.accounts.map((a) => [a.accountId, a.hours]), report.ignoredPaths]).toEqual([
      [
        [1, 3],
        [2, 3],
      ],
      0,
    ]);
    expect(JSON.parse(stats.stdout).time).toEqual([START, START + 3600, START + 7200]);
    const manifest = JSON.parse(await readFile(join(dir, "parquet/manifest.json"), "utf8")) as {
      partitions: { accountHours: number; accounts: number[] }[];
    };
    expect(manifest.partitions.map((p) => [p.accountHours, p.accounts])).toEqual([[6, [1, 2]]]);
  });
});
