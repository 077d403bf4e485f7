import type { InvoiceDocument } from "../billing/invoiceDocument.js";
import { eInvoiceProblems, type StatementConfig } from "../billing/statementConfig.js";
import { renderInvoicePdf } from "../export/pdf/invoicePdf.js";
import { renderUbl } from "../export/ubl/renderUbl.js";
import type { IssuedFile } from "../store/appendToRegister.js";

/**
 * The files of an issued document, named by its number: `<number>.pdf`, what the customer reads,
 * and `<number>.xml`, its UBL 2.1 Invoice or CreditNote (Peppol BIS Billing 3.0). When the config
 * lacks what the e-invoice's rules ask of this customer (`eInvoiceProblems`: an invoice between
 * German parties without the issuer's contact and IBAN), the XML is left out, as one that a
 * receiving access point would reject, and `onWarning` says what to add. `onWarning` is also told
 * what the PDF could not print as written (a character no font has).
 */
export async function documentFiles(document: InvoiceDocument, config: StatementConfig, onWarning?: (message: string) => void): Promise<IssuedFile[]> {
  const pdf = { name: `${document.number}.pdf`, bytes: await renderInvoicePdf(document, { onWarning }) };
  const problems = eInvoiceProblems(config, document.accountId);
  if (problems.length === 0) return [pdf, { name: `${document.number}.xml`, bytes: renderUbl(document) }];
  onWarning?.(
    `${document.number}: issued as its PDF alone, without the e-invoice ${document.number}.xml: Peppol's rules for an invoice between German parties ` +
      `need what ${config.source} lacks: ${problems.join("; ")} (add them for the next invoices)`,
  );
  return [pdf];
}
