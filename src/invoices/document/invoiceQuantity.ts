import { Exact } from "../../billing/exact.js";
import type { InvoiceLine } from "../../billing/invoice.js";

/**
 * The quantity of an invoice line as printed: the fewest decimals (at least `min`, trailing
 * zeros dropped) with which the printed quantity × the unit price rounds to the line's amount,
 * so that a reader's multiplication gives the amount shown; the full value when none shorter does.
 */
export function shownQuantity(
  line: Pick<InvoiceLine, "quantity" | "unitPrice" | "amount">,
  decimals: number,
  min = 2,
): string {
  const price = Exact.parse(line.unitPrice)!;
  const full = Exact.fromNumber(line.quantity);
  for (let places = min; places <= 12; places++) {
    const text = full.toFixed(places);
    if (Exact.parse(text)!.mul(price).round(decimals).equals(line.amount))
      return text.includes(".") ? text.replace(/\.?0+$/, "") : text;
  }
  return full.toDecimalString() ?? full.toFixed(17);
}
