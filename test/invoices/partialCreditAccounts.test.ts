// `invoices credit --line` on a customer's invoice of several accounts: the same unit and period have
// a line in each account's section, so a name fitting both is refused naming them, and
// `UNIT[@YYYY-MM-DD]@account:ID` credits one account's line, kept in that account's section.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { documentWords } from "../../src/invoices/document/documentWords.js";
import type { InvoiceDocument } from "../../src/invoices/document/invoiceDocument.js";
import { partialCreditNoteOf } from "../../src/invoices/document/partialCreditNote.js";
import { buildInvoiceDocument, DEFAULT_UNITS, invoiceOf, parsePrices, renderUbl } from "../../src/internal.js";
import { validate, type Failure } from "../helpers/einvoiceRules.js";
import { accountLine, OCTOBER, sampleConfig } from "../helpers/invoiceDocuments.js";
import { describeWith } from "../helpers/prerequisites.js";

const EUR = parsePrices({ currency: "EUR", prices: { CU: "0.0125", SU: { perMonth: 36 } } }, "prices.yaml");

/**
 * Customer acme of accounts 7102 (Production: CU 1000 CU-hours × 0.0125 = 12.50, SU 720 SU-hours =
 * 1 SU-month × 36 = 36.00) and 7105 (Staging: CU 200 × 0.0125 = 2.50, SU 0 = 0.00: a unit priced
 * has its line), German, VAT 19 %: net 12.50 + 36.00 + 2.50 = 51.00, VAT 51.00 × 19 % = 9.69, gross 60.69.
 */
function twoAccounts(): InvoiceDocument {
  const accounts = [
    invoiceOf(accountLine({ CU: 1000, SU: 720 }, 7102, "Production"), EUR, DEFAULT_UNITS, OCTOBER),
    invoiceOf(accountLine({ CU: 200 }, 7105, "Staging"), EUR, DEFAULT_UNITS, OCTOBER),
  ];
  return buildInvoiceDocument({
    invoice: accounts[0]!,
    customer: { id: "acme", invoices: accounts },
    config: sampleConfig,
    issueDate: "2026-11-02",
    number: "INV-2026-00007",
  });
}

const invoice = twoAccounts();
let seq = 0;
const credit = (before: InvoiceDocument[], asked: { amount: string } | { lines: string[] }) =>
  partialCreditNoteOf(invoice, before, {
    number: `CN-2026-${String(++seq).padStart(5, "0")}`,
    issueDate: "2026-11-20",
    reason: "the staging account was down on 3 Oct",
    credit: asked,
  });
/** A document's figures as the register records them (texts at the currency's decimals). */
const figures = (d: InvoiceDocument) => ({
  lines: d.lines.map((l) => [l.unit, l.accountId, String(l.net)]),
  sections: d.sections?.map((x) => [x.accountId, String(x.net)]),
  net: String(d.net),
  tax: String(d.tax),
  gross: String(d.gross),
});

describe("the invoice of two accounts credited by line", () => {
  it("has CU in both sections", () => {
    expect(figures(invoice)).toEqual({
      lines: [
        ["CU", 7102, "12.50"],
        ["SU", 7102, "36.00"],
        ["CU", 7105, "2.50"],
        ["SU", 7105, "0.00"],
      ],
      sections: [
        [7102, "48.50"],
        [7105, "2.50"],
      ],
      net: "51.00",
      tax: "9.69",
      gross: "60.69",
    });
  });

  const there = "its lines are CU@account:7102, SU@account:7102, CU@account:7105, SU@account:7105";
  it.each([
    // the unit alone, or with the first day of the month, fits the CU line of both accounts
    [
      "CU",
      "AMBIGUOUS_LINE",
      `"CU" names 2 lines of INV-2026-00007: CU@account:7102, CU@account:7105: name one of them`,
    ],
    [
      "CU@2026-10-01",
      "AMBIGUOUS_LINE",
      `"CU@2026-10-01" names 2 lines of INV-2026-00007: CU@account:7102, CU@account:7105`,
    ],
    ["CU@account:7106", "UNKNOWN_LINE", `INV-2026-00007 has no line "CU@account:7106": ${there}`],
    ["SU", "AMBIGUOUS_LINE", `"SU" names 2 lines of INV-2026-00007: SU@account:7102, SU@account:7105`],
    ["TU@account:7105", "UNKNOWN_LINE", `INV-2026-00007 has no line "TU@account:7105": ${there}`],
    ["CU@account:7102@account:7105", "UNKNOWN_LINE", `has no line "CU@account:7102@account:7105": ${there}`],
    ["CU@7102", "UNKNOWN_LINE", `has no line "CU@7102": ${there}`],
  ])("--line %s is refused (%s), naming the lines as they are typed", (name, code, words) => {
    expect(() => credit([], { lines: [name] })).toThrow(expect.objectContaining({ code }));
    expect(() => credit([], { lines: [name] })).toThrow(words);
  });

  it("CU@account:7105 credits that account's line only, in its section; again is refused; 7102's CU stays creditable", () => {
    // 2.50 × 19 % = 0.475 → 0.48 (half-even); gross −2.98
    const staging = credit([], { lines: ["CU@account:7105"] });
    expect(figures(staging)).toEqual({
      lines: [["CU", 7105, "-2.50"]],
      sections: [[7105, "-2.50"]],
      net: "-2.50",
      tax: "-0.48",
      gross: "-2.98",
    });
    expect(staging.notes[0]).toContain("credits the line Compute units (CU) of account 7105 of invoice INV-2026-00007");
    // the same line, by any name of it (the date and account in either order): credited already
    for (const name of ["CU@account:7105", "CU@2026-10-01@account:7105", "CU@account:7105@2026-10-01"])
      expect(() => credit([staging], { lines: [name] })).toThrow(
        expect.objectContaining({
          code: "LINE_CREDITED",
          message: expect.stringContaining(
            `CU@account:7105 of INV-2026-00007 was credited already, by ${staging.number}`,
          ),
        }),
      );
    // 12.50 × 19 % = 2.375 → 2.38 (half-even); gross −14.88; 51.00 − 2.50 − 12.50 = 36.00 remains before tax
    const production = credit([staging], { lines: ["CU@2026-10-01@account:7102"] });
    expect(figures(production)).toEqual({
      lines: [["CU", 7102, "-12.50"]],
      sections: [[7102, "-12.50"]],
      net: "-12.50",
      tax: "-2.38",
      gross: "-14.88",
    });
  });

  it("two lines of two accounts: a section each, adding up to the credit note's net", () => {
    // SU 36.00 + CU 2.50 = 38.50 before tax; 38.50 × 19 % = 7.315 → 7.32 (half-even: 7.31|5 → 7.32); gross −45.82
    const note = credit([], { lines: ["SU@account:7102", "CU@account:7105"] });
    expect(figures(note)).toEqual({
      lines: [
        ["SU", 7102, "-36.00"],
        ["CU", 7105, "-2.50"],
      ],
      sections: [
        [7102, "-36.00"],
        [7105, "-2.50"],
      ],
      net: "-38.50",
      tax: "-7.32",
      gross: "-45.82",
    });
    // the PDF: a section per account credited, its lines and its subtotal
    const words = documentWords(note);
    expect(
      words.sections?.map((x) => [x.heading, x.lines.map((l) => [l.description, l.net]), x.subtotal.amount]),
    ).toEqual([
      ["Account 7102 – Production", [["Storage units (SU, allocated disk)", "-36.00"]], "-36.00"],
      ["Account 7105 – Staging", [["Compute units (CU)", "-2.50"]], "-2.50"],
    ]);
  });

  it("--amount is no account's: its line is listed without sections (the invoice's would hide it)", () => {
    // one VAT rate: 10.00 before tax, 10.00 × 19 % = 1.90; gross −11.90
    const note = credit([], { amount: "10.00" });
    expect(figures(note)).toEqual({
      lines: [["credit", undefined, "-10.00"]],
      sections: undefined,
      net: "-10.00",
      tax: "-1.90",
      gross: "-11.90",
    });
    expect(note.accountIds).toEqual([7102, 7105]);
    const words = documentWords(note);
    expect(words.sections).toBeUndefined();
    expect(words.lines.map((l) => [l.description, l.net])).toEqual([
      ["Credit on invoice INV-2026-00007, before tax", "-10.00"],
    ]);
  });
});

describeWith("saxon", "partial credit notes of an invoice of two accounts and the official rules", () => {
  describeWith("einvoice-rules", "EN 16931 and Peppol BIS 3.0", () => {
    let failures: Failure[];
    let input: string;
    beforeAll(() => {
      input = join(mkdtempSync(join(tmpdir(), "cu-ubl-accounts-")), "in");
      mkdirSync(input);
      const byLine = credit([], { lines: ["CU@account:7105"] });
      const docs = { invoice, byLine, byAmount: credit([byLine], { amount: "10.00" }) };
      for (const [name, doc] of Object.entries(docs)) writeFileSync(join(input, `${name}.xml`), renderUbl(doc));
      failures = validate(input);
    }, 300_000);

    it("the credit note by line says the account of its line", () => {
      expect(readFileSync(join(input, "byLine.xml"), "utf8")).toMatch(
        /<cac:CreditNoteLine>\s*<cbc:ID>1<\/cbc:ID>\s*<cbc:Note>Account 7105 – Staging<\/cbc:Note>/,
      );
      expect(readFileSync(join(input, "byAmount.xml"), "utf8")).not.toContain("<cbc:Note>Account");
    });

    it.each(["invoice", "byLine", "byAmount"])("%s passes both rule sets with no fatal error", (name) => {
      expect(failures.filter((f) => f.file === `${name}.xml` && f.flag === "fatal")).toEqual([]);
    });
  });
});
