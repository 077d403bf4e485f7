import { Exact } from "../../billing/exact.js";
import type { DocumentLine, TaxLine } from "./invoiceDocument.js";

/**
 * The tax lines of a document's lines: one per category and rate, in the order they first appear;
 * its base is Σ of those lines' net, its amount base × rate / 100 rounded half-even at the
 * currency's decimals (EN 16931: tax per category, not per line). `reasons`: the exemption reason
 * of a category (E, AE, O), carried on its tax line.
 */
export function documentTaxes(
  lines: readonly Pick<DocumentLine, "taxCategory" | "taxRatePercent" | "net">[],
  decimals: number,
  reasons: Partial<Record<string, string>> = {},
): TaxLine[] {
  const groups = new Map<string, { category: DocumentLine["taxCategory"]; ratePercent: string; base: Exact }>();
  for (const line of lines) {
    const key = `${line.taxCategory} ${line.taxRatePercent}`;
    const group = groups.get(key) ?? { category: line.taxCategory, ratePercent: line.taxRatePercent, base: Exact.ZERO };
    group.base = group.base.add(line.net);
    groups.set(key, group);
  }
  return [...groups.values()].map((g) => {
    const amount = g.base.mul(Exact.parse(g.ratePercent)!).div(Exact.of(100n));
    const reason = reasons[g.category];
    return {
      category: g.category,
      ratePercent: g.ratePercent,
      base: g.base.fixed(decimals),
      amount: amount.fixed(decimals),
      ...(reason ? { exemptionReason: reason } : {}),
    };
  });
}

/** Σ of amounts, written at `decimals` (`"0.00"` when none). */
export function sumOf(amounts: readonly Exact[], decimals: number): Exact {
  return amounts.reduce((a, t) => a.add(t), Exact.ZERO).fixed(decimals);
}
