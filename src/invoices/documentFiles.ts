import type { InvoiceDocument } from "./document/invoiceDocument.js";
import { renderInvoicePdf } from "./render/pdf/invoicePdf.js";
import { renderUbl } from "./render/ubl/renderUbl.js";
import type { IssuedFile } from "./register/appendToRegister.js";

/**
 * The files of an issued document, named by its number: `<number>.pdf`, what the customer reads,
 * and `<number>.xml`, its UBL 2.1 Invoice or CreditNote (Peppol BIS Billing 3.0). What the
 * e-invoice's rules ask of the config was checked before the number was given (`preflight`).
 * `onWarning` is told what the PDF could not print as written (a character no font has).
 */
export async function documentFiles(
  document: InvoiceDocument,
  onWarning?: (message: string) => void,
): Promise<IssuedFile[]> {
  return [
    { name: `${document.number}.pdf`, bytes: await renderInvoicePdf(document, { onWarning }) },
    { name: `${document.number}.xml`, bytes: renderUbl(document) },
  ];
}
