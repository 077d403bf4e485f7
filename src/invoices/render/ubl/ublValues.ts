import type { Exact } from "../../../billing/exact.js";
import { taxCategoryDef, type TaxCategory } from "../../document/taxCategories.js";
import type { XmlNode } from "./xmlText.js";

/** The date `YYYY-MM-DD` (UTC) of an instant in epoch seconds. */
export function isoDate(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toISOString().slice(0, 10);
}

/** An amount with its currency; `sign` -1 turns a credit note's negative figure into the positive one UBL's CreditNote carries. */
export function ublAmount(amount: Exact, currency: string, sign: 1 | -1 = 1): XmlNode {
  const text = amount.toJSON();
  const value = sign === 1 ? text : text.startsWith("-") ? text.slice(1) : /^0*\.?0*$/.test(text) ? text : `-${text}`;
  return { "@currencyID": currency, "#": value };
}

/** A VAT category (ClassifiedTaxCategory, TaxCategory): its code and rate, unless the catalog says it has none (O, EN 16931 BR-O-05). */
export function ublCategory(
  category: TaxCategory,
  ratePercent: string,
  reason?: { code?: string; text?: string },
): XmlNode {
  const node: XmlNode = { "cbc:ID": category };
  if (taxCategoryDef(category).rate !== "none") node["cbc:Percent"] = ratePercent;
  if (reason?.code) node["cbc:TaxExemptionReasonCode"] = reason.code;
  if (reason?.text) node["cbc:TaxExemptionReason"] = reason.text;
  node["cac:TaxScheme"] = { "cbc:ID": "VAT" };
  return node;
}
