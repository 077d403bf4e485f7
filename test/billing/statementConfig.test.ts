import { describe, expect, it } from "vitest";
import { dueDateOf, formatStatementNumber, parseStatementConfig } from "../../src/internal.js";

const issuer = { legalName: "Nordlicht Cloud Services GmbH", address: ["Hafenstraße 12", "20457 Hamburg"] };

describe("statement config", () => {
  it("reads issuer, customers, numbering, payment terms and taxes, with defaults", () => {
    const config = parseStatementConfig({
      issuer: { ...issuer, vatId: "DE123456789", bank: "IBAN DE89\nBIC COBADEFFXXX" },
      numbering: { pattern: "INV-{yyyy}-{seq:05}" },
      taxes: [{ label: "VAT 21%", ratePercent: "21" }],
      customers: { 7104: { legalName: "Lumière SARL", address: "1 rue X\nLyon", vatId: "FR1" } },
    }, "statement.yaml");
    expect(config.issuer.bank).toEqual(["IBAN DE89", "BIC COBADEFFXXX"]);
    expect(config.paymentTermsDays).toBe(30);
    expect(config.issueDate).toBeUndefined();
    expect(config.taxes[0]!.rate.toDecimalString()).toBe("0.21");
    expect(config.customers.get(7104)).toEqual({ legalName: "Lumière SARL", address: ["1 rue X", "Lyon"], vatId: "FR1" });
  });

  it.each([
    [{ issuer, numbering: { pattern: "INV-{yyyy}" } }, /statement\.yaml: numbering\.pattern "INV-\{yyyy\}" has no \{seq\}/],
    [{ issuer, numbering: { pattern: "INV-{seq}-{year}" } }, /unknown placeholder \{year\}/],
    [{ issuer, colour: "red" }, /statement\.yaml: unknown key colour/],
    [{ numbering: { pattern: "{seq}" } }, /statement\.yaml: no issuer/],
    [{ issuer: { address: ["x"] } }, /issuer\.legalName: expected a non-empty text/],
    [{ issuer, issueDate: "2026-02-30" }, /issueDate must be a date YYYY-MM-DD/],
    [{ issuer, paymentTermsDays: -1 }, /paymentTermsDays must be a whole number of days/],
    [{ issuer, taxes: [{ label: "VAT", ratePercent: "x" }] }, /taxes\[0\]\.ratePercent: a non-negative percentage/],
    [{ issuer, customers: { acme: { legalName: "A" } } }, /customers: "acme" is not an account id/],
  ])("refuses %j naming the file and the key", (value, message) => {
    expect(() => parseStatementConfig(value, "statement.yaml")).toThrow(message);
  });

  it.each([
    ["INV-{yyyy}-{seq:05}", 42, "2026-11-02", 7, "INV-2026-00042"],
    ["{yyyy}{mm}-{account}-{seq}", 7, "2026-01-31", 7104, "202601-7104-7"],
    ["S{seq:3}", 1234, "2026-11-02", 1, "S1234"],
  ])("pattern %s, sequence %i, issued %s, account %i: %s", (pattern, seq, issueDate, accountId, number) => {
    expect(formatStatementNumber(pattern, { seq, issueDate, accountId })).toBe(number);
  });

  it.each([
    ["2026-11-02", 30, "2026-12-02"],
    ["2026-12-15", 30, "2027-01-14"],
    ["2028-02-28", 1, "2028-02-29"],
    ["2026-11-02", 0, "2026-11-02"],
  ])("issued %s with %i days of payment terms: due %s", (issued, days, due) => {
    expect(dueDateOf(issued, days)).toBe(due);
  });
});
