import { UsageError } from "../base/errors.js";
import type { InvoiceDocument } from "./document/invoiceDocument.js";

/** An issued invoice whose figures the price list now gives in another currency. */
export interface CurrencyChange {
  issued: Pick<InvoiceDocument, "number" | "accountId" | "currency" | "gross">;
  /** The currency its figures come out in now, and their net amount in it (before tax). */
  currency: string;
  net: string;
}

/**
 * Throws a UsageError (code CURRENCY_CHANGED, exit 2) when the figures of issued invoices now come
 * out in another currency than they were issued in: a credit note or correction is in the currency
 * of the document it corrects, so a customer's currency changes only from a month not issued yet.
 */
export function refuseCurrencyChange(changes: readonly CurrencyChange[], prices: string): void {
  if (changes.length === 0) return;
  const what = changes.map(
    (c) =>
      `${c.issued.number} (account ${c.issued.accountId}) was issued in ${c.issued.currency} (amount due ${c.issued.gross} ${c.issued.currency}); ${prices} now prices it in ${c.currency} (net ${c.net} ${c.currency})`,
  );
  throw new UsageError(
    `${what.join("; ")}: a currency changes only from a month that has not been issued; ` +
      `issue and correct this month with a price list that prices the customer in ${changes[0]!.issued.currency}, and give the new currency from the next month not issued`,
    { code: "CURRENCY_CHANGED" },
  );
}
