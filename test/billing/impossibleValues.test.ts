import ExcelJS from "exceljs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Account, ConfiguredIops, Disk, Nic, VMachine } from "../../src/capnp/records.js";
import { billingCommand } from "../../src/cli/commands/billing.js";
import { checkCommand } from "../../src/cli/commands/check.js";
import { ingestCommand } from "../../src/cli/commands/ingest.js";
import { statsCommand } from "../../src/cli/commands/stats.js";
import { encodeAccount } from "../../src/generate/encodeAccount.js";
import { hourPath } from "../../src/generate/hourPath.js";
import { bill, ImpossibleValuesError, open } from "../../src/index.js";
import { inProcessCli } from "../helpers/inProcessCli.js";

/**
 * docs/warehouse.md, impossible values: files made by the project's encoder, one account (2) with
 * two hours: the first clean, the second with one impossible value. The figures with the
 * value counted as 0 are worked out by hand below from the records.
 */
const T0 = Date.UTC(2026, 9, 1) / 1000;
const T1 = T0 + 3600;
const PERIOD = ["--start", "2026-10-01T00:00Z", "--end", "2026-10-01T02:00Z"];
const TB = 1024 ** 4;

/** Runs `cloudunits <args>` in process; returns stdout, stderr (the error's message last, and its stack for an internal error) and the exit code. */
async function cli(...args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  const run = await inProcessCli([billingCommand, checkCommand, ingestCommand, statsCommand], args);
  const error = run.error as Error | undefined;
  const stderr =
    error === undefined ? run.stderr : `${run.stderr}${error.message}${run.code === 1 ? String(error.stack) : ""}`;
  return { stdout: run.stdout, stderr, code: run.code };
}

const limits = (over: Partial<ConfiguredIops>): ConfiguredIops => ({
  totalBytesSec: 1000,
  readBytesSec: 1000,
  writeBytesSec: 1000,
  totalIopsSec: 0,
  readIopsSec: 0,
  writeIopsSec: 0,
  totalBytesSecMax: 1000,
  readBytesSecMax: 1000,
  writeBytesSecMax: 1000,
  totalIopsSecMax: 0,
  readIopsSecMax: 0,
  writeIopsSecMax: 0,
  sizeIopsSec: 0,
  ...over,
});

/**
 * Per hour: VM 5 with 4 vcpus, 16384 MB (CU max(4, 2) = 4, VCU 4, MU 16); disk 0 (id 11)
 * 512 GB limited to 800 IOPS total (40 + 40 read/write), disk 1 (id 12) 256 GB with no total
 * limit and 100 + 300 read/write (SU 0.75, TU 2 + 1 = 3); an external NIC sending 1 TB and
 * receiving 0.5 TB, a space NIC; the gateway's external NIC sending 0.25 TB (NU 1.75).
 */
function account(): Account {
  const disk = (id: number, size: number, configured: ConfiguredIops): Disk => ({
    id,
    size,
    iopsRead: 10,
    iopsWrite: 20,
    iopsReadMax: 30,
    iopsWriteMax: 40,
    configuredIops: configured,
  });
  const vm: VMachine = {
    id: 5,
    type: "vm",
    vcpus: 4,
    cpuMinutes: 120,
    mem: 16384,
    imageName: "ubuntu-22.04",
    status: "RUNNING",
    disks: [
      disk(11, 512, limits({ totalIopsSec: 800, readIopsSec: 40, writeIopsSec: 40 })),
      disk(12, 256, limits({ readIopsSec: 100, writeIopsSec: 300 })),
    ],
    networks: [
      { id: 0, type: "external", tx: TB, rx: TB / 2 },
      { id: 0, type: "space", tx: 2048, rx: 1024 },
    ],
  };
  const gateway: VMachine = {
    id: 0,
    type: "routeros",
    vcpus: 1,
    cpuMinutes: 6,
    mem: 256,
    imageName: "",
    status: "RUNNING",
    disks: [],
    networks: [{ id: 0, type: "external", tx: TB / 4, rx: 0 }],
  };
  return { accountId: 2, cloudspaces: [{ cloudSpaceId: 3, accountId: 2, state: "DEPLOYED", machines: [gateway, vm] }] };
}

/** The two hours' totals of the clean data (unit-hours). */
const CLEAN = { CU: 8, SU: 1.5, TU: 6, NU: 3.5, VCU: 8, MU: 32 };

const vmOf = (a: Account) => a.cloudspaces[0]!.machines[1]!;
const gatewayOf = (a: Account) => a.cloudspaces[0]!.machines[0]!;
const diskOf = (a: Account, i: number) => vmOf(a).disks[i]!;
const nicOf = (m: VMachine, i: number): Nic => m.networks[i]!;

interface Case {
  /** The field as docs/warehouse.md and the messages name it. */
  field: string;
  value: number;
  /** How the message names the entity (after `cloud space 3, `). */
  entity: string;
  set: (a: Account, value: number) => void;
  /** Account totals with the value counted as 0 (--skip-bad); absent: billing does not use the field (clean totals, exit 0). */
  skipBad?: Partial<typeof CLEAN>;
  /** A stats request whose value at the bad hour becomes null. */
  stats?: {
    entity: "machine" | "cloudspace" | "account";
    id: number;
    include: string;
    at: (series: any) => unknown;
    clean: unknown;
  };
}

const CASES: Case[] = [
  {
    field: "vcpus",
    value: -128,
    entity: "machine 5",
    set: (a, v) => (vmOf(a).vcpus = v),
    skipBad: { CU: 8, VCU: 4 }, // hour 2: CU max(16384/1024/4, 0) = 4
    stats: { entity: "cloudspace", id: 3, include: "cpu", at: (s) => s.cpu.allocated[1], clean: 4 },
  },
  {
    field: "mem",
    value: NaN,
    entity: "machine 5",
    set: (a, v) => (vmOf(a).mem = v),
    skipBad: { CU: 6, MU: 16 }, // hour 2: CU max(0, 4/2) = 2
    stats: { entity: "account", id: 2, include: "memory", at: (s) => s.memory[1], clean: 16 },
  },
  {
    field: "cpuMinutes",
    value: Infinity,
    entity: "machine 5",
    set: (a, v) => (vmOf(a).cpuMinutes = v),
    stats: { entity: "machine", id: 5, include: "cpu", at: (s) => s.cpu[1], clean: 50 },
  },
  {
    field: "size",
    value: -Infinity,
    entity: "machine 5 disk 0 (id 11)",
    set: (a, v) => (diskOf(a, 0).size = v),
    skipBad: { SU: 1.0 }, // hour 2: 256 / 1024
    stats: { entity: "machine", id: 5, include: "vdisk-capacity", at: (s) => s["vdisk-capacity"]["11"][1], clean: 512 },
  },
  {
    field: "iopsRead",
    value: NaN,
    entity: "machine 5 disk 1 (id 12)",
    set: (a, v) => (diskOf(a, 1).iopsRead = v),
    stats: { entity: "machine", id: 5, include: "vdisk-iops", at: (s) => s["vdisk-iops"]["12"][1], clean: 30 },
  },
  {
    field: "iopsWrite",
    value: -3,
    entity: "machine 5 disk 0 (id 11)",
    set: (a, v) => (diskOf(a, 0).iopsWrite = v),
    stats: { entity: "cloudspace", id: 3, include: "vdisk-iops", at: (s) => s["vdisk-iops"][1], clean: 60 },
  },
  {
    field: "iopsReadMax",
    value: Infinity,
    entity: "machine 5 disk 0 (id 11)",
    set: (a, v) => (diskOf(a, 0).iopsReadMax = v),
  },
  {
    field: "iopsWriteMax",
    value: -0.5,
    entity: "machine 5 disk 1 (id 12)",
    set: (a, v) => (diskOf(a, 1).iopsWriteMax = v),
  },
  {
    // NaN is not > 0: read + write applies (80 / 400), beside disk 1's 1
    field: "configuredIops.totalIopsSec",
    value: NaN,
    entity: "machine 5 disk 0 (id 11)",
    set: (a, v) => (diskOf(a, 0).configuredIops!.totalIopsSec = v),
    skipBad: { TU: 4.2 },
  },
  {
    field: "configuredIops.readIopsSec",
    value: -100,
    entity: "machine 5 disk 1 (id 12)",
    set: (a, v) => (diskOf(a, 1).configuredIops!.readIopsSec = v),
    skipBad: { TU: 5.75 }, // hour 2: 2 + 300 / 400
  },
  {
    field: "configuredIops.writeIopsSec",
    value: Infinity,
    entity: "machine 5 disk 1 (id 12)",
    set: (a, v) => (diskOf(a, 1).configuredIops!.writeIopsSec = v),
    skipBad: { TU: 5.25 }, // hour 2: 2 + 100 / 400
  },
  ...(
    [
      "totalBytesSec",
      "readBytesSec",
      "writeBytesSec",
      "totalBytesSecMax",
      "readBytesSecMax",
      "writeBytesSecMax",
      "totalIopsSecMax",
      "readIopsSecMax",
      "writeIopsSecMax",
      "sizeIopsSec",
    ] as const
  ).map((name, i): Case => ({
    field: `configuredIops.${name}`,
    value: [NaN, -Infinity, Infinity, -1][i % 4]!,
    entity: "machine 5 disk 0 (id 11)",
    set: (a, v) => (diskOf(a, 0).configuredIops![name] = v),
  })),
  {
    field: "tx",
    value: -Infinity,
    entity: "machine 5 NIC 0 (id 0, external)",
    set: (a, v) => (nicOf(vmOf(a), 0).tx = v),
    skipBad: { NU: 2.5 }, // hour 2: 0.5 + 0.25
    stats: { entity: "machine", id: 5, include: "network", at: (s) => s.network["0"].out[1], clean: TB / 1024 / 3600 },
  },
  {
    field: "rx",
    value: NaN,
    entity: "machine 5 NIC 0 (id 0, external)",
    set: (a, v) => (nicOf(vmOf(a), 0).rx = v),
    skipBad: { NU: 3.0 }, // hour 2: 1 + 0.25
    stats: {
      entity: "account",
      id: 2,
      include: "network",
      at: (s) => s.network.in[1],
      clean: (TB / 2 + 1024) / 1024 / 1024 / 3600,
    },
  },
  {
    field: "tx",
    value: -1,
    entity: "gateway 0 NIC 0 (id 0, external)",
    set: (a, v) => (nicOf(gatewayOf(a), 0).tx = v),
    skipBad: { NU: 3.25 }, // hour 2: 1.5
    stats: {
      entity: "cloudspace",
      id: 3,
      include: "network",
      at: (s) => s.network.gateways.out[1],
      clean: TB / 4 / 1024 / 1024,
    },
  },
  {
    // not external: no NU, billing does not use it
    field: "rx",
    value: NaN,
    entity: "machine 5 NIC 1 (id 0, space)",
    set: (a, v) => (nicOf(vmOf(a), 1).rx = v),
    stats: { entity: "machine", id: 5, include: "network", at: (s) => s.network["1"].in[1], clean: 1024 / 1024 / 3600 },
  },
];

let root: string;
/** The clean tree: both hours as `account()`. */
let clean: string;

/** Writes the two hours of `a` clean and `bad` under a fresh tree; returns it and the bad file. */
async function tree(name: string, bad: Account): Promise<{ dir: string; badFile: string }> {
  const dir = join(root, name);
  const files = [
    [T0, account()],
    [T1, bad],
  ] as const;
  for (const [hour, content] of files) {
    const file = join(dir, hourPath(2, hour), "account_capnp.bin");
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, encodeAccount(content));
  }
  return { dir, badFile: join(dir, hourPath(2, T1), "account_capnp.bin") };
}

const consumption = (stdout: string) => JSON.parse(stdout).account.consumption as Record<string, number>;

function expectClose(actual: Record<string, number>, expected: Record<string, number>): void {
  for (const [unit, value] of Object.entries(expected)) expect(actual[unit], unit).toBeCloseTo(value, 9);
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "cloudunits-impossible-"));
  ({ dir: clean } = await tree("clean", account()));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("impossible values (docs/warehouse.md), one field at a time", () => {
  beforeAll(async () => {
    // the baseline of the cases: the clean data bills the hand-computed figures
    const run = await cli("billing", clean, ...PERIOD, "--account-id", "2", "--all-units");
    expect(run.code).toBe(0);
    expectClose(consumption(run.stdout), CLEAN);
  });

  it.each(CASES.map((c, i) => [`${c.field} = ${c.value} (${c.entity})`, i] as const))("%s", async (_, index) => {
    const c = CASES[index]!;
    const bad = account();
    c.set(bad, c.value);
    const { dir, badFile } = await tree(`case-${index}`, bad);
    const line = `${badFile}: account 2, hour 2026-10-01T01:00:00Z, cloud space 3, ${c.entity}: ${c.field} = ${String(c.value)}`;

    const billing = await cli("billing", dir, ...PERIOD, "--account-id", "2", "--all-units");
    const skipping = await cli("billing", dir, ...PERIOD, "--account-id", "2", "--all-units", "--skip-bad");
    expect(skipping.code).toBe(0);
    if (c.skipBad !== undefined) {
      // billed: exit 3 naming the file, the entity and the field; --skip-bad counts it as 0 and lists it
      expect(billing.code).toBe(3);
      expect(billing.stderr).toContain(line);
      expect(billing.stdout).toBe("");
      expectClose(consumption(skipping.stdout), { ...CLEAN, ...c.skipBad });
      expect(skipping.stderr).toContain(`impossible value counted as 0: ${line}`);
    } else {
      // a field billing does not use: billed as usual
      expect(billing.code).toBe(0);
      expectClose(consumption(billing.stdout), CLEAN);
      expect(skipping.stdout).toBe(billing.stdout);
    }

    const check = await cli("check", dir);
    expect(check.code).toBe(3);
    expect(check.stdout).toContain(`  ${line}\n`);

    if (c.stats !== undefined) {
      const { entity, id, include, at, clean: cleanValue } = c.stats;
      const stats = await cli(
        "stats",
        entity,
        dir,
        "--id",
        String(id),
        "--from",
        "2026-10-01",
        "--till",
        "2026-10-01T02:00Z",
        "--include",
        include,
      );
      expect(stats.code).toBe(0);
      const series = JSON.parse(stats.stdout).series;
      expect(stats.stdout).not.toMatch(/NaN|Infinity/);
      expect(at(series)).toBeNull();
      expect(stats.stderr).toContain(`warning: impossible value, null in the series: ${line}`);
      const cleanStats = await cli(
        "stats",
        entity,
        clean,
        "--id",
        String(id),
        "--from",
        "2026-10-01",
        "--till",
        "2026-10-01T02:00Z",
        "--include",
        include,
      );
      expect(cleanStats.stderr).toBe("");
      expect(at(JSON.parse(cleanStats.stdout).series)).toBeCloseTo(cleanValue as number, 9);
    }
  });
});

describe("impossible values in every output", () => {
  let dir: string;
  let prices: string;
  /** vcpus −128, mem NaN, a NaN total IOPS limit and a −Infinity tx in hour 2. */
  const bad = account();
  vmOf(bad).vcpus = -128;
  vmOf(bad).mem = NaN;
  diskOf(bad, 0).configuredIops!.totalIopsSec = NaN;
  nicOf(vmOf(bad), 0).tx = -Infinity;
  // hour 2: CU max(0, 0) = 0, VCU 0, MU 0, TU 1.2, NU 0.75
  const skipped = { CU: 4, SU: 1.5, TU: 4.2, NU: 2.5, VCU: 4, MU: 16 };

  beforeAll(async () => {
    ({ dir } = await tree("outputs", bad));
    prices = join(root, "prices.json");
    await writeFile(
      prices,
      JSON.stringify({ currency: "EUR", prices: { CU: 0.05, SU: 10, TU: 0.1, NU: 5, VCU: 0.01, MU: 0.002 } }),
    );
  });

  it("priced CSV and FOCUS CSV never crash and never carry NaN, and the warnings JSON lists every value", async () => {
    const warnings = join(root, "warnings.json");
    const csv = await cli(
      "billing",
      dir,
      ...PERIOD,
      "--format",
      "csv",
      "--prices",
      prices,
      "--all-units",
      "--skip-bad",
      "--warnings-json",
      warnings,
    );
    expect(csv.stderr).not.toContain("RangeError");
    expect(csv.code).toBe(0);
    expect(csv.stdout).not.toMatch(/NaN|Infinity/);
    // the account row: CU 4 CU-hours at 0.05 = 0.20 EUR
    const account = csv.stdout.split("\n").find((l) => l.startsWith("account,2,"))!;
    expect(account).toContain(",4,1.5,4.2,2.5,");
    const listed = JSON.parse(await readFile(warnings, "utf8")).warnings.filter(
      (w: { code: string }) => w.code === "IMPOSSIBLE_VALUE",
    );
    expect(
      listed.map((w: { details: { field: string; value: string } }) => `${w.details.field}=${w.details.value}`).sort(),
    ).toEqual(["configuredIops.totalIopsSec=NaN", "mem=NaN", "tx=-Infinity", "vcpus=-128"]);
    const focus = await cli("billing", dir, ...PERIOD, "--format", "focus-csv", "--prices", prices, "--skip-bad");
    expect(focus.code).toBe(0);
    expect(focus.stdout).not.toMatch(/NaN|Infinity/);
    expect(focus.stdout.split("\n").length).toBeGreaterThan(2);
  });

  it.each([
    ["priced", true],
    ["unpriced", false],
  ] as const)("the %s XLSX has finite numbers only and lists the values in About", async (_, priced) => {
    const out = join(root, `${_}.xlsx`);
    const run = await cli(
      "billing",
      dir,
      ...PERIOD,
      "--format",
      "xlsx",
      "--out",
      out,
      "--skip-bad",
      ...(priced ? ["--prices", prices] : []),
    );
    expect(run.stderr).not.toContain("RangeError");
    expect(run.code).toBe(0);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(out);
    let numbers = 0;
    workbook.eachSheet((sheet) =>
      sheet.eachRow((row) =>
        row.eachCell((cell) => {
          if (sheet.name !== "About") expect(String(cell.text)).not.toMatch(/NaN|Infinity/); // About lists the values as found
          if (typeof cell.value === "number") {
            numbers++;
            expect(Number.isFinite(cell.value), `${sheet.name}!${cell.address}`).toBe(true);
          }
        }),
      ),
    );
    expect(numbers).toBeGreaterThan(0);
    const about: string[] = [];
    workbook.getWorksheet("About")!.eachRow((row) => about.push(row.values!.toString()));
    expect(about.join("\n")).toContain("vcpus = -128");
    expect(about.join("\n")).toContain("configuredIops.totalIopsSec = NaN");
  });

  it("ingest keeps them: --db billing exits 3 the same, --skip-bad gives the same figures, check --db lists them", async () => {
    const db = join(root, "w.duckdb");
    const ingest = await cli("ingest", dir, "--db", db);
    expect(ingest.code).toBe(0);
    const fromDb = await cli("billing", "--db", db, ...PERIOD, "--account-id", "2", "--all-units");
    const fromFiles = await cli("billing", dir, ...PERIOD, "--account-id", "2", "--all-units");
    expect(fromDb.code).toBe(3);
    expect(fromDb.stderr).toBe(fromFiles.stderr);
    expect(fromDb.stderr).toContain("machine 5: vcpus = -128");
    const skippedDb = await cli("billing", "--db", db, ...PERIOD, "--account-id", "2", "--all-units", "--skip-bad");
    expect(skippedDb.code).toBe(0);
    expectClose(consumption(skippedDb.stdout), skipped);
    const check = await cli("check", "--db", db);
    expect(check.code).toBe(3);
    expect(check.stdout).toContain("machine 5 NIC 0 (id 0, external): tx = -Infinity");
    // the environment (no account id) is refused too; a period without them bills as usual
    expect((await cli("billing", "--db", db, ...PERIOD)).code).toBe(3);
    const clean = await cli(
      "billing",
      "--db",
      db,
      "--start",
      "2026-10-01T00:00Z",
      "--end",
      "2026-10-01T01:00Z",
      "--account-id",
      "2",
    );
    expect(clean.code).toBe(0);
    expectClose(consumption(clean.stdout), { CU: 4, SU: 0.75, TU: 3, NU: 1.75 });
  });

  it("the library's calculate and a bill of the files both throw ImpossibleValuesError naming them, and count them as 0 with skipBad", async () => {
    const period = { start: T0, end: T1 + 3600, accountId: 2 };
    const expectRefused = (error: unknown) => {
      expect(error).toBeInstanceOf(ImpossibleValuesError);
      expect((error as ImpossibleValuesError).code).toBe("IMPOSSIBLE_VALUE");
      expect((error as ImpossibleValuesError).values.map((v) => `${v.field}=${v.value}`).sort()).toEqual([
        "configuredIops.totalIopsSec=NaN",
        "mem=NaN",
        "tx=-Infinity",
        "vcpus=-128",
      ]);
    };
    const store = await open([dir]);
    try {
      expectRefused(await store.calculate(period).catch((e: unknown) => e));
    } finally {
      store.close();
    }
    expectRefused(await bill({ source: [dir], period }).catch((e: unknown) => e));
    const skipping = await open([dir], { skipBad: true });
    try {
      const { account } = await skipping.calculate(period, { allUnits: true });
      expectClose(account.consumption as Record<string, number>, skipped);
    } finally {
      skipping.close();
    }
    const { report: streamed } = await bill({ source: [dir], period, skipBad: true, rules: { allUnits: true } });
    const line = streamed.lines.find((l) => l.level === "account")!;
    expectClose(
      Object.fromEntries(
        Object.keys(skipped).map((u) => [u, line.quantities[u as keyof typeof line.quantities]]),
      ) as Record<string, number>,
      skipped,
    );
    expect(streamed.quality.impossibleValues).toHaveLength(4);
  });
});
