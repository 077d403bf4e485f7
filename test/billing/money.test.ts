import { describe, expect, it } from "vitest";
import { DEFAULT_UNITS, lineMoney, parsePrices, sumMoney, UsageError, type BillingLine, type Quantities } from "../../src/index.js";

function line(unitHours: Partial<Quantities>, accountId = 7): BillingLine {
  const q = { CU: 0, SU: 0, TU: 0, NU: 0, VCU: 0, MU: 0, WU: 0, PIU: 0, ...unitHours } as Quantities;
  return { level: "account", accountId, cloudspaceId: null, machineId: null, hourEpoch: null, name: "", sampleHours: 1, quantities: q, cuSumOfMachines: q.CU ?? 0, gatewayPiuHours: 0, unitHours: q };
}

describe("prices and money", () => {
  it("amount = unit-hours × price per unit-hour, exactly", () => {
    const list = parsePrices({ currency: "EUR", prices: { CU: 0.1 } });
    const money = lineMoney(line({ CU: 3 }), list, DEFAULT_UNITS);
    expect(money.charges).toEqual([{ unit: "CU", pricingQuantity: 3, pricingUnit: "CU-hour", unitPrice: "0.1", amount: expect.anything() }]);
    expect(money.total.toDecimalString()).toBe("0.3");
  });

  it("a price per unit-month charges unit-hours / 720", () => {
    const list = parsePrices({ currency: "EUR", prices: { SU: { perMonth: 40 } } });
    const money = lineMoney(line({ SU: 1440 }), list, DEFAULT_UNITS);
    expect(money.charges[0]).toMatchObject({ pricingQuantity: 2, pricingUnit: "SU-month", unitPrice: "40" });
    expect(money.roundedTotal.toFixed(2)).toBe("80.00");
  });

  it("per: month makes bare prices monthly", () => {
    const list = parsePrices({ currency: "EUR", per: "month", prices: { CU: 36 } });
    expect(lineMoney(line({ CU: 10 }), list, DEFAULT_UNITS).total.toDecimalString()).toBe("0.5");
  });

  it("rounds half-even only at presentation, and shows both when the rounded lines do not add up to the rounded total", () => {
    // Three charges of 0.005 each: each rounds (half-even) to 0.00, the total 0.015 rounds to 0.02.
    const list = parsePrices({ currency: "EUR", prices: { CU: "0.005", SU: "0.005", TU: "0.005" } });
    const money = lineMoney(line({ CU: 1, SU: 1, TU: 1 }), list, DEFAULT_UNITS);
    expect(money.charges.map((c) => c.amount.toFixed(2))).toEqual(["0.00", "0.00", "0.00"]);
    expect(money.sumOfRoundedCharges.toFixed(2)).toBe("0.00");
    expect(money.roundedTotal.toFixed(2)).toBe("0.02");
  });

  it("sums lines both ways", () => {
    const list = parsePrices({ currency: "EUR", prices: { CU: "0.005" } });
    const lines = [1, 1, 1].map((cu, i) => lineMoney(line({ CU: cu }, i), list, DEFAULT_UNITS));
    const sum = sumMoney(lines, 2);
    expect(sum.sumOfRoundedLines.toFixed(2)).toBe("0.00");
    expect(sum.roundedTotal.toFixed(2)).toBe("0.02");
  });

  it("per-account prices override the list unit by unit", () => {
    const list = parsePrices({ currency: "EUR", prices: { CU: 1, SU: 2 }, accounts: { "8": { CU: 0.5 } } });
    expect(lineMoney(line({ CU: 1, SU: 1 }, 7), list, DEFAULT_UNITS).total.toDecimalString()).toBe("3");
    expect(lineMoney(line({ CU: 1, SU: 1 }, 8), list, DEFAULT_UNITS).total.toDecimalString()).toBe("2.5");
  });

  it.each([
    { currency: "EUR", decimals: 2 },
    { currency: "jpy", decimals: 0 },
    { currency: "KWD", decimals: 3 },
  ])("$currency has $decimals decimals by default", ({ currency, decimals }) => {
    expect(parsePrices({ currency, prices: {} }).decimals).toBe(decimals);
  });

  it.each([
    { what: "an unknown key", value: { currency: "EUR", prices: {}, discount: 1 }, message: /unknown key discount/ },
    { what: "an unknown unit", value: { currency: "EUR", prices: { XU: 1 } }, message: /unknown unit XU/ },
    { what: "a bad currency", value: { currency: "EURO", prices: {} }, message: /ISO 4217/ },
    { what: "a negative price", value: { currency: "EUR", prices: { CU: -1 } }, message: /non-negative/ },
    { what: "a price with two bases", value: { currency: "EUR", prices: { CU: { perHour: 1, perMonth: 2 } } }, message: /perHour or perMonth/ },
  ])("refuses $what", ({ value, message }) => {
    expect(() => parsePrices(value, "p.yaml")).toThrow(UsageError);
    expect(() => parsePrices(value, "p.yaml")).toThrow(message);
  });
});

describe("price list bases", () => {
  it("refuses an account override whose basis differs from the list's for that unit", () => {
    expect(() => parsePrices({ currency: "EUR", prices: { CU: 1 }, accounts: { "8": { CU: { perMonth: 500 } } } }, "p.yaml"))
      .toThrow(/accounts.8.CU is per unit-month but prices.CU is per unit-hour/);
  });
});
