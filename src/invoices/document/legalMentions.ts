import { dateWords, hourWords } from "../../base/readableTime.js";
import type { TaxCategory } from "./invoiceDocument.js";
import type { TaxRule } from "./taxRule.js";

/** The exemption reason carried on a tax line of AE and O when the config gives none (E always has its own). */
export function defaultExemptionReason(category: TaxCategory): string | undefined {
  if (category === "AE") return "Reverse charge";
  if (category === "O") return "Not subject to VAT";
  return undefined;
}

/** The legal mention a tax needs on the invoice: reverse charge, exemption, outside the scope; none for S and Z. */
export function taxMention(tax: TaxRule): string | undefined {
  switch (tax.category) {
    case "AE":
      return `Reverse charge: VAT to be accounted for by the customer (Article 196 of Council Directive 2006/112/EC)${tax.exemptionReason ? `; ${tax.exemptionReason}` : ""}.`;
    case "E":
      return `Exempt from VAT: ${tax.exemptionReason}.`;
    case "O":
      return `Not subject to VAT: ${tax.exemptionReason ?? "outside the scope of VAT"}.`;
    default:
      return undefined;
  }
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
