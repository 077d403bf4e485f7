import { dateWords, hourWords } from "../../base/readableTime.js";
import { TAX_CATEGORY_CODES, taxCategoryDef, type TaxCategory } from "./taxCategories.js";
import type { TaxRule } from "./taxRule.js";

/** The exemption reason carried on a tax line when the config gives none (the catalog's: AE and O; E always has its own). */
export function defaultExemptionReason(category: TaxCategory): string | undefined {
  return taxCategoryDef(category).defaultExemptionReason;
}

/** The legal mention a tax needs on the invoice (the catalog's: reverse charge, exemption, outside the scope; none for S and Z). */
export function taxMention(tax: TaxRule): string | undefined {
  const mention = taxCategoryDef(tax.category).mention;
  return mention && `${mention.lead}: ${mention.words(tax.exemptionReason)}`;
}

/** Whether a note of a document is the legal mention of a tax (begins with a catalog mention's lead), which its credit note repeats. */
export function isTaxMention(note: string): boolean {
  return TAX_CATEGORY_CODES.some((c) => {
    const lead = taxCategoryDef(c).mention?.lead;
    return lead !== undefined && note.startsWith(`${lead}:`);
  });
}

/** Runs of consecutive hours `[start, end)` from hours ascending (epoch seconds). */
function hourRuns(hours: readonly number[]): { start: number; end: number }[] {
  const runs: { start: number; end: number }[] = [];
  for (const h of hours) {
    const last = runs[runs.length - 1];
    if (last && last.end === h) last.end = h + 3600;
    else runs.push({ start: h, end: h + 3600 });
  }
  return runs;
}

/**
 * The mention of hours accepted as missing (`--accept-missing`): how many, and which, in words
 * (`15 Oct 2026 03:00 UTC`, runs as `from – to`), at most 8 runs then `and N more`.
 */
export function missingHoursMention(hours: readonly number[]): string | undefined {
  if (hours.length === 0) return undefined;
  const runs = hourRuns(hours).map((r) =>
    r.end - r.start === 3600 ? hourWords(r.start) : `${hourWords(r.start)} – ${hourWords(r.end)}`,
  );
  const shown = runs.length > 8 ? [...runs.slice(0, 8), `and ${runs.length - 8} more`] : runs;
  const n = hours.length;
  return `${n} hour${n === 1 ? "" : "s"} of the period had no consumption data and ${n === 1 ? "is" : "are"} not charged: ${shown.join(", ")}.`;
}

/** The mention of a correction: on a credit note, the invoice it cancels; on the new invoice, the one it replaces; with the reason. */
export function correctionMention(
  kind: "invoice" | "creditNote",
  corrects: { number: string; issueDate: string },
  reason: string | undefined,
): string {
  const head =
    kind === "creditNote"
      ? `This credit note cancels invoice ${corrects.number} of ${dateWords(corrects.issueDate)} in full.`
      : `This invoice replaces invoice ${corrects.number} of ${dateWords(corrects.issueDate)}, cancelled by a credit note.`;
  return reason ? `${head} Reason: ${reason}` : head;
}
