import type ExcelJS from "exceljs";
import { Exact } from "../../billing/exact.js";
import type { BillingReport } from "../../billing/billingReport.js";
import type { Level } from "../../billing/levels.js";
import { billingColumns, type BillingColumn, type Cell } from "../billingColumns.js";

/** Number format of fractional unit quantities: up to 6 decimals, at least 1. */
export const QUANTITY = "#,##0.0#####";
/** Number format of whole quantities and counts: no decimals. */
export const COUNT = "#,##0";
/** Number format of unit prices: at least 2 decimals, up to 10. */
export const PRICE = "#,##0.00########";
/** Number format of hours: an Excel date-time (the values are UTC). */
export const DATE_TIME = "yyyy-mm-dd hh:mm";
/** Fill of header rows. */
export const HEADER_FILL: ExcelJS.Fill = { type: "pattern", pattern: "solid", fgColor: { argb: "FFD9E1F2" } };
/** Fill of totals rows. */
export const TOTAL_FILL: ExcelJS.Fill = { type: "pattern", pattern: "solid", fgColor: { argb: "FFF2F2F2" } };

/** The one font of the workbooks (every styled cell names it, so no reader substitutes another), with bold, italic or size. */
export function font(style: { bold?: boolean; italic?: boolean; size?: number } = {}): Partial<ExcelJS.Font> {
  return {
    name: "Calibri",
    family: 2,
    size: style.size ?? 11,
    ...(style.bold ? { bold: true } : {}),
    ...(style.italic ? { italic: true } : {}),
  };
}

/** A sheet printed on A4 landscape pages, every column on one page width, rows up to `frozenRows` frozen and repeated. */
export function addSheet(
  workbook: ExcelJS.stream.xlsx.WorkbookWriter,
  name: string,
  frozenRows: number,
): ExcelJS.Worksheet {
  return workbook.addWorksheet(name, {
    pageSetup: {
      orientation: "landscape",
      fitToPage: true,
      fitToWidth: 1,
      fitToHeight: 0,
      paperSize: 9,
      horizontalCentered: true,
      margins: { left: 0.4, right: 0.4, top: 0.6, bottom: 0.6, header: 0.3, footer: 0.3 },
      ...(frozenRows > 0 ? { printTitlesRow: `${frozenRows}:${frozenRows}` } : {}),
    },
    headerFooter: { oddFooter: `&L${name}&RPage &P of &N` },
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

/** A billing cell as an Excel value: money rounded half-even, ids as text, prices as numbers, times as dates. */
export function cellValue(cell: Cell, column: BillingColumn, decimals: number): ExcelJS.CellValue {
  if (cell === null) return null;
  if (cell instanceof Exact) return cell.round(decimals).toNumber();
  if (column.kind === "id") return String(cell);
  if (column.kind === "price") return typeof cell === "string" && /^\d+(\.\d+)?$/.test(cell) ? Number(cell) : cell;
  if (column.kind === "time" && typeof cell === "string") return new Date(cell);
  return cell;
}

/** The number format of a value of a column: whole quantities without decimals. */
export function formatOf(column: BillingColumn, decimals: number, value?: ExcelJS.CellValue): string | undefined {
  switch (column.kind) {
    case "id":
      return "@";
    case "quantity":
      return typeof value === "number" ? quantityFormat(value) : QUANTITY;
    case "count":
      return COUNT;
    case "price":
      return PRICE;
    case "money":
      return moneyFormat(decimals);
    case "time":
      return DATE_TIME;
    default:
      return undefined;
  }
}

/** Writes a billing cell: its value and number format. */
export function writeCell(cell: ExcelJS.Cell, value: ExcelJS.CellValue, column: BillingColumn, decimals: number): void {
  cell.value = value;
  const format = formatOf(column, decimals, value);
  if (format) cell.numFmt = format;
}

/** A sensible width for a column, from its kind and header. */
export function widthOf(column: BillingColumn): number {
  const byKind = { text: 14, id: 12, time: 17, count: 10, quantity: 14, price: 13, money: 13 }[column.kind];
  return Math.min(24, Math.max(byKind, Math.ceil(column.header.length * 0.45)));
}

/**
 * The columns of a level sheet: the billing columns without what the sheet's title or the
 * About sheet says once (level, period, CU rule: in the CU header), and without the ids of
 * levels below the sheet's.
 */
export function sheetColumns(
  report: BillingReport,
  level: Exclude<Level, "environment">,
  hourly = false,
): BillingColumn[] {
  const drop = new Set(["level", "period_start", "period_end", "cu_rollup"]);
  if (level === "account") drop.add("cloudspace_id").add("machine_id").add("allocated_cost");
  else drop.add("amount_due");
  if (level === "cloudspace") drop.add("machine_id");
  // Spaces, not underscores, in a sheet's headers, so they wrap between words.
  return billingColumns(report, hourly)
    .filter((c) => !drop.has(c.key))
    .map((c) => ({ ...c, header: c.header.replaceAll("_", " ") }));
}

/** Writes a bold, filled header row with an autofilter. */
export function setHeader(sheet: ExcelJS.Worksheet, headers: string[], headerRow: number): void {
  const row = sheet.getRow(headerRow);
  headers.forEach((h, i) => {
    const cell = row.getCell(i + 1);
    cell.value = h;
    cell.font = font({ bold: true });
    cell.fill = HEADER_FILL;
    cell.alignment = { wrapText: true, vertical: "top" };
  });
  row.height = 45;
  sheet.autoFilter = { from: { row: headerRow, column: 1 }, to: { row: headerRow, column: headers.length } };
}

/** Writes an italic note in row `r`, merged across `span` columns and wrapped, so a long sentence prints within the page. */
export function writeNote(sheet: ExcelJS.Worksheet, r: number, text: string, span: number): void {
  const width = sheet.columns.slice(0, span).reduce((a, c) => a + (c.width ?? 10), 0);
  sheet.mergeCells(r, 1, r, span);
  const row = sheet.getRow(r);
  row.getCell(1).value = text;
  row.getCell(1).font = font({ italic: true });
  row.getCell(1).alignment = { wrapText: true, vertical: "top" };
  row.height = 15 * Math.ceil((text.length * 1.1) / width);
  row.commit();
}

/** Marks a row as a totals row: bold, filled across `columns` columns. */
export function styleTotal(row: ExcelJS.Row, columns: number): void {
  for (let c = 1; c <= columns; c++) {
    const cell = row.getCell(c);
    cell.font = font({ bold: true });
    cell.fill = TOTAL_FILL;
  }
}

/** The number format of a quantity: no decimals when it is whole, else up to 6. */
export function quantityFormat(value: number): string {
  return Number.isInteger(value) ? COUNT : QUANTITY;
}

/** A money total: `ROUND(SUM(range), decimals)` with the exact Σ as its stored result. */
export function moneyTotal(range: string, sum: Exact, decimals: number): ExcelJS.CellFormulaValue {
  return { formula: `ROUND(SUM(${range}),${decimals})`, result: sum.toNumber() };
}
