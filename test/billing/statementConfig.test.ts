import { describe, expect, it } from "vitest";
import {
  checkIssuable,
  dueDateOf,
  eInvoiceProblems,
  formatStatementNumber,
  issueProblems,
  parseStatementConfig,
  taxOf,
} from "../../src/internal.js";

const issuer = { legalName: "Nordlicht Cloud Services GmbH", address: ["Hafenstraße 12", "20457 Hamburg"] };
const fullIssuer = {
  ...issuer,
  country: "DE",
  vatId: "DE123456789",
  peppolId: "9930:DE123456789",
  tax: { category: "S", ratePercent: 19 },
};

describe("statement config", () => {
  it("reads issuer, customers, numbering, payment terms and taxes, with defaults", () => {
    const config = parseStatementConfig(
      {
        issuer: { ...fullIssuer, bank: "IBAN DE89\nBIC COBADEFFXXX", contact: ["billing@nordlicht.example"] },
        numbering: { pattern: "INV-{yyyy}-{seq:05}" },
        customers: {
          7104: {
            legalName: "Lumière SARL",
            address: "1 rue X\n69001 Lyon",
            country: "FR",
            vatId: "FR1",
            peppolId: "9957:FR1",
            reference: "PO-2026-118",
            tax: { category: "AE" },
          },
          7105: {
            legalName: "Hospital gGmbH",
            address: ["Weg 1"],
            country: "DE",
            tax: { category: "E", exemptionReason: "Article 132(1)(b) of Directive 2006/112/EC" },
          },
        },
      },
      "statement.yaml",
    );
    expect(config.issuer.bank).toEqual(["IBAN DE89", "BIC COBADEFFXXX"]);
    expect(config.issuer.tax).toMatchObject({ category: "S", ratePercent: "19" });
    expect(config.issuer.tax!.rate.toDecimalString()).toBe("0.19");
    expect(config.paymentTermsDays).toBe(30);
    expect(config.issueDate).toBeUndefined();
    expect(config.creditNotePattern).toBe("CN-{yyyy}-{seq:05}");
    expect(config.deprecations).toEqual([]);
    expect(config.customers.get(7104)).toMatchObject({
      legalName: "Lumière SARL",
      address: ["1 rue X", "69001 Lyon"],
      country: "FR",
      vatId: "FR1",
      peppolId: "9957:FR1",
      reference: "PO-2026-118",
      tax: { category: "AE", ratePercent: "0" },
    });
    // a customer's own tax wins over the issuer's default, which the others get
    expect(taxOf(config, 7104)?.category).toBe("AE");
    expect(taxOf(config, 7105)).toMatchObject({
      category: "E",
      exemptionReason: "Article 132(1)(b) of Directive 2006/112/EC",
    });
    expect(taxOf(config, 9)).toMatchObject({ category: "S", ratePercent: "19" });
  });

  it("reads the older taxes list of one entry as the issuer's standard rate, and says so", () => {
    const config = parseStatementConfig({ issuer, taxes: [{ label: "VAT 21%", ratePercent: "21" }] }, "statement.yaml");
    expect(config.issuer.tax).toMatchObject({ category: "S", ratePercent: "21" });
    expect(config.deprecations).toEqual([
      "statement.yaml: taxes is the older form of issuer.tax: write issuer.tax: { category: S, ratePercent: 21 }",
    ]);
  });

  it.each([
    [
      { issuer, numbering: { pattern: "INV-{yyyy}" } },
      /statement\.yaml: numbering\.pattern "INV-\{yyyy\}" has no \{seq\}/,
    ],
    [{ issuer, numbering: { pattern: "INV-{seq}-{year}" } }, /unknown placeholder \{year\}/],
    [
      { issuer, numbering: { pattern: "{yyyy}-{seq}", creditNotePattern: "{seq}-{yyyy}" } },
      /creditNotePattern "\{seq\}-\{yyyy\}" must differ from numbering\.pattern/,
    ],
    [{ issuer, colour: "red" }, /statement\.yaml: unknown key colour/],
    [{ numbering: { pattern: "{seq}" } }, /statement\.yaml: no issuer/],
    [{ issuer: { address: ["x"] } }, /issuer\.legalName: expected a non-empty text/],
    [{ issuer, issueDate: "2026-02-30" }, /issueDate must be a date YYYY-MM-DD/],
    [{ issuer, paymentTermsDays: -1 }, /paymentTermsDays must be a whole number of days/],
    [{ issuer, taxes: [{ label: "VAT", ratePercent: "x" }] }, /taxes\[0\]\.ratePercent: a percentage from 0 to 100/],
    [
      {
        issuer,
        taxes: [
          { label: "VAT", ratePercent: 19 },
          { label: "City tax", ratePercent: 1 },
        ],
      },
      /one VAT category per customer \(EN 16931\), not 2 taxes/,
    ],
    [{ issuer: fullIssuer, taxes: [{ label: "VAT", ratePercent: 19 }] }, /taxes and issuer\.tax both given/],
    [{ issuer: { ...issuer, country: "Germany" } }, /issuer\.country: an ISO 3166-1 alpha-2 country code/],
    [{ issuer: { ...issuer, peppolId: "DE123456789" } }, /issuer\.peppolId: a Peppol electronic address <scheme>:<id>/],
    [
      { issuer: { ...issuer, tax: { category: "S" } } },
      /issuer\.tax: category S \(standard rated\) needs a ratePercent above 0/,
    ],
    [
      { issuer: { ...issuer, tax: { category: "Z", ratePercent: 7 } } },
      /issuer\.tax: category Z is zero rated at 0%: drop ratePercent 7/,
    ],
    [{ issuer: { ...issuer, tax: { category: "E" } } }, /issuer\.tax: category E \(exempt\) needs exemptionReason/],
    [{ issuer: { ...issuer, tax: { category: "K" } } }, /issuer\.tax\.category: one of S standard rated/],
    [{ issuer: { ...issuer, tax: { category: "AE" } } }, /reverse charge \(AE\) is a customer's tax/],
    // a Belgian enterprise number (0208) is 10 digits, the last two 97 − (the first 8 mod 97); a Belgian VAT id (9925) is BE and the same digits
    [
      { issuer: { ...issuer, peppolId: "0208:0123456748" } },
      /issuer\.peppolId "0208:0123456748": not a Belgian enterprise number \(scheme 0208\): its check digits are 48, and 97 − \(01234567 mod 97\) is 49/,
    ],
    [
      { issuer: { ...issuer, peppolId: "0208:BE0123456749" } },
      /issuer\.peppolId "0208:BE0123456749": not a Belgian enterprise number \(scheme 0208\): expected 10 digits, e\.g\. 0123456749/,
    ],
    [
      { issuer, customers: { 7: { legalName: "A", peppolId: "9925:0123456749" } } },
      /customers\.7\.peppolId "9925:0123456749": not a Belgian VAT number \(scheme 9925\): expected BE and 10 digits/,
    ],
    [
      { issuer, customers: { 7: { legalName: "A", peppolId: "9925:BE0123456700" } } },
      /customers\.7\.peppolId "9925:BE0123456700": not a Belgian VAT number.*97 − \(01234567 mod 97\) is 49/,
    ],
    [
      { issuer: { ...issuer, tax: { category: "S", ratePercent: "0.00001" } } },
      /issuer\.tax\.ratePercent: a percentage from 0 to 100 with at most 4 decimals/,
    ],
    [
      { issuer: { ...issuer, tax: { category: "S", ratePercent: 1e-7 } } },
      /issuer\.tax\.ratePercent: a percentage from 0 to 100 with at most 4 decimals/,
    ],
    [{ issuer, numbering: { pattern: "INV-{yyyy}-{seq:21}" } }, /\{seq:21\} pads to 21 digits; at most \{seq:20\}/],
    [
      { issuer, customers: { 7: { legalName: "A", tax: { category: "AE" } } } },
      /customers\.7: a customer of tax category AE \(reverse charge\) needs its vatId/,
    ],
    [{ issuer, customers: { acme: { legalName: "A" } } }, /customers: "acme" is not an account id/],
  ])("refuses %j naming the file and the key", (value, message) => {
    expect(() => parseStatementConfig(value, "statement.yaml")).toThrow(message);
  });

  it("names every key an invoice needs before it can be issued", () => {
    const old = parseStatementConfig(
      { issuer, customers: { 7: { legalName: "Acme", address: ["Main St 1"] } } },
      "statement.yaml",
    );
    expect(issueProblems(old, 7)).toEqual([
      "issuer.country (ISO 3166-1 alpha-2, e.g. DE)",
      "issuer.vatId",
      'issuer.peppolId (the electronic address, e.g. "9930:DE123456789")',
      "a tax: issuer.tax (the default, e.g. { category: S, ratePercent: 19 }) or customers.7.tax",
      "customers.7.country",
      "customers.7.peppolId (the customer's electronic address)",
    ]);
    const ready = parseStatementConfig(
      {
        issuer: fullIssuer,
        customers: { 7: { legalName: "Acme", address: ["Main St 1"], country: "FR", peppolId: "9957:FR999" } },
      },
      "s.yaml",
    );
    expect(issueProblems(ready, 7)).toEqual([]);
    // between two German parties, Peppol's German rules ask for the seller's contact and account, and postcodes: the e-invoice's, not the invoice's
    const german = parseStatementConfig(
      {
        issuer: fullIssuer,
        customers: { 7: { legalName: "Acme", address: ["Main St 1"], country: "DE", peppolId: "9930:DE999" } },
      },
      "s.yaml",
    );
    expect(issueProblems(german, 7)).toEqual([]);
    expect(eInvoiceProblems(ready, 7)).toEqual([]);
    expect(eInvoiceProblems(german, 7)).toEqual([
      'issuer.contact: an e-mail line and a telephone line such as "Tel. +49 40 1234567" (an invoice between German parties names the seller\'s contact)',
      'issuer.bank: a line "IBAN ..." (an invoice between German parties carries the payment account)',
      'customers.7.address: a last line "postcode city"',
    ]);
    expect(() => checkIssuable(ready, [7, 8])).toThrow(
      "s.yaml: cannot issue invoices of accounts 7, 8: missing customers.8 (legalName, address, country, peppolId)",
    );
    // what the e-invoice needs is needed before a number is given: the German customer's invoice is refused, not issued without its XML
    expect(() => checkIssuable(german, [7])).toThrow(
      "s.yaml: cannot issue invoice of account 7: missing issuer.contact: an e-mail line and a telephone line",
    );
  });

  it("takes valid Belgian electronic addresses, and makes a lone surrogate of a name U+FFFD", () => {
    const config = parseStatementConfig(
      {
        issuer: { ...issuer, legalName: "Nord\ud800licht", peppolId: "0208:0123456749" },
        customers: { 7: { legalName: "A", peppolId: "9925:BE0123456749" } },
      },
      "s.json",
    );
    expect([config.issuer.peppolId, config.customers.get(7)!.peppolId]).toEqual([
      "0208:0123456749",
      "9925:BE0123456749",
    ]);
    expect(config.issuer.legalName).toBe("Nord\uFFFDlicht");
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
