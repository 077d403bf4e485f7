// One invoice per VAT category of the tax catalog, each to a customer taxed by it alone, built as the
// register builds them: the official-rules test and test/invoices/taxCategories.test.ts render
// these, so a category added to the catalog is checked against EN 16931 and Peppol without a test
// written for it first.
import {
  buildInvoiceDocument,
  DEFAULT_UNITS,
  invoiceOf,
  parsePrices,
  parseStatementConfig,
  type InvoiceDocument,
} from "../../src/internal.js";
import { TAX_CATEGORY_CODES, taxCategoryDef, type TaxCategory } from "../../src/invoices/document/taxCategories.js";
import { accountLine, OCTOBER, sampleConfig } from "./invoiceDocuments.js";

/** The legal ground a category that needs one is given. */
export const EXEMPT_GROUND = "Exempt under Article 135(1)(g) of Directive 2006/112/EC";

/** The config's tax of a customer taxed `category`: 19% where it takes a rate, the ground where it needs one. */
export function sampleTax(category: TaxCategory): Record<string, unknown> {
  const def = taxCategoryDef(category);
  return {
    category,
    ...(def.rate === "above zero" ? { ratePercent: 19 } : {}),
    ...(def.exemptionReason === "required" ? { exemptionReason: EXEMPT_GROUND } : {}),
  };
}

const EUR = parsePrices({ currency: "EUR", prices: { CU: "0.0125", SU: { perMonth: 36 } } }, "prices.yaml");

/**
 * Account 7101's invoice (the French customer of the sample config, with its VAT id) taxed by each
 * category in turn, by the sample issuer of Hamburg: 744 CU-hours at 0.0125 = 9.30 and 744
 * SU-hours at 36 a month of 720 hours = 37.20, a net of 46.50 EUR.
 */
export function categoryDocuments(): Record<TaxCategory, InvoiceDocument> {
  const entry = sampleConfig.customers.get(7101)!;
  const { tax: _tax, ...customer } = entry;
  return Object.fromEntries(
    TAX_CATEGORY_CODES.map((category, i) => {
      const config = parseStatementConfig(
        {
          issuer: { ...sampleConfig.issuer, tax: undefined },
          customers: { 7101: { ...customer, tax: sampleTax(category) } },
        },
        "statement.yaml",
      );
      const invoice = invoiceOf(accountLine({ CU: 744, SU: 744 }, 7101), EUR, DEFAULT_UNITS, OCTOBER);
      const number = `INV-2026-${String(100 + i).padStart(5, "0")}`;
      return [category, buildInvoiceDocument({ invoice, config, issueDate: "2026-11-02", number })];
    }),
  ) as Record<TaxCategory, InvoiceDocument>;
}
