// The VAT categories are one catalog (src/invoices/document/taxCategories.ts): what a statement
// config must give, the words a customer reads and the e-invoice's TaxCategory all follow from a
// category's entry. Each category of the catalog has its expectations below and its line in
// docs/billing.md; one the tests do not know fails here.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { creditNoteOf, parseStatementConfig, renderUbl, taxLabel } from "../../src/internal.js";
import { TAX_CATALOG, TAX_CATEGORY_CODES, type TaxCategory } from "../../src/invoices/document/taxCategories.js";
import { sampleConfig } from "../helpers/invoiceDocuments.js";
import { categoryDocuments, EXEMPT_GROUND, sampleTax } from "../helpers/taxCategoryDocuments.js";

const docs = categoryDocuments();

// The invoice of each category: a net of 744 CU-hours × 0.0125 = 9.30 plus 744 SU-hours at 36 a
// month of 720 hours, 744 × 36 / 720 = 37.20: 46.50 EUR.
const EXPECTED: Record<TaxCategory, { label: string; tax: string; mention?: string; ubl: string }> = {
  // 46.50 × 19% = 8.835, rounded half-even 8.84
  S: {
    label: "VAT 19% on 46.50",
    tax: "8.84",
    ubl: "<cbc:ID>S</cbc:ID><cbc:Percent>19</cbc:Percent><cac:TaxScheme>",
  },
  AE: {
    label: "VAT reverse charge (0%) on 46.50",
    tax: "0.00",
    mention: "Reverse charge: VAT to be accounted for by the customer (Article 196 of Council Directive 2006/112/EC).",
    ubl: "<cbc:ID>AE</cbc:ID><cbc:Percent>0</cbc:Percent><cbc:TaxExemptionReasonCode>VATEX-EU-AE</cbc:TaxExemptionReasonCode><cbc:TaxExemptionReason>Reverse charge</cbc:TaxExemptionReason><cac:TaxScheme>",
  },
  E: {
    label: "VAT exempt (0%) on 46.50",
    tax: "0.00",
    mention: `Exempt from VAT: ${EXEMPT_GROUND}.`,
    ubl: `<cbc:ID>E</cbc:ID><cbc:Percent>0</cbc:Percent><cbc:TaxExemptionReason>${EXEMPT_GROUND}</cbc:TaxExemptionReason><cac:TaxScheme>`,
  },
  Z: {
    label: "VAT 0% (zero rated) on 46.50",
    tax: "0.00",
    ubl: "<cbc:ID>Z</cbc:ID><cbc:Percent>0</cbc:Percent><cac:TaxScheme>",
  },
  O: {
    label: "Not subject to VAT on 46.50",
    tax: "0.00",
    mention: "Not subject to VAT: outside the scope of VAT.",
    ubl: "<cbc:ID>O</cbc:ID><cbc:TaxExemptionReasonCode>VATEX-EU-O</cbc:TaxExemptionReasonCode><cbc:TaxExemptionReason>Not subject to VAT</cbc:TaxExemptionReason><cac:TaxScheme>",
  },
};

/** The e-invoice's VAT breakdown category (TaxSubtotal's TaxCategory), whitespace between tags removed. */
function subtotalCategory(xml: string): string {
  const flat = xml.replace(/>\s+</g, "><");
  return /<cac:TaxSubtotal>.*?<cac:TaxCategory>(.*?)<cbc:ID>VAT<\/cbc:ID>/.exec(flat)![1]!;
}

describe("the tax catalog", () => {
  it("lists the categories of EN 16931 the project supports, each with its line in docs/billing.md and only those", () => {
    const text = readFileSync(join(import.meta.dirname, "../../docs/billing.md"), "utf8");
    const listed = text.split("\n").filter((l) => /^- `[A-Z]{1,2}` /.test(l));
    expect(listed).toEqual(TAX_CATEGORY_CODES.map((c) => TAX_CATALOG[c].docs));
    expect(TAX_CATEGORY_CODES).toEqual(Object.keys(EXPECTED));
  });

  it.each(TAX_CATEGORY_CODES)("%s: the invoice's tax line, legal mention and e-invoice category", (category) => {
    const doc = docs[category];
    const expected = EXPECTED[category];
    expect(doc.taxes.map(taxLabel)).toEqual([expected.label]);
    expect(String(doc.tax)).toBe(expected.tax);
    expect(doc.notes.filter((n) => n !== "")).toEqual(expected.mention ? [expected.mention] : []);
    const xml = renderUbl(doc).toString("utf8");
    expect(subtotalCategory(xml)).toBe(expected.ubl);
    // the customer's VAT id is carried unless the category carries none (O)
    expect(xml.includes("<cbc:CompanyID>FR12345678901</cbc:CompanyID>")).toBe(category !== "O");
  });

  it.each(TAX_CATEGORY_CODES)("%s: its credit note repeats the invoice's legal mention", (category) => {
    const credit = creditNoteOf(docs[category], {
      number: "CN-2026-00100",
      issueDate: "2026-11-20",
      reason: "the hours were billed twice",
    });
    const mention = EXPECTED[category].mention;
    expect(credit.notes.slice(1)).toEqual(mention ? [mention] : []);
    expect(credit.taxes.map(taxLabel)).toEqual([EXPECTED[category].label.replace("on 46.50", "on -46.50")]);
  });

  it.each(TAX_CATEGORY_CODES)(
    "%s: a statement config is held to the category's rate and exemption reason",
    (category) => {
      const def = TAX_CATALOG[category];
      const { tax: _tax, ...customer } = sampleConfig.customers.get(7101)!;
      const read = (tax: Record<string, unknown>, vatId = true) =>
        parseStatementConfig(
          {
            issuer: { ...sampleConfig.issuer, tax: undefined },
            customers: { 7101: { ...customer, ...(vatId ? {} : { vatId: undefined }), tax } },
          },
          "statement.yaml",
        );
      const tax = sampleTax(category);
      expect(read(tax).customers.get(7101)!.tax!.category).toBe(category);
      if (def.rate === "above zero")
        expect(() => read({ ...tax, ratePercent: 0 })).toThrow(
          `category ${category} (${def.name}) needs a ratePercent above 0`,
        );
      else
        expect(() => read({ ...tax, ratePercent: 7 })).toThrow(
          `category ${category} is ${def.name} at 0%: drop ratePercent 7`,
        );
      if (def.exemptionReason === "required")
        expect(() => read({ ...tax, exemptionReason: undefined })).toThrow(
          `category ${category} (${def.name}) needs exemptionReason`,
        );
      if (def.exemptionReason === "refused")
        expect(() => read({ ...tax, exemptionReason: "x" })).toThrow(`exemptionReason applies to categories`);
      if (def.vatIds === "both")
        expect(() => read(tax, false)).toThrow(`a customer of tax category ${category} (${def.name}) needs its vatId`);
      else expect(read(tax, false).customers.get(7101)!.vatId).toBeUndefined();
    },
  );
});
