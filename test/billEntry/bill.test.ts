import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bill,
  openWarehouse,
  parsePrices,
  writeDataset,
  type Bill,
  type BillRequest,
  type Warehouse,
} from "../../src/internal.js";
import { HOUR, OCT_1 } from "../helpers/warehouse.js";

// `bill` is the one billing call: it takes a source, a period, prices, rules and what to produce,
// and decides the cuts and the road itself. Whatever the road, the bill is the same.

const DAY = 24 * HOUR;
const PERIOD = { start: OCT_1, end: OCT_1 + 3 * DAY };
/** CU's price changes on 10-02 at 06:00 for every account, SU's for account 2 alone on 10-03. */
const PRICES = parsePrices({
  currency: "EUR",
  prices: { CU: [0.05, { from: "2026-10-02T06:00Z", price: 0.07 }], SU: { perMonth: 40 } },
  accounts: { "2": { SU: [{ perMonth: 40 }, { from: "2026-10-03", perMonth: 30 }] } },
});

let dir: string;
let data: string;
let warehouse: Warehouse;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "cloudunits-bill-"));
  data = join(dir, "data");
  await writeDataset({ out: data, accounts: 2, spaces: 2, machines: 3, hours: 72, start: OCT_1, seed: 5 });
  warehouse = await openWarehouse([data]);
}, 60_000);
afterAll(async () => {
  warehouse?.close();
  await rm(dir, { recursive: true, force: true });
});

/** The bill of `request` from the files, the files with their hourly lines (read again by hour) and the warehouse, each released. */
async function everyRoad(request: Omit<BillRequest, "source">): Promise<Bill[]> {
  const bills: Bill[] = [];
  for (const [source, hourly] of [
    [[data], false],
    [[data], true],
    [warehouse, false],
  ] as const) {
    const billed = await bill({ ...request, source, produce: { ...request.produce, hourly } });
    billed.close();
    bills.push(billed);
  }
  expect(bills.map((b) => b.road.source)).toEqual(["files", "files read again by hour", "warehouse"]);
  return bills;
}

describe("bill", () => {
  it("cuts the period where a price changes by itself: an invoice line per unit and price period, the same from every road", async () => {
    for (const period of [PERIOD, { ...PERIOD, accountId: 2 }]) {
      const bills = await everyRoad({ period, prices: PRICES });
      const [files, ...others] = bills.map((b) => JSON.stringify(b.report.invoices));
      for (const other of others) expect(other).toBe(files);
      const two = bills[0]!.report.invoices!.find((i) => i.accountId === 2)!;
      expect(two.lines.map((l) => `${l.unit} ${new Date(l.start * 1000).toISOString()} ${l.unitPrice}`)).toEqual([
        "CU 2026-10-01T00:00:00.000Z 0.05",
        "CU 2026-10-02T06:00:00.000Z 0.07",
        "SU 2026-10-01T00:00:00.000Z 40",
        "SU 2026-10-03T00:00:00.000Z 30",
      ]);
      // the quantities of the price periods add up to the period's, and the report says which period it is
      expect(two.lines[0]!.quantity + two.lines[1]!.quantity).toBeCloseTo(
        bills[0]!.report.lines.find((l) => l.level === "account" && l.accountId === 2)!.quantities.CU,
        9,
      );
      expect(bills[0]!.report.params).toEqual(period);
      expect(two.start).toBe(PERIOD.start);
    }
  });

  it("gives each UTC day's lines, adding up to the period's, and the same report with prices that change as without the days", async () => {
    const byDay = await bill({
      source: warehouse,
      period: PERIOD,
      prices: PRICES,
      produce: { levels: ["environment", "account"], days: true },
    });
    const whole = await bill({
      source: warehouse,
      period: PERIOD,
      prices: PRICES,
      produce: { levels: ["environment", "account"] },
    });
    expect(byDay.days!.map((d) => d.start)).toEqual([OCT_1, OCT_1 + DAY, OCT_1 + 2 * DAY]);
    const cu = (lines: { level: string; quantities: { CU: number } }[]) =>
      lines.find((l) => l.level === "environment")!.quantities.CU;
    expect(byDay.days!.reduce((sum, d) => sum + cu(d.lines), 0)).toBeCloseTo(cu(whole.report.lines), 9);
    expect(JSON.stringify(byDay.report.invoices)).toBe(JSON.stringify(whole.report.invoices));
    expect(byDay.report.lines).toEqual(whole.report.lines);
    // a period of one day is its own single day
    const oneDay = await bill({
      source: warehouse,
      period: { start: OCT_1, end: OCT_1 + DAY },
      produce: { days: true },
    });
    expect(oneDay.days!.map((d) => d.start)).toEqual([OCT_1]);
    expect(oneDay.days![0]!.lines.map((l) => l.quantities)).toEqual(
      oneDay.report.lines.filter((l) => l.level !== "gateway").map((l) => l.quantities),
    );
    // an account's two weeks by day (14 cuts) are read from the stored facts, not from classes of its account-hours (as many as its hours cut so), with the same lines
    const twoWeeks = { start: OCT_1, end: OCT_1 + 14 * DAY, accountId: 1 };
    const account = await bill({ source: warehouse, period: twoWeeks, produce: { days: true } });
    const accountWhole = await bill({ source: warehouse, period: twoWeeks });
    expect([account.road.warehouse, accountWhole.road.warehouse]).toEqual(["stored facts", "grouped account"]);
    expect(account.report.lines).toEqual(accountWhole.report.lines);
  });

  it("gives the days' lines of `dayLevels` alone: those of the days of every level, the report unchanged (warehouse or files, with prices or not, one day)", async () => {
    const cases = [
      { source: warehouse, period: { ...PERIOD, accountId: 1 }, prices: undefined, dayLevels: ["account"] as const },
      { source: warehouse, period: { ...PERIOD, accountId: 1 }, prices: PRICES, dayLevels: ["account"] as const },
      { source: [data], period: PERIOD, prices: PRICES, dayLevels: ["environment"] as const },
      {
        source: warehouse,
        period: { start: OCT_1, end: OCT_1 + DAY, accountId: 2 },
        prices: undefined,
        dayLevels: ["account"] as const,
      },
    ];
    for (const { source, period, prices, dayLevels } of cases) {
      const every = await bill({ source, period, prices, produce: { days: true } });
      const some = await bill({ source, period, prices, produce: { days: true, dayLevels } });
      const expected = every.days!.map((d) => ({
        start: d.start,
        lines: d.lines.filter((l) => l.level === dayLevels[0]),
      }));
      expect(some.days).toEqual(expected);
      expect(expected.every((d) => d.lines.length === 1)).toBe(true); // one line a day: the account's, or the environment's
      expect(some.report.lines).toEqual(every.report.lines);
      expect(JSON.stringify(some.report.invoices)).toBe(JSON.stringify(every.report.invoices));
    }
  });

  it("reads the hourly lines of files again by hour, the warehouse's lines and counts, nothing loaded into a database", async () => {
    const period = { ...PERIOD, accountId: 1 };
    const billed = await bill({ source: [data], period, produce: { hourly: true } });
    const fromWarehouse = await bill({ source: warehouse, period, produce: { hourly: true } });
    expect(billed.road).toEqual({ source: "files read again by hour" });
    for (const levels of [["account"], ["account", "cloudspace", "machine"]] as const) {
      const count = await billed.hourly!.count(levels);
      expect(count).toBe(await fromWarehouse.hourly!.count(levels));
      const lines: unknown[] = [];
      for await (const batch of billed.hourly!.lines(levels)) lines.push(...batch);
      expect(lines).toHaveLength(count);
      const expected: unknown[] = [];
      for await (const batch of fromWarehouse.hourly!.lines(levels)) expected.push(...batch);
      expect(lines).toEqual(expected);
    }
    expect(await billed.hourly!.count(["account"])).toBe(72);
    billed.close();
    billed.close(); // idempotent
  });

  it("gives the billing/calculate shape, of the environment alone without an account", async () => {
    const environment = await bill({ source: [data], period: PERIOD, produce: { calculate: true } });
    expect(environment.report.lines.map((l) => l.level)).toEqual(["environment"]);
    expect(Object.keys(environment.calculate!)).toEqual(["consumption"]);
    const account = await bill({
      source: warehouse,
      period: { ...PERIOD, accountId: 1 },
      produce: { calculate: true },
    });
    expect("account" in account.calculate! && account.calculate.account.id).toBe(1);
  });

  it("checks the period once, before reading anything", async () => {
    await expect(
      bill({ source: [join(dir, "nothing here")], period: { start: OCT_1, end: OCT_1 } }),
    ).rejects.toMatchObject({ code: "USAGE", message: expect.stringMatching(/the period is empty/) });
  });
});
