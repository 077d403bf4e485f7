import { describe, expect, it } from "vitest";
import {
  DEFAULT_UNITS,
  Exact,
  invoiceOf,
  monthPeriod,
  parsePrices,
  UsageError,
  type AccountLine,
  type Quantities,
} from "../../src/internal.js";

const OCTOBER = monthPeriod("2026-10");

function account(unitHours: Partial<Quantities>, accountId = 7): AccountLine {
  const q = { CU: 0, SU: 0, TU: 0, NU: 0, VCU: 0, MU: 0, WU: 0, PIU: 0, ...unitHours } as Quantities;
  return {
    level: "account",
    accountId,
    cloudspaceId: null,
    machineId: null,
    hourEpoch: null,
    name: "",
    sampleHours: 1,
    quantities: q,
    cuSumOfMachines: q.CU,
    gatewayPiuHours: 0,
    unitHours: q,
    cuAllocated: q.CU,
    cuAllocatedHours: q.CU,
    ownNicNu: 0,
  };
}

describe("invoice lines and the amount due", () => {
  it.each([
    {
      what: "unit-hours × price per unit-hour",
      prices: { CU: "0.1" },
      hours: { CU: 3 },
      lines: [["CU", 3, "CU-hours", "0.30"]],
      due: "0.30",
    },
    {
      what: "a price per month shows the quantity in unit-months",
      prices: { SU: { perMonth: 40 } },
      hours: { SU: 1440 },
      lines: [["SU", 2, "SU-months", "80.00"]],
      due: "80.00",
    },
    {
      what: "a 744-hour month at a price per 720-hour month",
      prices: { CU: { perMonth: 36 } },
      hours: { CU: 744 },
      lines: [["CU", 744 / 720, "CU-months", "37.20"]],
      due: "37.20",
    },
    {
      what: "a 744-hour month at a price per hour",
      prices: { CU: "0.05" },
      hours: { CU: 744 },
      lines: [["CU", 744, "CU-hours", "37.20"]],
      due: "37.20",
    },
    {
      what: "a half cent rounds to even, down",
      prices: { CU: "0.01" },
      hours: { CU: 8.5 },
      lines: [["CU", 8.5, "CU-hours", "0.08"]],
      due: "0.08",
    },
    {
      what: "a half cent rounds to even, up",
      prices: { CU: "0.01" },
      hours: { CU: 9.5 },
      lines: [["CU", 9.5, "CU-hours", "0.10"]],
      due: "0.10",
    },
    {
      what: "the amount due is the sum of the rounded lines, not the rounded sum",
      prices: { CU: "0.005", SU: "0.005", TU: "0.005" },
      hours: { CU: 1, SU: 1, TU: 1 },
      lines: [
        ["CU", 1, "CU-hours", "0.00"],
        ["SU", 1, "SU-hours", "0.00"],
        ["TU", 1, "TU-hours", "0.00"],
      ],
      due: "0.00",
    },
    {
      what: "a zero price is a line of 0",
      prices: { CU: 0, SU: "0.01" },
      hours: { CU: 10, SU: 100 },
      lines: [
        ["CU", 10, "CU-hours", "0.00"],
        ["SU", 100, "SU-hours", "1.00"],
      ],
      due: "1.00",
    },
    {
      what: "NU is TiB transferred, priced per TiB",
      prices: { NU: 20 },
      hours: { NU: 2.5 },
      lines: [["NU", 2.5, "TiB", "50.00"]],
      due: "50.00",
    },
    {
      what: "a priced unit without consumption is a line of 0",
      prices: { PIU: "0.005" },
      hours: {},
      lines: [["PIU", 0, "PIU-hours", "0.00"]],
      due: "0.00",
    },
  ])("$what", ({ prices, hours, lines, due }) => {
    const invoice = invoiceOf(account(hours), parsePrices({ currency: "EUR", prices }), DEFAULT_UNITS, OCTOBER);
    expect(invoice.lines.map((l) => [l.unit, l.quantity, l.quantityUnit, l.amount.toFixed(2)])).toEqual(lines);
    expect(invoice.amountDue.toFixed(2)).toBe(due);
    expect(invoice.lines.reduce((a, l) => a.add(l.amount), Exact.ZERO).equals(invoice.amountDue)).toBe(true);
  });

  it("per-account prices override the list unit by unit", () => {
    const list = parsePrices({ currency: "EUR", prices: { CU: 1, SU: 2 }, accounts: { "8": { CU: 0.5 } } });
    expect(invoiceOf(account({ CU: 1, SU: 1 }, 7), list, DEFAULT_UNITS, OCTOBER).amountDue.toFixed(2)).toBe("3.00");
    const eight = invoiceOf(account({ CU: 1, SU: 1 }, 8), list, DEFAULT_UNITS, OCTOBER);
    expect(eight.lines.map((l) => [l.unit, l.unitPrice, l.amount.toFixed(2)])).toEqual([
      ["CU", "0.5", "0.50"],
      ["SU", "2", "2.00"],
    ]);
    expect(eight.amountDue.toFixed(2)).toBe("2.50");
  });

  it("JPY has no decimals: each line rounds to whole yen", () => {
    const invoice = invoiceOf(
      account({ CU: 3, SU: 3 }),
      parsePrices({ currency: "JPY", prices: { CU: "0.5", SU: "0.5" } }),
      DEFAULT_UNITS,
      OCTOBER,
    );
    // 1.5 → 2 and 1.5 → 2 (half-even): 4 yen, where the rounded exact total would be 3.
    expect(invoice.amountDue.toFixed(0)).toBe("4");
  });

  it("JSON.stringify gives the invoice with amounts as decimal strings", () => {
    const invoice = invoiceOf(
      account({ CU: 3, NU: 0.5 }),
      parsePrices({ currency: "EUR", prices: { CU: "0.1", NU: 4 } }),
      DEFAULT_UNITS,
      OCTOBER,
    );
    expect(JSON.parse(JSON.stringify(invoice))).toEqual({
      accountId: 7,
      name: "",
      currency: "EUR",
      amountDue: "2.30",
      start: "2026-10-01T00:00:00Z",
      end: "2026-11-01T00:00:00Z",
      lines: [
        {
          unit: "CU",
          start: "2026-10-01T00:00:00Z",
          end: "2026-11-01T00:00:00Z",
          quantity: 3,
          quantityUnit: "CU-hours",
          unitPrice: "0.1",
          priceUnit: "CU-hour",
          amount: "0.30",
        },
        {
          unit: "NU",
          start: "2026-10-01T00:00:00Z",
          end: "2026-11-01T00:00:00Z",
          quantity: 0.5,
          quantityUnit: "TiB",
          unitPrice: "4",
          priceUnit: "TiB",
          amount: "2.00",
        },
      ],
    });
  });

  it("an exact amount stringifies as its decimal", () => {
    expect(JSON.stringify({ a: Exact.parse("1.50"), b: Exact.of(1, 3) })).toBe('{"a":"1.5","b":"0.333333333333"}');
  });
});

describe("price lists", () => {
  it.each([
    { currency: "EUR", decimals: 2 },
    { currency: "jpy", decimals: 0 },
    { currency: "KWD", decimals: 3 },
  ])("$currency has $decimals decimals by default", ({ currency, decimals }) => {
    expect(parsePrices({ currency, prices: {} }).decimals).toBe(decimals);
  });

  it("NU is priced per TiB, also in a list whose bare prices are per month", () => {
    const list = parsePrices({ currency: "EUR", per: "month", prices: { CU: 36, NU: 5 } });
    expect([list.prices.CU![0]!.per, list.prices.NU![0]!.per]).toEqual(["month", "TB"]);
    expect(parsePrices({ currency: "EUR", prices: { NU: { perTB: 5 } } }).prices.NU![0]!.per).toBe("TB");
  });

  it.each([
    { what: "an unknown key", value: { currency: "EUR", prices: {}, discount: 1 }, message: /unknown key discount/ },
    { what: "an unknown unit", value: { currency: "EUR", prices: { XU: 1 } }, message: /unknown unit XU/ },
    { what: "a bad currency", value: { currency: "EURO", prices: {} }, message: /ISO 4217/ },
    { what: "a negative price", value: { currency: "EUR", prices: { CU: -1 } }, message: /non-negative/ },
    {
      what: "a price with two bases",
      value: { currency: "EUR", prices: { CU: { perHour: 1, perMonth: 2 } } },
      message: /perHour or perMonth/,
    },
    {
      what: "NU per month (it is a volume)",
      value: { currency: "EUR", prices: { NU: { perMonth: 2 } } },
      message: /NU is a volume, priced per TiB/,
    },
    {
      what: "an override with another basis",
      value: { currency: "EUR", prices: { CU: 1 }, accounts: { "8": { CU: { perMonth: 500 } } } },
      message: /accounts.8.CU is per unit-month but prices.CU is per unit-hour/,
    },
  ])("refuses $what", ({ value, message }) => {
    expect(() => parsePrices(value, "p.yaml")).toThrow(UsageError);
    expect(() => parsePrices(value, "p.yaml")).toThrow(message);
  });
});
