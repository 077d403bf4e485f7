import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/runCli.js";

// One clock for every decision by "now": CLOUDUNITS_TEST_NOW sets it for any command, and the
// command says so on stderr. Without it, the system's clock (a test that needs a date sets one).

const root = mkdtempSync(join(tmpdir(), "cloudunits-clock-"));
const db = join(root, "warehouse.duckdb");
const data = join(root, "data");
afterAll(() => rmSync(root, { recursive: true, force: true }));

beforeAll(async () => {
  const generated = await runCli([
    "generate",
    "--out",
    data,
    "--accounts",
    "1",
    "--spaces",
    "1",
    "--machines",
    "1",
    "--hours",
    "24",
    "--start",
    "2026-10-01",
  ]);
  expect(generated.code, generated.stderr).toBe(0);
  const ingested = await runCli(["ingest", data, "--db", db], { CLOUDUNITS_TEST_NOW: "2026-10-02T00:30:00Z" });
  expect(ingested.code, ingested.stderr).toBe(0);
}, 120_000);

const NOTE = (iso: string) =>
  `cloudunits: the time is taken as ${iso} from CLOUDUNITS_TEST_NOW (a test setting), not from the clock\n`;

describe("the one clock (CLOUDUNITS_TEST_NOW)", () => {
  it.each([
    ["2026-10-02T00:30:00Z", 0],
    ["2026-10-02T05:10:00Z", 5],
    ["2027-01-02T06:00:00Z", 2214], // 92 days and 6 hours after the last hour ended
  ])(
    "status at %s measures the warehouse's lag from it (%i hours), and says which time it took",
    async (now, lagHours) => {
      const run = await runCli(["status", "--db", db, "--format", "json"], { CLOUDUNITS_TEST_NOW: now });
      expect(run.stderr.startsWith(NOTE(now)), run.stderr).toBe(true);
      const status = JSON.parse(run.stdout) as { accounts: { lagHours: number }[] };
      expect(status.accounts.map((a) => a.lagHours)).toEqual([lagHours]);
    },
  );

  it("billing at a time inside the period warns of no hour yet to come, and at a later time calls them missing", async () => {
    const period = ["--start", "2026-10-01T00:00Z", "--end", "2026-10-03T00:00Z"];
    const early = await runCli(["billing", "--db", db, ...period], { CLOUDUNITS_TEST_NOW: "2026-10-02T00:30:00Z" });
    expect(early.code, early.stderr).toBe(0);
    expect(early.stderr).toBe(NOTE("2026-10-02T00:30:00Z")); // the hours after now are not yet due: no warning
    const late = await runCli(["billing", "--db", db, ...period], { CLOUDUNITS_TEST_NOW: "2026-10-05T00:00:00Z" });
    expect(late.code, late.stderr).toBe(0);
    expect(late.stderr).toContain(
      "account 1: 24 hours missing in [2026-10-01T00:00:00Z, 2026-10-03T00:00:00Z): 2026-10-02T00:00:00Z..2026-10-02T23:00:00Z",
    );
  });

  it("a bad test clock is a usage error naming the variable", async () => {
    const run = await runCli(["status", "--db", db], { CLOUDUNITS_TEST_NOW: "tomorrow" });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/CLOUDUNITS_TEST_NOW/);
  });

  it("unset, nothing is said and the system's clock decides", async () => {
    const run = await runCli(["status", "--db", db, "--format", "json"]);
    expect(run.stderr).not.toContain("CLOUDUNITS_TEST_NOW");
    const status = JSON.parse(run.stdout) as { accounts: { lagHours: number }[] };
    expect(status.accounts[0]!.lagHours).toBe(
      Math.floor((Date.now() / 1000 - Date.parse("2026-10-02T00:00:00Z") / 1000) / 3600),
    );
  });
});
