import { UsageError } from "../../base/errors.js";
import { wellFormed } from "../../base/wellFormed.js";
import { Exact } from "../../billing/exact.js";
import {
  isTaxCategory,
  TAX_CATEGORY_CODES,
  taxCategoryDef,
  taxCategoryText,
  type TaxCategory,
} from "./taxCategories.js";

/** How a customer is taxed: one EN 16931 category of the tax catalog with its rate, and for E (optionally AE, O) why no VAT is charged. */
export interface TaxRule {
  category: TaxCategory;
  /** The rate in percent as written (`"19"`, `"7.7"`); `"0"` for AE, E, Z and O. */
  ratePercent: string;
  /** The rate as a fraction (19% is 0.19), exact. */
  rate: Exact;
  /** Printed on the invoice and carried in the UBL: required for E, optional for AE and O. */
  exemptionReason?: string;
}

function fail(message: string): never {
  throw new UsageError(message, { code: "STATEMENT_CONFIG" });
}

/** The decimals a rate may have (UBL's Percent of a VAT rate: 19, 7.7, 5.5, 8.1, at most 0.0001 %). */
export const RATE_DECIMALS = 4;

/** A rate as written: up to three digits, and up to RATE_DECIMALS decimals; tested before any parse, so its length is bounded. */
const RATE = new RegExp(`^\\d{1,3}(?:\\.\\d{1,${RATE_DECIMALS}})?$`);

/** The rate of a tax as written: a number or a decimal text from 0 to 100 with at most 4 decimals, `undefined` when absent. */
function rateText(value: unknown, where: string): string | undefined {
  if (value === undefined) return undefined;
  const text = typeof value === "number" ? String(value) : typeof value === "string" ? value.trim() : "";
  const percent = RATE.test(text) ? Exact.parse(text) : undefined;
  if (percent === undefined || percent.num < 0n || percent.num > 100n * percent.den) {
    const shown = JSON.stringify(value)?.slice(0, 40) ?? String(value);
    fail(
      `${where}.ratePercent: a percentage from 0 to 100 with at most ${RATE_DECIMALS} decimals, such as 19 or 7.7, got ${shown}${shown.length === 40 ? "…" : ""}`,
    );
  }
  return percent.toDecimalString()!;
}

/**
 * Checks a tax of the config, `{ category, ratePercent?, exemptionReason? }`, by its category's entry
 * of the tax catalog: S needs a rate above 0; AE, E, Z and O are 0% (a rate other than 0 is refused);
 * E needs its exemption reason, S and Z take none. Throws a UsageError (code STATEMENT_CONFIG) naming `where`.
 */
export function parseTaxRule(value: unknown, where: string): TaxRule {
  if (value === null || typeof value !== "object" || Array.isArray(value))
    fail(`${where}: expected { category, ratePercent, exemptionReason }`);
  const record = value as Record<string, unknown>;
  const unknown = Object.keys(record).filter((k) => !["category", "ratePercent", "exemptionReason"].includes(k));
  if (unknown.length > 0)
    fail(`${where}: unknown key ${unknown.join(", ")} (known: category, ratePercent, exemptionReason)`);
  const cat = record.category;
  if (!isTaxCategory(cat))
    fail(`${where}.category: one of ${TAX_CATEGORY_CODES.map(taxCategoryText).join("; ")}; got ${JSON.stringify(cat)}`);
  const def = taxCategoryDef(cat);
  const rate = rateText(record.ratePercent, where);
  const reason = record.exemptionReason === undefined ? undefined : wellFormed(String(record.exemptionReason).trim());
  if (def.rate === "above zero" && (rate === undefined || rate === "0"))
    fail(
      `${where}: category ${cat} (${def.name}) needs a ratePercent above 0, e.g. { category: ${cat}, ratePercent: 19 }`,
    );
  if (def.rate !== "above zero" && rate !== undefined && rate !== "0") {
    const rated = TAX_CATEGORY_CODES.find((c) => taxCategoryDef(c).rate === "above zero");
    fail(`${where}: category ${cat} is ${def.name} at 0%: drop ratePercent ${rate} (or use category ${rated})`);
  }
  if (def.exemptionReason === "required" && !reason)
    fail(
      `${where}: category ${cat} (${def.name}) needs exemptionReason, the legal ground printed on the invoice (e.g. "Exempt under Article 135(1)(g) of Directive 2006/112/EC")`,
    );
  if (def.exemptionReason === "refused" && reason !== undefined) {
    const taking = TAX_CATEGORY_CODES.filter((c) => taxCategoryDef(c).exemptionReason !== "refused");
    fail(`${where}: exemptionReason applies to categories ${taking.join(", ")}, not ${cat}`);
  }
  const ratePercent = rate ?? "0";
  return {
    category: cat,
    ratePercent,
    rate: Exact.parse(ratePercent)!.div(Exact.of(100n)),
    ...(reason ? { exemptionReason: reason } : {}),
  };
}

/**
 * The old form of a tax, a `taxes` list of `{ label, ratePercent }` added to the total: one entry
 * is the issuer's default tax, standard rated at that rate; more than one, or a rate of 0, has no
 * EN 16931 meaning and is refused with the new form to write instead.
 */
export function taxRuleOfOldList(value: unknown, where: string): TaxRule | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value))
    fail(
      `${where}: expected a list of { label, ratePercent }; write issuer.tax: { category: S, ratePercent: 19 } instead`,
    );
  if (value.length === 0) return undefined;
  const first = value[0] as Record<string, unknown> | null;
  if (value.length > 1 || first === null || typeof first !== "object") {
    fail(
      `${where}: an invoice has one VAT category per customer (EN 16931), not ${value.length} taxes added up: write issuer.tax: { category: S, ratePercent: N } and each customer's own tax under customers.<id>.tax`,
    );
  }
  const unknown = Object.keys(first).filter((k) => k !== "label" && k !== "ratePercent");
  if (unknown.length > 0) fail(`${where}[0]: unknown key ${unknown.join(", ")} (known: label, ratePercent)`);
  const rate = rateText(first.ratePercent, `${where}[0]`);
  if (rate === undefined || rate === "0")
    fail(
      `${where}[0].ratePercent: a rate above 0 (a 0% tax is a category: write issuer.tax: { category: Z } or E, AE, O)`,
    );
  return parseTaxRule({ category: "S", ratePercent: rate }, where);
}
