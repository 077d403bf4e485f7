import { amountDue } from "../../../invoices/document/contractLines.js";
import type { InvoiceDocument } from "../../../invoices/document/invoiceDocument.js";

export { amountDue };

type Due = Pick<InvoiceDocument, "gross" | "prepaid" | "decimals">;

/** ", after prepaid credit 500.00 of 1007.47" when prepaid credit paid part of it (what is left to pay is then not its total), else "". */
export function lessPrepaid(d: Due): string {
  return d.prepaid === undefined ? "" : `, after prepaid credit ${d.prepaid.amount} of ${d.gross}`;
}

/** "amount due 507.47 EUR (after prepaid credit 500.00 of 1007.47; net 846.61, tax 160.86)": what is left to pay, as the PDF and the e-invoice say it (gross − prepaid). */
export function dueWords(d: Due & Pick<InvoiceDocument, "net" | "tax" | "currency">): string {
  const prepaid = d.prepaid === undefined ? "" : `after prepaid credit ${d.prepaid.amount} of ${d.gross}; `;
  return `amount due ${amountDue(d)} ${d.currency} (${prepaid}net ${d.net}, tax ${d.tax})`;
}
