import { dateWords, periodWords } from "../../../base/readableTime.js";
import type { InvoiceDocument } from "../../document/invoiceDocument.js";
import { taxCategoryDef } from "../../document/taxCategories.js";
import { ublLine } from "./ublLine.js";
import { ublAllowances, ublShortfallLine } from "./ublContract.js";
import { allowancesTotal, amountDue, linesTotal } from "../../document/contractLines.js";
import { ublParty } from "./ublParty.js";
import { isoDate, ublAmount, ublCategory } from "./ublValues.js";
import { xmlDocument, xmlText, type XmlNode } from "./xmlText.js";

const NS = {
  invoice: "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2",
  creditNote: "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2",
  cac: "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2",
  cbc: "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2",
} as const;

/** Peppol BIS Billing 3.0: the specification (EN 16931 compliant, Peppol's CIUS) and the business process. */
export const PEPPOL_CUSTOMIZATION_ID = "urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0";
export const PEPPOL_PROFILE_ID = "urn:fdc:peppol.eu:2017:poacc:billing:01:1.0";

function taxTotal(doc: InvoiceDocument, sign: 1 | -1): XmlNode {
  return {
    "cbc:TaxAmount": ublAmount(doc.tax, doc.currency, sign),
    "cac:TaxSubtotal": doc.taxes.map((t) => ({
      "cbc:TaxableAmount": ublAmount(t.base, doc.currency, sign),
      "cbc:TaxAmount": ublAmount(t.amount, doc.currency, sign),
      "cac:TaxCategory": ublCategory(t.category, t.ratePercent, {
        code: taxCategoryDef(t.category).vatex,
        text: t.exemptionReason ? xmlText(t.exemptionReason) : undefined,
      }),
    })),
  };
}

/**
 * The payment details: the remittance information (BT-83), which is the invoice's structured payment
 * reference, or the document's number on a credit note and on a document issued before references
 * were given; the IBAN and BIC of the `IBAN ...` and `BIC ...` payment lines (credit transfer, 30).
 * Without an IBAN, an invoice with a reference still carries it (payment means not defined, 1).
 */
function paymentMeans(doc: InvoiceDocument): XmlNode | undefined {
  const iban = doc.payment
    .map((l) => /^IBAN[:\s]\s*([A-Z]{2}\d{2}[A-Z0-9 ]+)$/i.exec(l)?.[1])
    .find((v) => v !== undefined);
  if (iban === undefined)
    return doc.paymentReference === undefined
      ? undefined
      : { "cbc:PaymentMeansCode": "1", "cbc:PaymentID": xmlText(doc.paymentReference) };
  const bic = doc.payment
    .map((l) => /^(?:BIC|SWIFT)[:\s]\s*([A-Z0-9]{8,11})$/i.exec(l)?.[1])
    .find((v) => v !== undefined);
  const account: XmlNode = { "cbc:ID": iban.replace(/\s+/g, "").toUpperCase() };
  if (bic) account["cac:FinancialInstitutionBranch"] = { "cbc:ID": bic.toUpperCase() };
  return {
    "cbc:PaymentMeansCode": "30",
    "cbc:PaymentID": xmlText(doc.paymentReference ?? doc.number),
    "cac:PayeeFinancialAccount": account,
  };
}

function paymentTerms(doc: InvoiceDocument): XmlNode {
  const days = Math.round(
    (Date.parse(`${doc.dueDate}T00:00:00Z`) - Date.parse(`${doc.issueDate}T00:00:00Z`)) / 86_400_000,
  );
  const note =
    doc.kind === "creditNote"
      ? `Credited to the customer against invoice ${doc.corrects?.number ?? ""}`.trim()
      : `Payment within ${days} days, by ${dateWords(doc.dueDate)}`;
  return { "cbc:Note": xmlText(note) };
}

/** The totals (BG-22): lines (and a shortfall line), less allowances, is the net; with tax the gross; less prepaid credit, the amount due. */
function monetaryTotal(doc: InvoiceDocument, sign: 1 | -1): XmlNode {
  const node: XmlNode = {
    "cbc:LineExtensionAmount": ublAmount(linesTotal(doc), doc.currency, sign),
    "cbc:TaxExclusiveAmount": ublAmount(doc.net, doc.currency, sign),
    "cbc:TaxInclusiveAmount": ublAmount(doc.gross, doc.currency, sign),
  };
  if (doc.allowances) node["cbc:AllowanceTotalAmount"] = ublAmount(allowancesTotal(doc), doc.currency, sign);
  if (doc.prepaid) node["cbc:PrepaidAmount"] = ublAmount(doc.prepaid.amount, doc.currency, sign);
  node["cbc:PayableAmount"] = ublAmount(amountDue(doc), doc.currency, sign);
  return node;
}

/** The document's head, in UBL 2.1's order: identification, dates, type, note, currency, references. */
function head(doc: InvoiceDocument): XmlNode {
  const credit = doc.kind === "creditNote";
  const node: XmlNode = {
    "cbc:CustomizationID": PEPPOL_CUSTOMIZATION_ID,
    "cbc:ProfileID": PEPPOL_PROFILE_ID,
    "cbc:ID": xmlText(doc.number),
    "cbc:IssueDate": doc.issueDate,
  };
  if (!credit) node["cbc:DueDate"] = doc.dueDate;
  node[credit ? "cbc:CreditNoteTypeCode" : "cbc:InvoiceTypeCode"] = credit ? "381" : "380";
  // Peppol allows one note (PEPPOL-EN16931-R002): the legal mentions, one a line
  const notes = [
    ...doc.notes,
    ...(doc.start % 86_400 !== 0 || doc.end % 86_400 !== 0 ? [`Period: ${periodWords(doc.start, doc.end)}.`] : []),
  ];
  if (notes.length > 0) node["cbc:Note"] = xmlText(notes.join("\n"));
  node["cbc:DocumentCurrencyCode"] = doc.currency;
  // BT-6: the VAT accounting currency, when the VAT total is also given in it (BT-111)
  if (doc.taxInAccountingCurrency) node["cbc:TaxCurrencyCode"] = doc.taxInAccountingCurrency.currency;
  node["cbc:BuyerReference"] = xmlText(doc.customer.reference);
  node["cac:InvoicePeriod"] = { "cbc:StartDate": isoDate(doc.start), "cbc:EndDate": isoDate(doc.end - 1) };
  if (doc.corrects)
    node["cac:BillingReference"] = {
      "cac:InvoiceDocumentReference": {
        "cbc:ID": xmlText(doc.corrects.number),
        "cbc:IssueDate": doc.corrects.issueDate,
      },
    };
  return node;
}

/**
 * An issued document as a UBL 2.1 Invoice or CreditNote of Peppol BIS Billing 3.0 (EN 16931), as
 * UTF-8 bytes: the number, issue and due dates, the legal mentions as its note, the buyer
 * reference, the billed period, on a credit note the invoice it cancels, both parties with their
 * electronic addresses and VAT ids, the payment account, the VAT breakdown per category, the
 * totals (PayableAmount is the gross, the amount due) and one line per document line. A credit
 * note carries its amounts positive, as its kind already says they are credited. Built with
 * xmlbuilder2, which escapes every text; the same document gives the same bytes.
 */
export function renderUbl(doc: InvoiceDocument): Buffer {
  const credit = doc.kind === "creditNote";
  const sign = credit ? -1 : 1;
  const category = doc.taxes[0]?.category ?? doc.lines[0]?.taxCategory ?? "S";
  const body: XmlNode = {
    "@xmlns": credit ? NS.creditNote : NS.invoice,
    "@xmlns:cac": NS.cac,
    "@xmlns:cbc": NS.cbc,
    ...head(doc),
    "cac:AccountingSupplierParty": { "cac:Party": ublParty(doc.issuer, category) },
    "cac:AccountingCustomerParty": { "cac:Party": ublParty(doc.customer, category) },
  };
  const means = paymentMeans(doc);
  if (means) body["cac:PaymentMeans"] = means;
  body["cac:PaymentTerms"] = paymentTerms(doc);
  if (doc.allowances) body["cac:AllowanceCharge"] = ublAllowances(doc, sign);
  const accounting = doc.taxInAccountingCurrency;
  // BT-111: a second TaxTotal with the VAT total in the accounting currency alone
  body["cac:TaxTotal"] = accounting
    ? [taxTotal(doc, sign), { "cbc:TaxAmount": ublAmount(accounting.amount, accounting.currency, sign) }]
    : taxTotal(doc, sign);
  body["cac:LegalMonetaryTotal"] = monetaryTotal(doc, sign);
  const shortfall = ublShortfallLine(doc, sign);
  body[credit ? "cac:CreditNoteLine" : "cac:InvoiceLine"] = [
    ...doc.lines.map((line, i) => ublLine(doc, line, i)),
    ...(shortfall ? [shortfall] : []),
  ];
  const xml = xmlDocument(credit ? "CreditNote" : "Invoice", body);
  return Buffer.from(`${xml}\n`, "utf8");
}
