import { readFileSync, writeFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { DuckDBConnection } from "@duckdb/node-api";
import type { VMachine } from "../../src/capnp/records.js";
import { accountHour, disk, HOUR, memoryWarehouse, OCT_1, vm } from "../helpers/warehouse.js";
import {
  loadPrices,
  monthPeriod,
  parsePrices,
  pricePeriods,
  toBillingCsv,
  toBillingText,
  UsageError,
  type BillingLine,
  type BillingReport,
} from "../../src/index.js";
import { reportFrom } from "../helpers/billFrom.js";

const DAY = 24 * HOUR;
const OCT_3 = OCT_1 + 2 * DAY;
const OCT_4 = OCT_1 + 3 * DAY;
const PERIOD = { start: OCT_1, end: OCT_4 };

/**
 * Three days, 2026-10-01 to 10-03. Account 7: cloud space 71 with VM 711 (2 vCPUs, 4 GiB: 1 CU;
 * a 1 TB disk: 1 SU) every hour, cloud space 72 with VM 721 (1 CU) on 10-03 only. Account 8:
 * VM 811 (4 vCPUs, 8 GiB: 2 CU) every hour. So account 7 has 24 CU-hours on 10-01, 72 from
 * 10-02 (48 in 71, 24 in 72), 96 in all; account 8 has 144.
 */
function hours() {
  const out = [];
  for (let h = 0; h < 72; h++) {
    const t = OCT_1 + h * HOUR;
    const seven: Record<number, VMachine[]> = { 71: [vm(711, { vcpus: 2, mem: 4096, disks: [disk(1, 1024)] })] };
    if (t >= OCT_3) seven[72] = [vm(721, { vcpus: 2, mem: 4096 })];
    out.push(accountHour(7, t, seven));
    out.push(accountHour(8, t, { 81: [vm(811, { vcpus: 4, mem: 8192 })] }));
  }
  return out;
}

let connection: DuckDBConnection;
beforeAll(async () => {
  connection = await memoryWarehouse(hours());
});

type Line = [unit: string, start: string, end: string, quantity: number, unitPrice: string, amount: string];
const iso = (t: number) => new Date(t * 1000).toISOString().replace(".000Z", "Z");
const linesOf = (report: BillingReport, accountId: number): Line[] =>
  report
    .invoices!.find((i) => i.accountId === accountId)!
    .lines.map((l) => [l.unit, iso(l.start), iso(l.end), l.quantity, l.unitPrice, l.amount.toFixed(2)]);

describe("prices that change: one invoice line per unit and price period (hand-computed)", () => {
  it.each([
    {
      what: "a CU price change on 10-02 for account 7 only",
      list: { prices: { CU: 0.01 }, accounts: { "7": { CU: [{ from: "2026-10-02", price: 0.02 }] } } },
      seven: [
        ["CU", "2026-10-01T00:00:00Z", "2026-10-02T00:00:00Z", 24, "0.01", "0.24"],
        ["CU", "2026-10-02T00:00:00Z", "2026-10-04T00:00:00Z", 72, "0.02", "1.44"],
      ],
      sevenDue: "1.68",
      eight: [["CU", "2026-10-01T00:00:00Z", "2026-10-04T00:00:00Z", 144, "0.01", "1.44"]],
    },
    {
      what: "a change at the period's start is one line at the new price",
      list: { prices: { CU: [0.01, { from: "2026-10-01T00:00Z", price: 0.03 }] } },
      seven: [["CU", "2026-10-01T00:00:00Z", "2026-10-04T00:00:00Z", 96, "0.03", "2.88"]],
      sevenDue: "2.88",
      eight: [["CU", "2026-10-01T00:00:00Z", "2026-10-04T00:00:00Z", 144, "0.03", "4.32"]],
    },
    {
      what: "a change before the period is one line at the new price; one after it, at the old",
      list: {
        prices: { CU: [0.01, { from: "2026-09-15", price: 0.03 }], SU: [0.5, { from: "2026-11-01", price: 9 }] },
      },
      seven: [
        ["CU", "2026-10-01T00:00:00Z", "2026-10-04T00:00:00Z", 96, "0.03", "2.88"],
        ["SU", "2026-10-01T00:00:00Z", "2026-10-04T00:00:00Z", 72, "0.5", "36.00"],
      ],
      sevenDue: "38.88",
      eight: [
        ["CU", "2026-10-01T00:00:00Z", "2026-10-04T00:00:00Z", 144, "0.03", "4.32"],
        ["SU", "2026-10-01T00:00:00Z", "2026-10-04T00:00:00Z", 0, "0.5", "0.00"],
      ],
    },
    {
      // 48 SU-hours = 48/720 SU-months × 36 = 2.40; 24/720 × 72 = 2.40
      what: "a per-month price that changes on 10-03",
      list: { prices: { SU: [{ perMonth: 36 }, { from: "2026-10-03", perMonth: 72 }] } },
      seven: [
        ["SU", "2026-10-01T00:00:00Z", "2026-10-03T00:00:00Z", 48 / 720, "36", "2.40"],
        ["SU", "2026-10-03T00:00:00Z", "2026-10-04T00:00:00Z", 24 / 720, "72", "2.40"],
      ],
      sevenDue: "4.80",
      eight: [
        ["SU", "2026-10-01T00:00:00Z", "2026-10-03T00:00:00Z", 0, "36", "0.00"],
        ["SU", "2026-10-03T00:00:00Z", "2026-10-04T00:00:00Z", 0, "72", "0.00"],
      ],
    },
    {
      what: "a unit priced only from a date has no line before it",
      list: { prices: { CU: [{ from: "2026-10-03", price: 0.1 }] } },
      seven: [["CU", "2026-10-03T00:00:00Z", "2026-10-04T00:00:00Z", 48, "0.1", "4.80"]],
      sevenDue: "4.80",
      eight: [["CU", "2026-10-03T00:00:00Z", "2026-10-04T00:00:00Z", 48, "0.1", "4.80"]],
    },
  ])("$what", async ({ list, seven, sevenDue, eight }) => {
    const prices = parsePrices({ currency: "EUR", ...list });
    const report = await reportFrom(connection, PERIOD, {}, { prices });
    expect(linesOf(report, 7)).toEqual(seven);
    expect(linesOf(report, 8)).toEqual(eight);
    expect(report.invoices!.find((i) => i.accountId === 7)!.amountDue.toFixed(2)).toBe(sevenDue);
    // the same invoice for the account alone
    const alone = await reportFrom(connection, { ...PERIOD, accountId: 7 }, {}, { prices });
    expect(linesOf(alone, 7)).toEqual(seven);
  });

  it("showback splits each price period's line by that period's weights, and adds up to it to the cent", async () => {
    const prices = parsePrices({
      currency: "EUR",
      prices: { CU: 0.01 },
      accounts: { "7": { CU: [{ from: "2026-10-02", price: 0.02 }] } },
    });
    const report = await reportFrom(connection, { ...PERIOD, accountId: 7 }, {}, { prices });
    const money = (cs: number) =>
      report.money![report.lines.findIndex((l) => l.level === "cloudspace" && l.cloudspaceId === cs)]!;
    // 10-01: 0.24 all to 71; from 10-02: 1.44 split 48:24 → 0.96 and 0.48 (the period's weights 72:24 would give 1.08 and 0.36)
    expect(money(71).charges.map((c) => c.amount.toFixed(2))).toEqual(["0.24", "0.96"]);
    expect(money(72).charges.map((c) => c.amount.toFixed(2))).toEqual(["0.00", "0.48"]);
    expect(money(71).amount.add(money(72).amount).toFixed(2)).toBe("1.68");
  });

  it("the parts of a period cut at a change add up exactly to the period", async () => {
    const prices = parsePrices({
      currency: "EUR",
      prices: { CU: [0.01, { from: "2026-10-02T05:00Z", price: 0.02 }, { from: "2026-10-03T17:00Z", price: 0.04 }] },
    });
    const report = await reportFrom(connection, PERIOD, {}, { prices });
    expect(report.parts!.map((p) => [iso(p.start), iso(p.end)])).toEqual([
      ["2026-10-01T00:00:00Z", "2026-10-02T05:00:00Z"],
      ["2026-10-02T05:00:00Z", "2026-10-03T17:00:00Z"],
      ["2026-10-03T17:00:00Z", "2026-10-04T00:00:00Z"],
    ]);
    for (const whole of report.lines.filter((l) => l.level !== "gateway")) {
      const key = (l: BillingLine) => `${l.level}/${l.accountId}/${l.cloudspaceId}/${l.machineId}`;
      const inParts = report.parts!.map((p) => p.lines.find((l) => key(l) === key(whole)));
      const sum = (f: (l: BillingLine) => number) => inParts.reduce((a, l) => a + (l ? f(l) : 0), 0);
      expect([sum((l) => l.unitHours.CU), sum((l) => l.cuAllocatedHours), sum((l) => l.sampleHours)]).toEqual([
        whole.unitHours.CU,
        whole.cuAllocatedHours,
        whole.sampleHours,
      ]);
    }
    // account 7: 29 hours of 1 CU × 0.01; 19 hours of 1 CU and 17 of 2 (10-03) × 0.02; 7 hours of 2 CU × 0.04
    expect(linesOf(report, 7)).toEqual([
      ["CU", "2026-10-01T00:00:00Z", "2026-10-02T05:00:00Z", 29, "0.01", "0.29"],
      ["CU", "2026-10-02T05:00:00Z", "2026-10-03T17:00:00Z", 53, "0.02", "1.06"],
      ["CU", "2026-10-03T17:00:00Z", "2026-10-04T00:00:00Z", 14, "0.04", "0.56"],
    ]);
  });

  it("text and CSV show each price period", async () => {
    const prices = parsePrices({
      currency: "EUR",
      prices: { CU: 0.01 },
      accounts: { "7": { CU: [{ from: "2026-10-02", price: 0.02 }] } },
    });
    const report = await reportFrom(connection, PERIOD, {}, { prices });
    const text = toBillingText(report);
    expect(text).toContain("account 7 CU 2026-10-01: 24.0000 CU-hours × 0.01 = 0.24");
    expect(text).toContain("account 7 CU 2026-10-02 to 2026-10-03: 72.0000 CU-hours × 0.02 = 1.44");
    let csv = "";
    for await (const chunk of toBillingCsv(report)) csv += chunk;
    expect(csv).toContain(
      '"0.01 [2026-10-01T00:00:00Z, 2026-10-02T00:00:00Z); 0.02 [2026-10-02T00:00:00Z, 2026-10-04T00:00:00Z)"',
    );
  });

  it("a CSV cell lists its price periods in one format, whole days or not: half-open, in UTC instants", async () => {
    const prices = parsePrices({
      currency: "EUR",
      prices: { CU: [0.01, { from: "2026-10-02", price: 0.02 }, { from: "2026-10-03T17:00Z", price: 0.04 }] },
    });
    const report = await reportFrom(connection, PERIOD, {}, { prices });
    let csv = "";
    for await (const chunk of toBillingCsv(report)) csv += chunk;
    const cell =
      '"0.01 [2026-10-01T00:00:00Z, 2026-10-02T00:00:00Z); 0.02 [2026-10-02T00:00:00Z, 2026-10-03T17:00:00Z); 0.04 [2026-10-03T17:00:00Z, 2026-10-04T00:00:00Z)"';
    const rows = csv
      .trim()
      .split("\r\n")
      .slice(1)
      .filter((r) => !r.startsWith("environment,")); // the environment has no price of its own
    expect(rows.length).toBeGreaterThan(1);
    for (const row of rows) expect(row).toContain(cell);
  });
});

describe("dated prices in a price list", () => {
  it("pricePeriods: an account's own price replaces the list's from its date", () => {
    const list = parsePrices({
      currency: "EUR",
      prices: { CU: [0.01, { from: "2026-10-03", price: 0.03 }] },
      accounts: { "7": { CU: [{ from: "2026-10-02", price: 0.02 }] } },
    });
    expect(pricePeriods(list, 7, "CU", OCT_1, OCT_4).map((p) => [iso(p.start), iso(p.end), p.price.text])).toEqual([
      ["2026-10-01T00:00:00Z", "2026-10-02T00:00:00Z", "0.01"],
      ["2026-10-02T00:00:00Z", "2026-10-04T00:00:00Z", "0.02"],
    ]);
    expect(pricePeriods(list, 8, "CU", OCT_1, OCT_4).map((p) => p.price.text)).toEqual(["0.01", "0.03"]);
  });

  it.each([
    {
      what: "a date not on the hour",
      CU: [0.01, { from: "2026-10-02T00:30Z", price: 0.02 }],
      error: /not on the hour/,
    },
    {
      what: "dates out of order",
      CU: [
        { from: "2026-10-03", price: 1 },
        { from: "2026-10-02", price: 2 },
      ],
      error: /not after the previous price's 2026-10-03/,
    },
    { what: "a second undated price", CU: [0.01, 0.02], error: /only the first price may hold from the start/ },
    { what: "two bases for one unit", CU: [0.01, { from: "2026-10-02", perMonth: 7 }], error: /give a unit one basis/ },
    { what: "a bad date", CU: [{ from: "October", price: 1 }], error: /prices\.CU\[0\]\.from/ },
    { what: "an empty list", CU: [], error: /empty list of prices/ },
  ])("refuses $what, naming the place", ({ CU, error }) => {
    expect(() => parsePrices({ currency: "EUR", prices: { CU } }, "p.yaml")).toThrow(UsageError);
    expect(() => parsePrices({ currency: "EUR", prices: { CU } }, "p.yaml")).toThrow(error);
  });
});

describe("the dated price list of docs/formulas.md", () => {
  it("reads as the page says: account 7 pays 0.05 until 10-15, 0.06 until 10-20, then 0.04", async () => {
    const page = readFileSync(new URL("../../docs/formulas.md", import.meta.url), "utf8");
    const block = /```yaml\n([\s\S]*?)```/.exec(page.slice(page.indexOf("**Prices that change.**")))![1]!;
    const dir = await mkdtemp(join(tmpdir(), "cloudunits-prices-"));
    writeFileSync(join(dir, "prices.yaml"), block);
    const list = await loadPrices(join(dir, "prices.yaml"));
    const october = monthPeriod("2026-10");
    expect(pricePeriods(list, 7, "CU", october.start, october.end).map((p) => [iso(p.start), p.price.text])).toEqual([
      ["2026-10-01T00:00:00Z", "0.05"],
      ["2026-10-15T00:00:00Z", "0.06"],
      ["2026-10-20T00:00:00Z", "0.04"],
    ]);
    expect(
      pricePeriods(list, 8, "SU", october.start, monthPeriod("2026-11").end).map((p) => [
        iso(p.start),
        p.price.text,
        p.price.per,
      ]),
    ).toEqual([
      ["2026-10-01T00:00:00Z", "40", "month"],
      ["2026-11-01T00:00:00Z", "42", "month"],
    ]);
  });
});
