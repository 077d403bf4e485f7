import type ExcelJS from "exceljs";
import type { BillingReport } from "../../billing/billingReport.js";
import type { Invoice } from "../../billing/invoice.js";
import { addSheet, columnLetter, moneyFormat, moneyTotal, PRICE, setHeader, styleTotal, writeNote } from "./style.js";
import { titleLines, writeTitle } from "./summarySheet.js";
import { ALLOCATION_SENTENCE } from "../billingColumns.js";
import { unitDef } from "../../billing/unitCatalog.js";
import { periodText } from "../periodText.js";

/** Invoice quantities: 4 decimals, aligned (the cell keeps the exact value). */
const INVOICE_QUANTITY = "#,##0.0000";

/**
 * The Invoice sheet of an account's workbook: who and when, then one row per invoice line
 * (unit, description, quantity in the unit of the price, unit price, amount) and the amount
 * due: `ROUND(SUM(amounts))` whose stored value is the exact Σ of the rounded lines.
 */
export function writeInvoiceSheet(workbook: ExcelJS.stream.xlsx.WorkbookWriter, report: BillingReport, invoice: Invoice): void {
  const headerRow = 9;
  const sheet = addSheet(workbook, "Invoice", headerRow);
  sheet.columns = [{ width: 8 }, { width: 44 }, { width: 24 }, { width: 16 }, { width: 14 }, { width: 14 }, { width: 14 }, { width: 16 }];
  const who = `Account ${invoice.accountId}${invoice.name ? `: ${invoice.name}` : ""}`;
  writeTitle(sheet, `Statement of account ${invoice.accountId}`, [who, ...titleLines(report).slice(0, 1), ...titleLines(report).slice(2)]);
  const currency = invoice.currency;
  setHeader(sheet, ["unit", "description", "price period (UTC)", "quantity", "quantity unit", `unit price (${currency})`, "price per", `amount (${currency})`], headerRow);
  let r = headerRow + 1;
  for (const line of invoice.lines) {
    const row = sheet.getRow(r++);
    row.getCell(1).value = line.unit;
    row.getCell(2).value = unitDef(line.unit).label(report.options.units);
    row.getCell(3).value = periodText(line);
    row.getCell(4).value = line.quantity;
    row.getCell(4).numFmt = INVOICE_QUANTITY;
    row.getCell(5).value = line.quantityUnit;
    row.getCell(5).alignment = { indent: 1 };
    row.getCell(6).value = Number(line.unitPrice);
    row.getCell(6).numFmt = PRICE;
    row.getCell(7).value = line.priceUnit;
    row.getCell(7).alignment = { indent: 1 };
    row.getCell(8).value = line.amount.toNumber();
    row.getCell(8).numFmt = moneyFormat(invoice.decimals);
    row.commit();
  }
  const total = sheet.getRow(r++);
  total.getCell(1).value = `Amount due (${currency})`;
  const H = columnLetter(8);
  total.getCell(8).value = invoice.lines.length > 0 ? moneyTotal(`${H}${headerRow + 1}:${H}${r - 2}`, invoice.amountDue, invoice.decimals) : 0;
  total.getCell(8).numFmt = moneyFormat(invoice.decimals);
  styleTotal(total, 8);
  total.commit();
  r++;
  for (const text of [
    "Each amount is quantity × unit price, rounded half-even; the amount due is the sum of the rounded amounts.",
    "A line per unit and price period: where a price changes, the hours before and from the change are two lines.",
    "Quantities are shown to 4 decimals; each cell holds the exact quantity the amount is computed from.",
    "'Cloud spaces' and 'Machines' show each line's allocated cost per cloud space and machine (showback). " + ALLOCATION_SENTENCE,
  ]) writeNote(sheet, r++, text, 8);
  sheet.commit();
}
