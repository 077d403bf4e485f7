import type { InvoiceDocument } from "../../document/invoiceDocument.js";
import { isoDate, ublAmount, ublCategory } from "./ublValues.js";
import { xmlText, type XmlNode } from "./xmlText.js";

/**
 * A document's contract discounts as document level allowances (EN 16931 BG-20): ChargeIndicator
 * false, the reason a customer reads, the percentage and the base it was taken of, the amount, and
 * the VAT category whose base it lowers. Amounts positive on a credit note too, as all of its are.
 */
export function ublAllowances(doc: InvoiceDocument, sign: 1 | -1): XmlNode[] {
  return (doc.allowances ?? []).map((a) => ({
    "cbc:ChargeIndicator": "false",
    "cbc:AllowanceChargeReason": xmlText(a.reason),
    "cbc:MultiplierFactorNumeric": a.percent,
    "cbc:Amount": ublAmount(a.amount, doc.currency, sign),
    "cbc:BaseAmount": ublAmount(a.base, doc.currency, sign),
    "cac:TaxCategory": ublCategory(a.taxCategory, a.taxRatePercent),
  }));
}

/** The commitment's shortfall as one more invoice line (quantity 1, its amount as the price), after the document's lines. */
export function ublShortfallLine(doc: InvoiceDocument, sign: 1 | -1): XmlNode | undefined {
  const c = doc.commitment;
  if (c === undefined) return undefined;
  const credit = doc.kind === "creditNote";
  const amount = ublAmount(c.amount, doc.currency, sign);
  return {
    "cbc:ID": String(doc.lines.length + 1),
    [credit ? "cbc:CreditedQuantity" : "cbc:InvoicedQuantity"]: { "@unitCode": "C62", "#": "1" },
    "cbc:LineExtensionAmount": amount,
    "cac:InvoicePeriod": { "cbc:StartDate": isoDate(c.start), "cbc:EndDate": isoDate(c.end - 1) },
    "cac:Item": {
      "cbc:Name": xmlText(c.description),
      "cac:ClassifiedTaxCategory": ublCategory(c.taxCategory, c.taxRatePercent),
    },
    "cac:Price": { "cbc:PriceAmount": amount },
  };
}
