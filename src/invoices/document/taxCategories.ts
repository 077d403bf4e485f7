/** Everything cloudunits knows of a VAT category: what a config must give, the words on the invoice, the e-invoice's shape. */
export interface TaxCategoryDef {
  /** Its name in words: `standard rated`, `reverse charge`. */
  name: string;
  /** What it asks of a config, in the list a wrong category is answered with: `needs exemptionReason`. */
  needs?: string;
  /**
   * Its rate: `above zero` (a `ratePercent` above 0 is required), `zero` (0%: a rate other than 0 is
   * refused) or `none` (0% in the figures, and the e-invoice carries no rate at all: EN 16931 BR-O-05).
   */
  rate: "above zero" | "zero" | "none";
  /** The config's `exemptionReason`: `required` (the legal ground, printed and carried), `optional`, or `refused` (EN 16931 BR-S-10, BR-Z-10). */
  exemptionReason: "required" | "optional" | "refused";
  /** The exemption reason its tax line carries when the config gives none. */
  defaultExemptionReason?: string;
  /** Its code of the VATEX list (the e-invoice's TaxExemptionReasonCode), where one code fits every invoice of the category. */
  vatex?: string;
  /**
   * The parties' VAT ids: `seller` (the issuer's is needed to issue, the customer's printed and carried
   * when given), `both` (the customer's too: its config entry is refused without one, and the category
   * cannot be the issuer's default), `none` (neither is carried, EN 16931 BR-O-02 to 04; the electronic
   * address identifies the parties, BR-CO-26).
   */
  vatIds: "seller" | "both" | "none";
  /** A tax line's label before its base (`VAT 19%`, `VAT reverse charge (0%)`): PDF, XLSX, dashboard. */
  label(ratePercent: string): string;
  /**
   * The legal mention printed in the document's notes (PDF) and carried as the e-invoice's note,
   * `<lead>: <words>` (none for S and Z); a credit note keeps its invoice's by the lead.
   */
  mention?: { lead: string; words(exemptionReason: string | undefined): string };
  /** Its line of docs/billing.md's list of categories (test/invoices/taxCategories.test.ts checks it is there). */
  docs: string;
}

/**
 * The VAT categories, each declared once (docs/billing.md, "VAT categories"): the statement config's
 * checks, the legal mention, the tax line's label and the e-invoice's TaxCategory are derived from
 * it. A category is its entry here and its line in the docs: `TaxCategory` is the catalog's keys, so
 * nothing else names a category and the compiler refuses one the catalog lacks.
 */
export const TAX_CATALOG = {
  S: {
    name: "standard rated",
    needs: "needs ratePercent",
    rate: "above zero",
    exemptionReason: "refused",
    vatIds: "seller",
    label: (ratePercent) => `VAT ${ratePercent}%`,
    docs: "- `S` standard rated: a `ratePercent` above 0; no `exemptionReason`.",
  },
  AE: {
    name: "reverse charge",
    needs: "the customer accounts for the VAT; needs the customer's vatId",
    rate: "zero",
    exemptionReason: "optional",
    defaultExemptionReason: "Reverse charge",
    vatex: "VATEX-EU-AE",
    vatIds: "both",
    label: () => "VAT reverse charge (0%)",
    mention: {
      lead: "Reverse charge",
      words: (reason) =>
        `VAT to be accounted for by the customer (Article 196 of Council Directive 2006/112/EC)${reason ? `; ${reason}` : ""}.`,
    },
    docs: '- `AE` reverse charge, 0%: a customer\'s (never `issuer.tax`), with its `vatId`; the invoice says "Reverse charge: VAT to be accounted for by the customer (Article 196 of Council Directive 2006/112/EC)", and the e-invoice carries the code VATEX-EU-AE.',
  },
  E: {
    name: "exempt",
    needs: "needs exemptionReason",
    rate: "zero",
    exemptionReason: "required",
    vatIds: "seller",
    label: () => "VAT exempt (0%)",
    mention: { lead: "Exempt from VAT", words: (reason) => `${reason}.` },
    docs: '- `E` exempt, 0%: needs `exemptionReason`, the legal ground; the invoice says "Exempt from VAT: " followed by it.',
  },
  Z: {
    name: "zero rated",
    rate: "zero",
    exemptionReason: "refused",
    vatIds: "seller",
    label: () => "VAT 0% (zero rated)",
    docs: "- `Z` zero rated, 0%; no `exemptionReason`.",
  },
  O: {
    name: "outside the scope of VAT",
    rate: "none",
    exemptionReason: "optional",
    defaultExemptionReason: "Not subject to VAT",
    vatex: "VATEX-EU-O",
    vatIds: "none",
    label: () => "Not subject to VAT",
    mention: { lead: "Not subject to VAT", words: (reason) => `${reason ?? "outside the scope of VAT"}.` },
    docs: '- `O` outside the scope of VAT, no rate: the issuer needs no `vatId`, and neither party\'s is carried in the e-invoice; the invoice says "Not subject to VAT: " and the `exemptionReason` (default "outside the scope of VAT"), the e-invoice the code VATEX-EU-O.',
  },
} as const satisfies Record<string, TaxCategoryDef>;

/** An EN 16931 VAT category (UNCL5305) of the catalog: standard, reverse charge, exempt, zero rated, outside the scope. */
export type TaxCategory = keyof typeof TAX_CATALOG;

/** The categories, in the order help and errors list them (the catalog's). */
export const TAX_CATEGORY_CODES = Object.keys(TAX_CATALOG) as readonly TaxCategory[];

/** The catalog entry of a category. */
export function taxCategoryDef(category: TaxCategory): TaxCategoryDef {
  return TAX_CATALOG[category];
}

/** Whether a text names a category of the catalog. */
export function isTaxCategory(value: unknown): value is TaxCategory {
  return typeof value === "string" && Object.hasOwn(TAX_CATALOG, value);
}

/** A category with what it asks, as a wrong category is answered: `S standard rated (needs ratePercent)`. */
export function taxCategoryText(category: TaxCategory): string {
  const def = taxCategoryDef(category);
  return `${category} ${def.name}${def.needs ? ` (${def.needs})` : ""}`;
}
