import type ExcelJS from "exceljs";
import type { BillingReport } from "../../billing/billingReport.js";
import { lineDescription } from "../../invoices/document/buildInvoiceDocument.js";
import type { Invoice } from "../../billing/invoice.js";
import type { DraftDocument, InvoiceDocument } from "../../invoices/document/invoiceDocument.js";
import { periodWords } from "../../base/readableTime.js";
import { missingHoursMention } from "../../invoices/document/legalMentions.js";
import { documentWords, grossLabel, taxLabel } from "../../invoices/document/documentWords.js";
import { missingHoursOf } from "../../invoices/document/draftDocument.js";
import { contractSheetLines } from "./contractSheetLines.js";
import { addSheet, font, moneyFormat, PRICE, setHeader, styleTotal, writeNote } from "./style.js";

/** Invoice quantities: 4 decimals, aligned (the cell keeps the exact value). */
const INVOICE_QUANTITY = "#,##0.0000";
const COLUMNS = 8;
/**
 * The widths of the sheet's columns: unit, description, price period, quantity, its unit, unit price, price per, net.
 */
const COLUMN_WIDTHS = [8, 44, 30, 16, 14, 14, 14, 16];

/** One line as the sheet shows it: the figures as numbers, the words as text. */
interface SheetLine {
  unit: string;
  description: string;
  period: string;
  quantity: number;
  quantityUnit: string;
  unitPrice: number;
  priceUnit: string;
  net: number;
}

/** The head: the title, then each fact and both parties as label and value. */
function writeHead(sheet: ExcelJS.Worksheet, title: string, facts: readonly [string, string][]): number {
  const row = sheet.getRow(1);
  row.getCell(1).value = title;
  row.getCell(1).font = font({ bold: true, size: 14 });
  row.height = 20;
  row.commit();
  facts.forEach(([label, value], i) => {
    const r = sheet.getRow(2 + i);
    r.getCell(1).value = label;
    r.getCell(1).font = font({ bold: true });
    r.getCell(3).value = value;
    r.commit();
  });
  return 2 + facts.length + 1;
}

function writeLine(row: ExcelJS.Row, l: SheetLine, decimals: number): void {
  const cells: [ExcelJS.CellValue, string?][] = [
    [l.unit],
    [l.description],
    [l.period],
    [l.quantity, INVOICE_QUANTITY],
    [l.quantityUnit],
    [l.unitPrice, PRICE],
    [l.priceUnit],
    [l.net, moneyFormat(decimals)],
  ];
  cells.forEach(([value, format], i) => {
    row.getCell(i + 1).value = value;
    if (format) row.getCell(i + 1).numFmt = format;
  });
  for (const c of [5, 7]) row.getCell(c).alignment = { indent: 1 };
  row.commit();
}

/** A total row: the label under the description, the figure under the net amounts. */
function writeTotal(
  sheet: ExcelJS.Worksheet,
  r: number,
  label: string,
  amount: number,
  decimals: number,
  bold: boolean,
): void {
  const row = sheet.getRow(r);
  row.getCell(2).value = label;
  row.getCell(8).value = amount;
  row.getCell(8).numFmt = moneyFormat(decimals);
  if (bold) styleTotal(row, COLUMNS);
  row.commit();
}

/** The sheet's lines: the document's (its contract lines after them) when there is one, else the invoice's. */
function sheetLines(report: BillingReport, invoice: Invoice, document?: InvoiceDocument | DraftDocument): SheetLine[] {
  if (document)
    return document.lines
      .map((l) => ({
        unit: l.unit,
        description: l.description,
        period: periodWords(l.start, l.end),
        quantity: Number(l.quantity),
        quantityUnit: l.quantityUnit,
        unitPrice: Number(l.unitPrice),
        priceUnit: l.priceUnit,
        net: Number(l.net),
      }))
      .concat(contractSheetLines(document));
  return invoice.lines.map((l) => ({
    unit: l.unit,
    description: lineDescription(l.unit, report.options.units),
    period: periodWords(l.start, l.end),
    quantity: l.quantity,
    quantityUnit: l.quantityUnit,
    unitPrice: Number(l.unitPrice),
    priceUnit: l.priceUnit,
    net: l.amount.toNumber(),
  }));
}

/**
 * The notes under the totals: the document's (notes, payment, rounding), else what a sheet without a statement config
 * says.
 */
function sheetNotes(
  report: BillingReport,
  invoice: Invoice,
  words: ReturnType<typeof documentWords> | undefined,
): string[] {
  if (words) return [...words.notes, ...words.payment, words.rounding];
  return [
    ...[missingHoursMention(missingHoursOf(report, invoice.accountId))].filter((n): n is string => n !== undefined),
    "No statement config was given: VAT and the amount due are on the invoice, with the customer's tax.",
    "Each net amount is quantity × unit price, rounded half-even; the net total is the sum of the rounded lines.",
  ];
}

/**
 * The Invoice sheet of an account's workbook, what the customer reads (values, no formula): with
 * its document (an issued invoice or credit note from the register, or a draft) the title, number,
 * dates, period, parties, one row per line, the net amount, each tax line and the amount due (the
 * gross), the notes and the payment; without one (no statement config), the lines and their net
 * total, and no amount due, since the tax is not known.
 */
export function writeInvoiceSheet(
  workbook: ExcelJS.stream.xlsx.WorkbookWriter,
  report: BillingReport,
  invoice: Invoice,
  document?: InvoiceDocument | DraftDocument,
): void {
  const words = document ? documentWords(document) : undefined;
  const facts: [string, string][] = words
    ? [...words.facts, ["From", words.issuer.name], ["Bill to", words.customer.name]]
    : [
        ["Account", `${invoice.accountId}${invoice.name ? `: ${invoice.name}` : ""}`],
        ["Period", periodWords(invoice.start, invoice.end)],
      ];
  const headerRow = 2 + facts.length + 1;
  const sheet = addSheet(workbook, "Invoice", headerRow);
  sheet.columns = COLUMN_WIDTHS.map((width) => ({ width }));
  writeHead(
    sheet,
    words ? (words.draft ? `${words.title} (DRAFT)` : words.title) : `Charges of account ${invoice.accountId}`,
    facts,
  );
  // an issued document keeps the currency it was issued in, whatever price list this report was made with
  const currency = document?.currency ?? invoice.currency;
  const decimals = document?.decimals ?? invoice.decimals;
  setHeader(
    sheet,
    [
      "unit",
      "description",
      "price period",
      "quantity",
      "quantity unit",
      `unit price (${currency})`,
      "price per",
      `net amount (${currency})`,
    ],
    headerRow,
  );
  const lines = sheetLines(report, invoice, document);
  let r = headerRow + 1;
  for (const line of lines) writeLine(sheet.getRow(r++), line, decimals);
  r++;
  writeTotal(
    sheet,
    r++,
    `Net amount, excluding VAT (${currency})`,
    document ? Number(document.net) : invoice.amountDue.toNumber(),
    decimals,
    !document,
  );
  if (document) {
    for (const t of document.taxes) writeTotal(sheet, r++, taxLabel(t), Number(t.amount), decimals, false);
    writeTotal(sheet, r++, grossLabel(document.kind, currency), Number(document.gross), decimals, true);
  }
  r++;
  for (const text of sheetNotes(report, invoice, words)) writeNote(sheet, r++, text, COLUMNS);
  sheet.commit();
}
