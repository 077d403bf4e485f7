import ExcelJS from "exceljs";
import { Exact } from "../../billing/exact.js";
import type { BillingReport } from "../../billing/billingReport.js";
import type { Level } from "../../billing/lines.js";
import { billingColumns, type BillingColumn, type Cell } from "../billingColumns.js";

/** Number format of unit quantities (unit-hours or unit-months). */
export const QUANTITY = "#,##0.000000";
/** Number format of counts (sample hours). */
export const COUNT = "#,##0";
/** Number format of unit prices: at least 2 decimals, up to 10. */
export const PRICE = "#,##0.00########";
/** Fill of header rows. */
export const HEADER_FILL: ExcelJS.Fill = { type: "pattern", pattern: "solid", fgColor: { argb: "FFD9E1F2" } };
/** Fill of totals rows. */
export const TOTAL_FILL: ExcelJS.Fill = { type: "pattern", pattern: "solid", fgColor: { argb: "FFF2F2F2" } };

/** A sheet printed on landscape pages, every column on one page width, rows up to `frozenRows` frozen. */
export function addSheet(workbook: ExcelJS.stream.xlsx.WorkbookWriter, name: string, frozenRows: number): ExcelJS.Worksheet {
  return workbook.addWorksheet(name, {
    pageSetup: { orientation: "landscape", fitToPage: true, fitToWidth: 1, fitToHeight: 0, paperSize: 9 },
    views: frozenRows > 0 ? [{ state: "frozen", ySplit: frozenRows, xSplit: 0 }] : [],
  });
}

/** The money format for a currency's decimals. */
export const moneyFormat = (decimals: number) => (decimals === 0 ? "#,##0" : `#,##0.${"0".repeat(decimals)}`);

/** Excel's column letters of a 1-based column index (1 → A, 27 → AA). */
export function columnLetter(index: number): string {
  let s = "";
  for (let n = index; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}

/** A billing cell as an Excel value: money rounded half-even, ids as text, prices as numbers. */
export function cellValue(cell: Cell, column: BillingColumn, decimals: number): ExcelJS.CellValue {
  if (cell === null) return null;
  if (cell instanceof Exact) return cell.round(decimals).toNumber();
  if (column.kind === "id") return String(cell);
  if (column.kind === "price") return Number(cell);
  return cell;
}

/** The number format of a column. */
export function formatOf(column: BillingColumn, decimals: number): string | undefined {
  switch (column.kind) {
    case "id": return "@";
    case "quantity": return QUANTITY;
    case "count": return COUNT;
    case "price": return PRICE;
    case "money": return moneyFormat(decimals);
    default: return undefined;
  }
}

/** A sensible width for a column, from its kind and header. */
export function widthOf(column: BillingColumn): number {
  const byKind = { text: 14, id: 14, time: 22, count: 14, quantity: 16, price: 14, money: 14 }[column.kind];
  return Math.min(30, Math.max(byKind, Math.ceil(column.header.length * 0.6)));
}

/**
 * The columns of a level sheet: the billing columns without what the sheet's title or the
 * About sheet says once (level, period, CU rule: in the CU header), and without the ids of
 * levels below the sheet's.
 */
export function sheetColumns(report: BillingReport, level: Exclude<Level, "environment">, hourly = false): BillingColumn[] {
  const drop = new Set(["level", "period_start", "period_end", "cu_rollup"]);
  if (level === "account") drop.add("cloudspace_id").add("machine_id");
  if (level === "cloudspace") drop.add("machine_id");
  return billingColumns(report, hourly)
    .filter((c) => !drop.has(c.key))
    .map((c) => (c.key === "CU" ? { ...c, header: c.header.replace(")", `, ${report.options.cuRollup} rollup)`) } : c));
}

/** Writes a bold, filled header row with an autofilter. */
export function setHeader(sheet: ExcelJS.Worksheet, headers: string[], headerRow: number): void {
  const row = sheet.getRow(headerRow);
  headers.forEach((h, i) => {
    const cell = row.getCell(i + 1);
    cell.value = h;
    cell.font = { bold: true };
    cell.fill = HEADER_FILL;
    cell.alignment = { wrapText: true, vertical: "top" };
  });
  row.height = 45;
  sheet.autoFilter = { from: { row: headerRow, column: 1 }, to: { row: headerRow, column: headers.length } };
}
