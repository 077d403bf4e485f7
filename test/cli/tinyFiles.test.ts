// Issue 14: tiny files must not become huge tables. 2,000 copies of a 64-byte file whose
// machines are a List(Void) of 9,361 (or of a 32-byte file of 21,844 empty cloud spaces), in
// a zip of ~350 KB, once made `cloudunits billing` load 18.7 million machine-hours (2.9 GB
// peak). Each file is now a bad file at its expansion limit; the run's memory stays flat.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COMPOSITE, NULL, VOID, data, listPtr, message, structPtr, tag } from "../capnp/words.js";
import { runCli, type CliRun } from "../helpers/runCli.js";
import { tempDir, writeYazl } from "../input/zipFixtures.js";

const COPIES = 2000;
/** Peak resident memory allowed for a run over one of these zips (main before the fix: 2.9–3.8 GB). */
const MAX_RSS_MB = 600;
const PRINT_MAX_RSS = join(import.meta.dirname, "../helpers/printMaxRss.mjs");

/** Account 7, cloud space 5 whose machines pointer is a List(Void) of 9,361: 64 bytes. */
const EMPTY_MACHINES = message([
  structPtr(0, 1, 1),
  data(7),
  listPtr(0, COMPOSITE, 3),
  tag(1, 1, 2),
  data(5, 7),
  listPtr(0, VOID, 9361),
  NULL,
]);
/** Account 7 whose cloudspaces pointer is a List(Void) of 21,844: 32 bytes. */
const EMPTY_SPACES = message([structPtr(0, 1, 1), data(7), listPtr(0, VOID, 21844)]);

/** 2,000 account-hours (accounts 1–20, 100 hours from 2026-10-01T00:00Z), each holding `file`. */
function copies(file: Uint8Array): { name: string; data: Buffer }[] {
  return Array.from({ length: COPIES }, (_, i) => {
    const hour = new Date(Date.UTC(2026, 9, 1) + (i % 100) * 3600_000);
    return {
      name: `${1 + Math.floor(i / 100)}/2026/10/${hour.getUTCDate()}/${hour.getUTCHours()}/account_capnp.bin`,
      data: Buffer.from(file),
    };
  });
}

/** `cloudunits ARGS`, with the child's peak RSS (MB) read from what the preloaded helper prints. */
async function measuredRun(args: string[]): Promise<CliRun & { maxRssMb: number }> {
  const run = await runCli(args, { NODE_OPTIONS: `--import ${PRINT_MAX_RSS}` });
  const kilobytes = /^maxRSS (\d+)$/m.exec(run.stderr);
  expect(kilobytes, run.stderr.slice(-2000)).not.toBeNull();
  return { ...run, maxRssMb: Number(kilobytes![1]) / 1024 };
}

let dir: string;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  ({ dir, cleanup } = await tempDir());
  await writeYazl(join(dir, "machines.zip"), copies(EMPTY_MACHINES));
  await writeYazl(join(dir, "spaces.zip"), copies(EMPTY_SPACES));
});
afterAll(() => cleanup());

describe("cloudunits billing over 2,000 tiny files that expand", () => {
  for (const [zip, what] of [
    ["machines.zip", "9,361 empty machines"],
    ["spaces.zip", "21,844 empty cloud spaces"],
  ] as const) {
    it(`exits 3 naming every file of ${what} at its expansion limit, in bounded memory`, async () => {
      const run = await measuredRun([
        "billing",
        join(dir, zip),
        "--start",
        "2026-10-01",
        "--end",
        "2026-11-01",
        "--format",
        "json",
      ]);
      expect(run.code, run.stderr.slice(0, 2000)).toBe(3);
      expect(run.stdout).toBe("");
      expect(run.stderr).toContain(`${COPIES} bad input files (use --skip-bad to go on without them)`);
      const named = run.stderr.split("\n").filter((line) => line.includes("expansion limit"));
      expect(named).toHaveLength(COPIES);
      expect(named[0]).toBe(
        `  ${join(dir, zip)}!1/2026/10/1/0/account_capnp.bin: the message decodes to more than its expansion limit of 64 words, ` +
          "a bound on the records a file this small may make (lists of empty elements?); raise expansionLimitWords only for a file you trust",
      );
      expect(named.some((line) => line.includes(`${join(dir, zip)}!20/2026/10/5/3/account_capnp.bin: `))).toBe(true);
      expect(run.maxRssMb).toBeLessThan(MAX_RSS_MB);
    }, 180_000);
  }

  it("with --skip-bad goes on without them: exit 0, each listed with its code, nothing billed", async () => {
    const run = await measuredRun([
      "billing",
      join(dir, "machines.zip"),
      "--start",
      "2026-10-01",
      "--end",
      "2026-11-01",
      "--format",
      "json",
      "--skip-bad",
    ]);
    expect(run.code, run.stderr.slice(0, 2000)).toBe(0);
    expect(run.stderr).toContain(`skipped ${COPIES} bad files:`);
    expect(run.stderr.split("\n").filter((line) => line.endsWith("[CAPNP_EXPANSION_LIMIT]"))).toHaveLength(COPIES);
    expect(run.stderr).not.toMatch(/machine-hours of type "" are not billed/);
    expect(run.maxRssMb).toBeLessThan(MAX_RSS_MB);
  }, 180_000);

  it("reads a small file's few empty records within its bound, and warns about them", async () => {
    // 3 empty machines (27 words charged of 64) and 5 empty cloud spaces (17 of 64).
    const few = (shape: Uint8Array, count: number, at: number) => {
      const bytes = Buffer.from(shape);
      bytes.writeUInt32LE(count * 8 + VOID, at); // the list pointer's count and element size
      return bytes;
    };
    const zip = join(dir, "few.zip");
    await writeYazl(zip, [
      { name: "7/2026/10/1/0/account_capnp.bin", data: few(EMPTY_MACHINES, 3, 52) },
      { name: "8/2026/10/1/0/account_capnp.bin", data: few(EMPTY_SPACES, 5, 28) },
    ]);
    const run = await runCli([
      "billing",
      zip,
      "--start",
      "2026-10-01T00:00Z",
      "--end",
      "2026-10-01T01:00Z",
      "--format",
      "json",
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(
      "warning: 3 machine-hours and 5 cloud-space-hours are empty records (no id, no type or state): a damaged file?\n",
    );
  }, 180_000);
});
