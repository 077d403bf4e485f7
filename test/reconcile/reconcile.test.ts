import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { compareBills, generateHours, ingest, type DecodedAccountHour, type ReconcileRow } from "../../src/internal.js";
import { runCli } from "../helpers/runCli.js";
import { CALCULATE, fakePlatform, platformCalculate, zipOf, type PlatformQuirks } from "../fetch/fakePlatform.js";
import { SECRETS, SECRET_VALUES, startServer, type FakeServer } from "../fetch/fakeService.js";

const START = 1790812800; // 2026-10-01T00:00Z
const PERIOD = ["--start", "2026-10-01T00:00Z", "--end", "2026-10-01T12:00Z"];
const END = START + 12 * 3600;
const JWT = { CLOUDUNITS_CLIENT_ID: SECRETS.clientId, CLOUDUNITS_CLIENT_SECRET: SECRETS.clientSecret };
const SESSION = { CLOUDUNITS_USERNAME: SECRETS.username, CLOUDUNITS_PASSWORD: SECRETS.password };

let dir: string;
let records: DecodedAccountHour[];
let zip: string;
let server: FakeServer | undefined;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "cloudunits-reconcile-"));
  records = [...generateHours({ accounts: 2, spaces: 2, machines: 3, hours: 24, start: START, seed: 7 })];
  zip = join(dir, "ours.zip");
  await writeFile(zip, await zipOf(records));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function serve(quirks: PlatformQuirks = {}): Promise<string> {
  server = await startServer(fakePlatform({ hours: records, quirks }));
  return server.url;
}

const jwtArgs = (url: string) => ["--url", url, "--auth-url", `${url}/idp`];

describe("cloudunits reconcile", () => {
  it("agrees with a platform that bills as we do, logging in with a JWT (exit 0), and says what it assumed", async () => {
    const url = await serve();
    const run = await runCli(["reconcile", zip, ...jwtArgs(url), ...PERIOD], JWT);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      "platform period rule: half-open [start, end), like ours (billing/calculate asked start=1790812800, end=1790856000)",
    );
    expect(run.stdout).toContain("our CU rollup: aggregate; tolerance: 1e-9 relative");
    expect(run.stdout).toMatch(/compared: \d+ entities \(the environment and 2 accounts: 1, 2\), \d+ figures/);
    expect(run.stdout).toMatch(/our bill and the platform's agree/);
    // the environment, then each account, all with the period as sent
    const asked = server!
      .seenAt(CALCULATE)
      .map((r) => [r.query.get("accountId"), r.query.get("start"), r.query.get("end")]);
    expect(asked).toEqual([
      [null, String(START), String(END)],
      ["1", String(START), String(END)],
      ["2", String(START), String(END)],
    ]);
    for (const request of server!.seenAt(CALCULATE))
      expect(request.headers.authorization).toBe(`bearer ${SECRETS.token}`);
    for (const secret of SECRET_VALUES) expect(run.stdout + run.stderr).not.toContain(secret);
  }, 120_000);

  it("agrees over a warehouse file too, logging in with a session key (exit 0)", async () => {
    const db = join(dir, "w.duckdb");
    await ingest([zip], { db });
    const url = await serve();
    const run = await runCli(
      ["reconcile", "--db", db, "--url", url, ...PERIOD, "--account-id", "2", "--format", "json"],
      SESSION,
    );
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report).toMatchObject({
      period: { start: "2026-10-01T00:00:00Z", end: "2026-10-01T12:00:00Z" },
      platformEnd: "exclusive",
      cuRollup: "aggregate",
      agree: true,
      rows: [],
      accountIds: [2],
    });
    expect(server!.seenAt(CALCULATE).map((r) => r.query.get("authkey"))).toEqual([
      SECRETS.sessionKey,
      SECRETS.sessionKey,
    ]);
  }, 120_000);

  it("an end-inclusive platform differs in every figure of the extra hour (exit 5) and agrees with --platform-end inclusive", async () => {
    const url = await serve({ endInclusive: true });
    const run = await runCli(
      ["reconcile", zip, ...jwtArgs(url), ...PERIOD, "--account-id", "1", "--format", "json"],
      JWT,
    );
    expect(run.code).toBe(5);
    expect(run.stderr).toMatch(
      /^cloudunits: our bill and the platform's differ: \d+ figures beyond the tolerance 1e-9, 0 on one side only\n$/,
    );
    const rows: ReconcileRow[] = JSON.parse(run.stdout).rows;
    const environment = rows.filter((r) => r.level === "environment");
    expect(environment.map((r) => r.unit)).toEqual(["CU", "SU", "TU", "NU"]);
    // the platform counted the hour at END too: its figure is ours plus that hour's
    const expected = platformCalculate(records, START, END, undefined, { endInclusive: true }).consumption!;
    for (const row of environment) {
      expect(row.platform).toBe(expected[row.unit]);
      expect(row.difference).toBeCloseTo(row.ours! - row.platform!, 12);
      expect(row.difference).toBeLessThan(0);
    }
    const fixed = await runCli(
      ["reconcile", zip, ...jwtArgs(url), ...PERIOD, "--account-id", "1", "--platform-end", "inclusive"],
      JWT,
    );
    expect(fixed.code).toBe(0);
    expect(fixed.stdout).toContain(
      "platform period rule: end-inclusive [start, end]: asked for the period's last hour as end (billing/calculate asked start=1790812800, end=1790852400)",
    );
  }, 120_000);

  it("a platform that sums the VMs' CU differs in CU above the machines only (exit 5) and agrees with --cu-rollup sum", async () => {
    const url = await serve({ cuSum: true });
    const run = await runCli(["reconcile", zip, ...jwtArgs(url), ...PERIOD, "--format", "csv"], JWT);
    expect(run.code).toBe(5);
    const [header, ...lines] = run.stdout.trimEnd().split("\r\n");
    expect(header).toBe(
      "level,account_id,cloudspace_id,machine_id,name,unit,ours,platform,difference,relative_difference,issue,period_start,period_end,platform_end,cu_rollup,tolerance",
    );
    expect(lines.length).toBeGreaterThan(0);
    const rows = lines.map((l) => l.split(","));
    expect(new Set(rows.map((r) => r[5]))).toEqual(new Set(["CU"]));
    expect(rows.map((r) => r[0])).toContain("environment");
    expect(rows.map((r) => r[0])).not.toContain("machine");
    for (const r of rows) {
      expect(r[10]).toBe("differs");
      expect(Number(r[6])).toBeLessThan(Number(r[7])); // a level's own CU is at most the sum of its VMs'
      expect(r[14]).toBe("aggregate");
    }
    const fixed = await runCli(["reconcile", zip, ...jwtArgs(url), ...PERIOD, "--cu-rollup", "sum"], JWT);
    expect(fixed.code).toBe(0);
    expect(fixed.stdout).toContain("our CU rollup: sum");
  }, 120_000);

  it("a platform that counts packets differs in NU by 3600 × the packet size; reconcile names the factor and the units file that makes NU agree", async () => {
    const url = await serve({ packetBytes: 1500 });
    const run = await runCli(["reconcile", zip, ...jwtArgs(url), ...PERIOD], JWT);
    expect(run.code).toBe(5);
    const lines = run.stdout.split("\n");
    expect(lines).toContain("  NU: 5400000, every account alike: a constant or a reading");
    for (const unit of ["CU", "SU", "TU"]) expect(lines).toContain(`  ${unit}: 1`);
    const at = lines.indexOf("a units file (--units) with these keys makes NU agree:");
    expect(lines.slice(at + 1, at + 3)).toEqual(["  nicReading: host-packets-per-second", "  nicBytesPerValue: 1500"]);
    const json = JSON.parse(
      (await runCli(["reconcile", zip, ...jwtArgs(url), ...PERIOD, "--format", "json"], JWT)).stdout,
    );
    expect(json.factors.map((f: { unit: string; constant: boolean }) => [f.unit, f.constant])).toEqual([
      ["CU", false],
      ["SU", false],
      ["TU", false],
      ["NU", true],
    ]);
    expect(json.factors[3].factor).toBeCloseTo(5_400_000, 3);
    expect(json.suggestedUnits).toEqual({
      changes: { nicReading: "host-packets-per-second", nicBytesPerValue: 1500 },
      units: ["NU"],
    });
    // the units file it suggests makes every figure agree
    const units = join(dir, "packets.yaml");
    await writeFile(units, "nicReading: host-packets-per-second\nnicBytesPerValue: 1500\n");
    const fixed = await runCli(["reconcile", zip, ...jwtArgs(url), ...PERIOD, "--units", units], JWT);
    expect(fixed.stdout).toMatch(/our bill and the platform's agree/);
    expect(fixed.code).toBe(0);
  }, 120_000);

  it("a machine the platform leaves out is listed as ours only, its figures and no others (exit 5)", async () => {
    const space = records[0]!.account.cloudspaces[0]!;
    const machine = space.machines.find((m) => m.type === "vm")!;
    const url = await serve({ missingMachine: { cloudspaceId: space.cloudSpaceId, machineId: machine.id } });
    const out = join(dir, "missing.json");
    const run = await runCli(
      ["reconcile", zip, ...jwtArgs(url), ...PERIOD, "--account-id", "1", "--format", "json", "--out", out],
      JWT,
    );
    expect(run.code).toBe(5);
    expect(run.stdout).toBe("");
    const rows: ReconcileRow[] = JSON.parse(await readFile(out, "utf8")).rows;
    expect(rows.map((r) => [r.level, r.accountId, r.cloudspaceId, r.machineId, r.unit, r.issue, r.platform])).toEqual(
      ["CU", "SU", "TU"].map((u) => ["machine", 1, space.cloudSpaceId, machine.id, u, "only-ours", null]),
    );
    for (const r of rows) expect(r.difference).toBe(r.ours);
  }, 120_000);

  it("an account missing from our data shows its cloud spaces and machines as platform only, as a text table", async () => {
    const ours = join(dir, "account1.zip");
    await writeFile(ours, await zipOf(records.filter((h) => h.accountId === 1)));
    const url = await serve();
    const run = await runCli(["reconcile", ours, ...jwtArgs(url), ...PERIOD], JWT);
    expect(run.code).toBe(5);
    const table = run.stdout.split("\n");
    const header = table.find((l) => l.startsWith("level"))!;
    expect(header.split(/\s+/)).toEqual([
      "level",
      "account_id",
      "cloudspace_id",
      "machine_id",
      "name",
      "unit",
      "ours",
      "platform",
      "difference",
      "relative_difference",
      "issue",
    ]);
    const account2 = table.filter((l) => /^(cloudspace|machine)\s+2\s/.test(l));
    expect(account2.length).toBeGreaterThan(0);
    for (const line of account2) expect(line).toMatch(/\s-\s+[\d.]+\s+-?[\d.]+\s+-\s+only-platform$/);
    expect(table.some((l) => /^account\s+2\s.*\sdiffers$/.test(l))).toBe(true); // our figures for account 2 are all 0
    expect(table.some((l) => /^environment\s.*\sdiffers$/.test(l))).toBe(true);
  }, 120_000);

  it("bad usage exits 2 before any call", async () => {
    const url = await serve();
    const run = await runCli(["reconcile", zip, ...jwtArgs(url), ...PERIOD, "--tolerance", "-1"], JWT);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/bad tolerance -1/);
    expect(server!.seenAt(CALCULATE)).toHaveLength(0);
  }, 120_000);
});

describe("compareBills", () => {
  // [ours, platform, tolerance, differs]
  const cases: [number, number, number, boolean][] = [
    [1, 1, 0, false],
    [0, 0, 0, false],
    [1, 1 + 1e-12, 1e-9, false],
    [1, 1 + 1e-8, 1e-9, true],
    [100, 101, 0.01, false], // |−1| ≤ 0.01 × 101
    [100, 102, 0.01, true],
    [0, 1e-30, 1e-9, true],
    [-2, 2, 1, true], // relative to the larger magnitude: |−4| > 1 × 2
    [-2, -2.5, 0.2, false], // |0.5| ≤ 0.2 × 2.5
  ];
  it.each(cases)("ours %d, platform %d, tolerance %d: differs %s", (ours, platform, tolerance, differs) => {
    const comparison = compareBills(tolerance);
    comparison.entity("environment", {}, "", { CU: ours }, { CU: platform });
    expect(comparison.rows.length === 1).toBe(differs);
    if (differs) {
      expect(comparison.rows[0]!.difference).toBe(ours - platform);
      expect(comparison.rows[0]!.relativeDifference).toBe(
        Math.abs(ours - platform) / Math.max(Math.abs(ours), Math.abs(platform)),
      );
    }
  });
  it("a figure one side lacks is a one-side row, and machines are never compared on NU", () => {
    const comparison = compareBills(1e-9);
    comparison.entity(
      "cloudspace",
      { accountId: 1, cloudspaceId: 2 },
      "s",
      { CU: 1, SU: 2, TU: 3, NU: 4 },
      { CU: 1, SU: 2, TU: 3 },
    );
    comparison.entity(
      "machine",
      { accountId: 1, cloudspaceId: 2, machineId: 3 },
      "m",
      { CU: 1, SU: 1, TU: 1, NU: 9 },
      { CU: 1, SU: 1, TU: 1 },
    );
    expect(comparison.rows.map((r) => [r.level, r.unit, r.issue, r.ours, r.platform])).toEqual([
      ["cloudspace", "NU", "only-ours", 4, null],
    ]);
    expect(comparison.compared).toEqual({ entities: 2, figures: 7 });
  });
});
