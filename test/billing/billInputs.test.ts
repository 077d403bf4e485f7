import { copyFile, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DecodedAccountHour } from "../../src/capnp/records.js";
import {
  BadInputError,
  bill,
  DEFAULT_UNITS,
  encodeAccount,
  hourPath,
  openWarehouse,
  parsePrices,
  writeDataset,
  UsageError,
  type Bill,
  type BillingLine,
  type BillingOptions,
  type BillRequest,
  type Period,
  type PriceList,
  type Warehouse,
} from "../../src/internal.js";
import { factsReadable } from "../../src/billing/warehouseFacts.js";
import { openDatabaseFile } from "../../src/store/openDatabaseFile.js";
import { accountHour, agedWarehouse, disk, gateway, HOUR, nic, OCT_1, vm } from "../helpers/warehouse.js";

// Every road of `bill` gives the same bill, to the bit: files as they stream (in this thread or
// on two), the warehouse loaded from them (its grouped facts, its stored facts), its rows without
// facts, a file of the older schema as found and once upgraded: lines, parts and data quality.

const HOURS = 30;
const SHAPE = { accounts: 2, spaces: 2, machines: 5, hours: HOURS, start: OCT_1, seed: 3 };

/** Hand-made hours with every odd record billing must treat alike on both paths. */
function oddHours(): DecodedAccountHour[] {
  const hours: DecodedAccountHour[] = [];
  for (let h = 0; h < 4; h++) {
    const t = OCT_1 + h * HOUR;
    hours.push(
      accountHour(
        7,
        t,
        {
          11: [
            gateway([nic("external", 1e9 + h, 2e9), nic("space", 5, 5)]),
            vm(1, {
              mem: 6144,
              vcpus: 3,
              imageName: "Windows Server 2022",
              disks: [disk(1, 100, { total: 500 }), disk(2, 50, null)],
              networks: [nic("external", 7e8, 3e8)],
            }),
            vm(2, { mem: 2048, vcpus: 1, status: "HALTED", disks: [disk(3, 20, { read: 100, write: 60 })] }),
            // two records of one machine id in a cloud space (a damaged or odd file): both keyed alike
            vm(3, { mem: 1024, disks: [disk(4, 10, { total: 200 })], networks: [nic("external", 1, 2)] }),
            vm(3, { mem: 4096, vcpus: 4, disks: [disk(5, 30, { total: 300 })] }),
            // a type that is not billed, and an empty record
            { ...vm(4, { disks: [disk(6, 40, { total: 100 })], networks: [nic("external", 10, 10)] }), type: "lxc" },
            { ...vm(0), type: "", imageName: "", status: "", mem: 0, vcpus: 0 },
          ],
          12: [
            gateway([nic("external", 4e6, 0)]),
            vm(5, {
              mem: h === 2 ? Number.NaN : 8192,
              vcpus: 2,
              networks: [nic("external", 9e6, Number.POSITIVE_INFINITY)],
            }),
          ],
          13: [gateway([nic("external", 5e6, 5e6)]), vm(6, { mem: 512, vcpus: 1 })],
        },
        { 12: "DISABLED" },
      ),
    );
    if (h !== 1)
      hours.push(
        accountHour(8, t, { 21: [gateway([]), vm(9, { mem: 3000, vcpus: 1, disks: [disk(7, 1, { total: 1 })] })] }),
      );
  }
  return hours;
}

/**
 * Hours whose amounts do not add up exactly in doubles: the same configurations for many hours
 * (n × an amount like 333/400 is rarely a double), configurations that change mid-period
 * (memory, status, image, disks), and totals carried through cloud spaces and accounts (the
 * accounts of PERIODS, 7 and 1, so their lines are compared too). The environment's TU over the
 * 30 hours is 119.385 (the exact Σ of its VM-hours' iops/400, rounded once); adding
 * each configuration's n × iops/400 rounded (9 × 302/400, 21 × 302/400, ...), instead of exactly, gives 119.38499999999999.
 */
function exactSumHours(): DecodedAccountHour[] {
  const hours: DecodedAccountHour[] = [];
  for (let h = 0; h < HOURS; h++) {
    const t = OCT_1 + h * HOUR;
    hours.push(
      accountHour(
        7,
        t,
        {
          31: [
            gateway([nic("external", 3e9 + 7 * h, 1)]),
            vm(1, {
              mem: 3000,
              vcpus: 3,
              imageName: h < 9 ? "Windows Server" : "ubuntu",
              disks: [disk(1, 7, { total: 301 }), disk(2, 0.1, { total: 1 })],
            }),
            vm(2, {
              mem: h < 14 ? 1536 : 2560,
              vcpus: 1,
              status: h < 17 ? "RUNNING" : "HALTED",
              disks: [disk(3, 3, { read: 1001, write: 0 })],
            }),
            vm(3, {
              mem: 1000,
              vcpus: 1,
              disks: [disk(4, 11, { total: h < 6 ? 7 : 13 })],
              networks: [nic("external", 12_345 * h, 1)],
            }),
          ],
          32: [
            vm(4, {
              mem: 700,
              vcpus: 5,
              imageName: "windows 11",
              disks: [disk(5, 1, { total: 123 }), disk(6, 1, { total: 77 })],
            }),
          ],
        },
        { 32: h < 11 ? "DEPLOYED" : "HALTED" },
      ),
    );
    hours.push(
      accountHour(1, t, {
        41: [gateway([nic("external", 1, 1)]), vm(5, { mem: 333, vcpus: 1, disks: [disk(7, 0.3, { total: 77 })] })],
      }),
    );
  }
  return hours;
}

let root: string;
const datasets = new Map<string, string>();

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "cloudunits-billinputs-"));
  const generated: [string, Parameters<typeof writeDataset>[0]][] = [
    ["plain tree", { out: join(root, "plain") }],
    ["older schema", { out: join(root, "old"), oldSchema: true }],
    ["per-cloud-space files", { out: join(root, "cs"), cloudSpaceFiles: true }],
    ["missing hours", { out: join(root, "missing"), missingHours: 0.2 }],
    [
      "packed zip, gateway rx in tx, many segments",
      { out: join(root, "packed.zip"), packed: true, gatewayRxInTx: true, segmentWords: 64 },
    ],
  ];
  for (const [name, options] of generated) {
    await writeDataset({ ...SHAPE, ...options });
    datasets.set(name, options.out);
  }
  for (const [name, hours] of [
    ["odd records", oddHours()],
    ["exact sums, changing configurations", exactSumHours()],
  ] as const) {
    const tree = join(root, name.replace(/\W+/g, "-"));
    for (const hour of hours) {
      const dir = join(tree, hourPath(hour.accountId, hour.hourEpoch));
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, "account_capnp.bin"), encodeAccount(hour.account));
    }
    datasets.set(name, tree);
  }
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Prices that change at 07:00 and 12:00: each part is billed apart too. */
const CUT_PRICES = parsePrices({
  currency: "EUR",
  prices: { CU: [0.01, { from: "2026-10-01T07:00Z", price: 0.02 }, { from: "2026-10-01T12:00Z", price: 0.03 }] },
});
const RULES: [string, BillingOptions, PriceList?][] = [
  ["aggregate", {}],
  ["--cu-rollup sum", { cuRollup: "sum" }],
  ["--all-units --per month", { allUnits: true, per: "month" }],
  ["cut where prices change", {}, CUT_PRICES],
  [
    "billable statuses and constants that are not powers of two",
    { units: { ...DEFAULT_UNITS, billableStatuses: ["RUNNING"], gbPerCu: 3, iopsPerTu: 300, bytesPerNu: 1e12 } },
  ],
];
/** The whole data, and one account from an unaligned start to mid-period. */
const PERIODS: [string, Period][] = [
  ["environment", { start: OCT_1, end: OCT_1 + HOURS * HOUR }],
  ["account 7 from 00:30", { start: OCT_1 + 1800, end: OCT_1 + 20 * HOUR, accountId: 7 }],
  ["account 1 from 05:30", { start: OCT_1 + 5 * HOUR + 1800, end: OCT_1 + 20 * HOUR, accountId: 1 }],
];

/** The turn of the pair (data set `name`, `rule`) in the matrix's rotations below. */
const turn = (name: string, rule: string): number => DATASETS.indexOf(name) + RULES.findIndex(([r]) => r === rule);

/**
 * Whether the matrix also bills data set `name` under `rule` on two worker threads. Each
 * threaded bill starts its workers anew (about a second of CPU here, where they load the
 * sources), so the threaded check runs on every third pair, in a rotation that gives every data
 * set one rule or two and every rule two or three data sets (the exact-sums set: aggregate and
 * price cuts, where merging the threads' parts is hardest).
 */
function threadedHere(name: string, rule: string): boolean {
  return turn(name, rule) % 3 === 0;
}

/**
 * Whether the matrix bills data set `name` under `rule` also from the other road `k` (the rows
 * without facts, the older schema's file, that file upgraded). What a road changes is how the
 * facts are read, which no rule changes; so each pair takes one road, in a rotation that gives
 * every data set every road (five rules, three roads).
 */
function roadHere(name: string, rule: string, k: number): boolean {
  return (turn(name, rule) + k) % 3 === 0;
}

const DATASETS = [
  "plain tree",
  "older schema",
  "per-cloud-space files",
  "missing hours",
  "packed zip, gateway rx in tx, many segments",
  "odd records",
  "exact sums, changing configurations",
];

describe("billing files as they stream equals billing their warehouse, to the bit", () => {
  it("bills every data set, and every rule of the default units, on two threads somewhere in the matrix", () => {
    const threaded = RULES.filter(([, options]) => options.units === undefined).map(([rule]) => rule);
    for (const name of DATASETS)
      expect(
        threaded.some((rule) => threadedHere(name, rule)),
        name,
      ).toBe(true);
    for (const rule of threaded)
      expect(DATASETS.filter((name) => threadedHere(name, rule)).length, rule).toBeGreaterThanOrEqual(2);
    expect(
      threadedHere("exact sums, changing configurations", "aggregate") &&
        threadedHere("exact sums, changing configurations", "cut where prices change"),
    ).toBe(true);
  });

  it("bills every data set from each of the other three roads under some rule, and each pair from one", () => {
    for (const name of DATASETS) {
      for (const k of [0, 1, 2])
        expect(
          RULES.some(([rule]) => roadHere(name, rule, k)),
          `${name}, road ${k}`,
        ).toBe(true);
      for (const [rule] of RULES) expect([0, 1, 2].filter((k) => roadHere(name, rule, k))).toHaveLength(1);
    }
  });

  describe.each(DATASETS)("%s", (name) => {
    let warehouse: Warehouse;
    /** The other roads to the same figures: the disk and NIC rows (no facts loaded), and a file of the older schema, as found and once upgraded. */
    const others: [string, Warehouse][] = [];
    beforeAll(async () => {
      warehouse = await openWarehouse([datasets.get(name)!], { workers: 0, skipBad: true });
      expect(await factsReadable(warehouse.connection, "external")).toBe(true);
      const rows = await openWarehouse([datasets.get(name)!], {
        workers: 0,
        skipBad: true,
        tables: ["account_hours", "cloudspaces", "machines", "gateways", "disks", "nics"],
      });
      expect(await factsReadable(rows.connection, "external")).toBe(false);
      const file = (kind: string) => join(root, `${name.replace(/\W+/g, "-")}-${kind}.duckdb`);
      await agedWarehouse([datasets.get(name)!], file("old"));
      await copyFile(file("old"), file("upgraded"));
      const old = await openWarehouse({ db: file("old") });
      expect(await factsReadable(old.connection, "external")).toBe(false);
      const opened = await openDatabaseFile(file("upgraded")); // opened to write: upgraded
      opened.connection.closeSync();
      opened.instance.closeSync();
      const upgraded = await openWarehouse({ db: file("upgraded") });
      expect(await factsReadable(upgraded.connection, "external")).toBe(true);
      others.push(["rows", rows], ["older schema file", old], ["upgraded file", upgraded]);
    }, 120_000);
    afterAll(() => {
      warehouse.close();
      for (const [, w] of others) w.close();
    });

    it.each(RULES)("%s", async (rule, rules, prices) => {
      let compared = 0;
      const files = [datasets.get(name)!];
      for (const [period, params] of PERIODS) {
        const ask = (source: BillRequest["source"], more: Partial<BillRequest> = {}): Promise<Bill> =>
          bill({ source, period: params, rules, prices, skipBad: true, reading: { workers: 0 }, ...more });
        const fromDb = await ask({ connection: warehouse.connection }).catch((error: unknown) => error as UsageError);
        if (fromDb instanceof UsageError) {
          // an account of none of the data set's files: both roads refuse it alike (UNKNOWN_ID), neither bills 0
          expect(fromDb.code).toBe("UNKNOWN_ID");
          await expect(ask(files)).rejects.toMatchObject({ code: "UNKNOWN_ID" });
          continue;
        }
        const { report: db } = fromDb;
        const inline = await ask(files);
        expect(inline.road).toEqual({ source: "files" });
        expect(inline.report.lines).toEqual(db.lines);
        expect(inline.report.parts).toEqual(db.parts);
        for (const [road, other] of others.filter((_, k) => roadHere(name, rule, k))) {
          const billed = await ask({ connection: other.connection });
          if (road !== "upgraded file") expect(billed.road.warehouse, road).toBe("rows");
          expect(billed.report.lines, road).toEqual(db.lines);
          expect(billed.report.parts, road).toEqual(db.parts);
          expect(billed.report.quality, road).toEqual(db.quality);
        }
        expect(inline.report.parts?.length).toBe(prices ? 3 : undefined);
        // the period's lines are the parts' exact sums: the same as billed whole, to the bit
        if (prices)
          expect(db.lines).toEqual(
            (await ask({ connection: warehouse.connection }, { prices: undefined })).report.lines,
          );
        if (period === "environment") {
          // the environment alone (what --format json shows): the same line, without the other levels' work ...
          const alone = await ask(files, { produce: { levels: ["environment"] } });
          // (but its allocated CU: with the accounts billed, it is the Σ of theirs; alone, its own CU)
          const ownFigures = ({ cuAllocated: _a, cuAllocatedHours: _h, ...figures }: BillingLine) => figures;
          expect(alone.report.lines.map(ownFigures)).toEqual(
            db.lines.filter((l) => l.level === "environment").map(ownFigures),
          );
          // ... read grouped from the stored facts (docs/warehouse.md), not row by row: every data set here answers exactly
          const grouped = await ask({ connection: warehouse.connection }, { produce: { levels: ["environment"] } });
          expect(grouped.road).toEqual({ source: "warehouse", warehouse: "grouped environment" });
          expect(grouped.report.lines).toEqual(alone.report.lines);
          if (name === "exact sums, changing configurations" && rules.units === undefined && !prices)
            expect(alone.report.lines[0]!.unitHours.TU).toBe(119.385);
        }
        // one account's levels are read from the classes of its identical account-hours, weighted, every level of every account too, with
        // the environment grouped (where NU is bytes scaled by a power of two)
        const nuScaledByPowerOfTwo = (rules.units?.bytesPerNu ?? 2 ** 40) === 2 ** 40;
        expect(fromDb.road.warehouse).toBe(
          !nuScaledByPowerOfTwo
            ? "stored facts"
            : params.accountId !== undefined
              ? "grouped account"
              : "grouped levels",
        );
        // the environment and the accounts alone (the dashboard's overview), from the account-hours' totals and the accounts' VM configurations
        const levels = params.accountId === undefined ? (["environment", "account"] as const) : (["account"] as const);
        const accounts = await ask({ connection: warehouse.connection }, { produce: { levels } });
        expect(accounts.road).toEqual({ source: "warehouse", warehouse: "grouped accounts" });
        const ofLevels = (lines: readonly BillingLine[]) =>
          lines.filter((l) => (levels as readonly string[]).includes(l.level));
        expect(accounts.report.lines).toEqual(ofLevels(db.lines));
        expect(accounts.report.parts).toEqual(db.parts?.map((part) => ({ ...part, lines: ofLevels(part.lines) })));
        if (period === "environment" && rules.units === undefined && threadedHere(name, rule)) {
          // two threads, each billing part of the hours, merge into the same figures (the environment's CU from merged totals)
          const threaded = await ask(files, { reading: { workers: 2 } });
          expect(threaded.report.lines).toEqual(db.lines);
          expect(threaded.report.parts).toEqual(db.parts);
          expect(threaded.report.quality).toEqual(inline.report.quality);
        }
        const { skipped: _s, duplicates: _d, ...quality } = db.quality;
        expect(inline.report.quality).toMatchObject(quality);
        compared += db.lines.length;
      }
      // the data is there: the periods have lines, the account periods a machine each at least
      expect(compared).toBeGreaterThan(PERIODS.length * 3);
    });
  });

  it("the odd records are what they claim: impossible values counted, an unbilled type, empty records, missing hours", async () => {
    const period = { start: OCT_1, end: OCT_1 + 4 * HOUR };
    const { report: billed } = await bill({
      source: [datasets.get("odd records")!],
      period,
      skipBad: true,
      produce: { fingerprints: true },
    });
    expect(billed.quality.impossibleValues.map((v) => `${v.machineId} ${v.field} ${v.value}`)).toEqual([
      "5 rx Infinity",
      "5 rx Infinity",
      "5 mem NaN",
      "5 rx Infinity",
      "5 rx Infinity",
    ]);
    expect(billed.quality.unbilledMachineTypes).toEqual([
      { type: "", machineHours: 4 },
      { type: "lxc", machineHours: 4 },
    ]);
    expect(billed.quality.emptyRecords).toEqual({ machineHours: 4, cloudSpaceHours: 0 });
    expect(billed.quality.missingHours).toEqual([
      { accountId: 8, hours: 1, runs: [{ startHour: OCT_1 + HOUR, endHour: OCT_1 + HOUR, hours: 1 }] },
    ]);
    // the fingerprint is the warehouse's: the same 7 files
    const warehouse = await openWarehouse([datasets.get("odd records")!]);
    try {
      expect(billed.data).toEqual(
        (await bill({ source: warehouse, period, skipBad: true, produce: { fingerprints: true } })).report.data,
      );
      expect(billed.data?.files).toBe(7);
    } finally {
      warehouse.close();
    }
  });

  it("reads only the files of the period and account: a bad file elsewhere is neither read nor named", async () => {
    const dir = join(root, "bad-elsewhere");
    await writeDataset({ ...SHAPE, hours: 3, out: dir });
    const badDir = join(dir, hourPath(2, OCT_1 + 2 * HOUR));
    await writeFile(join(badDir, "account_capnp.bin"), new Uint8Array([1, 2, 3]));
    const account1 = await bill({ source: [dir], period: { start: OCT_1, end: OCT_1 + 3 * HOUR, accountId: 1 } });
    expect(account1.report.load?.filesLoaded).toBe(3);
    const earlier = await bill({ source: [dir], period: { start: OCT_1, end: OCT_1 + 2 * HOUR } });
    expect(earlier.report.load?.filesLoaded).toBe(4);
    const all = bill({ source: [dir], period: { start: OCT_1, end: OCT_1 + 3 * HOUR } });
    await expect(all).rejects.toBeInstanceOf(BadInputError);
    await expect(all).rejects.toThrow(/2\/2026\/10\/1\/2\/account_capnp\.bin/);
    const { report: skipped } = await bill({
      source: [dir],
      period: { start: OCT_1, end: OCT_1 + 3 * HOUR },
      skipBad: true,
    });
    expect(skipped.quality.skipped.map((s) => s.code)).toEqual(["CAPNP_TRUNCATED"]);
    expect(skipped.quality.missingHours).toEqual([
      { accountId: 2, hours: 1, runs: [{ startHour: OCT_1 + 2 * HOUR, endHour: OCT_1 + 2 * HOUR, hours: 1 }] },
    ]);
  });
});
