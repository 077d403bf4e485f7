import { describe, expect, it } from "vitest";
import { commitmentShortfall, contractAllowances, parseContract } from "../../src/invoices/document/contractTerms.js";
import type { DocumentLine } from "../../src/invoices/document/invoiceDocument.js";
import { Exact } from "../../src/billing/exact.js";

// A contract as the statement config writes it, and its lines computed by hand.

const day = (d: string) => Date.parse(`${d}T00:00:00Z`) / 1000;
const line = (unit: string, net: string, start = day("2026-01-01"), end = day("2026-02-01")): DocumentLine => ({
  unit,
  description: unit,
  start,
  end,
  quantity: "1",
  quantityUnit: "",
  unitPrice: net,
  priceUnit: "",
  net: Exact.amount(net),
  taxCategory: "AE",
  taxRatePercent: "0",
});
const failure = (value: unknown) => {
  try {
    parseContract(value, "statement.yaml: customers.7102.contract");
    return undefined;
  } catch (error) {
    return `${(error as { code?: string }).code}: ${(error as Error).message}`;
  }
};

describe("customers.<id>.contract", () => {
  it("refuses what a contract cannot be, naming the key (exit 2)", () => {
    expect(failure({ discounts: [{ percent: 110, units: ["CU"] }] })).toBe(
      "STATEMENT_CONFIG: statement.yaml: customers.7102.contract.discounts[0].percent: at most 100, got 110",
    );
    expect(failure({ commitment: { monthly: -5 } })).toMatch(/commitment\.monthly: a positive decimal amount/);
    expect(
      failure({
        credits: [
          { id: "A", amount: 10, validFrom: "2026-01-01", validTo: "2026-03-31" },
          { id: "A", amount: 5, validFrom: "2026-01-01", validTo: "2026-03-31" },
        ],
      }),
    ).toMatch(/credits\[1\]\.id: A is given twice/);
    expect(failure({ credits: [{ id: "A", amount: 10, validFrom: "2026-04-01", validTo: "2026-03-31" }] })).toMatch(
      /validTo is before validFrom/,
    );
    expect(failure({ rebate: 5 })).toMatch(/unknown key rebate/);
  });

  it("a discount in force for part of a price period takes that share of its hours", () => {
    const terms = parseContract({ discounts: [{ percent: 12.5, units: ["CU", "SU"], from: "2026-01-17" }] }, "c");
    // CU: 15 of 31 days = 360 / 744 hours of 100.00 = 48.387… → 48.39; 12.5 % of it = 6.04875 → 6.05
    // SU: the same share of 31.00 = 15.00; 12.5 % = 1.875 → 1.88 (half-even: 1.875 is exact, rounds to 1.88); TU: no discount
    expect(
      contractAllowances(terms, [line("CU", "100.00"), line("SU", "31.00"), line("TU", "9.00")], 2).map((a) => [
        a.reason,
        String(a.base),
        String(a.amount),
        a.taxCategory,
      ]),
    ).toEqual([
      ["Contract discount 12.5 % on CU", "48.39", "6.05", "AE"],
      ["Contract discount 12.5 % on SU", "15.00", "1.88", "AE"],
    ]);
  });

  it("the shortfall: none when the net reaches the commitment, none outside its months", () => {
    const terms = parseContract({ commitment: { monthly: "500", to: "2026-01-31" } }, "c");
    const january = { start: day("2026-01-01"), end: day("2026-02-01") };
    const tax = { category: "S" as const, ratePercent: "19" };
    expect(commitmentShortfall(terms, january, Exact.amount("499.99"), 2, tax)?.amount.toJSON()).toBe("0.01"); // 500.00 − 499.99
    expect(commitmentShortfall(terms, january, Exact.amount("500.00"), 2, tax)).toBeUndefined();
    expect(
      commitmentShortfall(terms, { start: day("2026-02-01"), end: day("2026-03-01") }, Exact.ZERO, 2, tax),
    ).toBeUndefined();
    // in yen: 500 × 1 (the whole month) − 120 = 380
    expect(commitmentShortfall(terms, january, Exact.amount("120"), 0, tax)?.amount.toJSON()).toBe("380");
  });
});
