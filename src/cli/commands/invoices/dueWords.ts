import { amountDue } from "../../../invoices/document/contractLines.js";
import type { InvoiceDocument } from "../../../invoices/document/invoiceDocument.js";

export { amountDue };

type Due = Pick<InvoiceDocument, "gross" | "prepaid" | "decimals">;

/** "after prepaid credit 500.00 of 1007.47" when prepaid credit paid part of it (what is left to pay is then not its total). */
function prepaidWords(d: Due): string | undefined {
  return d.prepaid === undefined ? undefined : `after prepaid credit ${d.prepaid.amount} of ${d.gross}`;
}

/** ", after prepaid credit 500.00 of 1007.47" when prepaid credit paid part of it, else "". */
export function lessPrepaid(d: Due): string {
  const words = prepaidWords(d);
  return words === undefined ? "" : `, ${words}`;
}

/** "amount due 507.47 EUR (after prepaid credit 500.00 of 1007.47; net 846.61, tax 160.86)": what is left to pay, as the PDF and the e-invoice say it (gross − prepaid). */
export function dueWords(d: Due & Pick<InvoiceDocument, "net" | "tax" | "currency">): string {
  const words = prepaidWords(d);
  return `amount due ${amountDue(d)} ${d.currency} (${words === undefined ? "" : `${words}; `}net ${d.net}, tax ${d.tax})`;
}
