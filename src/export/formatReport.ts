import type ExcelJS from "exceljs";
import { plainNumber } from "./plainNumber.js";
import { guardFormula } from "./toBillingCsv.js";
import type { ReportResult } from "../store/runReport.js";

/** A report output format. */
export type ReportFormat = "csv" | "json" | "xlsx";

const heading = (c: { title: string; unit?: string }): string => (c.unit ? `${c.title} (${c.unit})` : c.title);

/**
 * A report as CSV (RFC 4180, CRLF): a header of column names, then the rows; numbers with
 * all their digits and `.` decimals; text cells that a spreadsheet would run as a formula
 * get a leading `'`.
 */
export function reportToCsv(result: ReportResult): string {
  const cell = (value: unknown): string => {
    if (value === null || value === undefined) return "";
    const text = typeof value === "number" ? plainNumber(value) : guardFormula(String(value));
    return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
  };
  const lines = [result.columns.map((c) => cell(c.name)).join(",")];
  for (const row of result.rows) lines.push(result.columns.map((c) => cell(row[c.name])).join(","));
  return `${lines.join("\r\n")}\r\n`;
}

/** A report as JSON: `{ name, title, description, columns: [{ name, title, unit, format }], rows: [{...}] }`. */
export function reportToJson(result: ReportResult): string {
  return `${JSON.stringify(result, null, 2)}\n`;
}

/**
 * A report as an XLSX workbook: one sheet with the title, a header row of titles with
 * units (frozen, filterable), and the rows with each column's number format.
 */
export async function reportToXlsx(result: ReportResult): Promise<Uint8Array> {
  const { Workbook } = (await import("exceljs")).default; // loaded for XLSX only
  const workbook: ExcelJS.Workbook = new Workbook();
  const sheet = workbook.addWorksheet(result.name.slice(0, 31));
  sheet.addRow([result.title]).font = { bold: true, size: 13 };
  if (result.description) sheet.addRow([result.description]).font = { italic: true };
  const header = sheet.addRow(result.columns.map(heading));
  header.font = { bold: true };
  const headerRow = header.number;
  sheet.views = [{ state: "frozen", ySplit: headerRow }];
  for (const row of result.rows) sheet.addRow(result.columns.map((c) => row[c.name] ?? null));
  result.columns.forEach((c, i) => {
    const column = sheet.getColumn(i + 1);
    if (c.format) column.numFmt = c.format;
    const longest = result.rows.reduce(
      (n, row) => Math.max(n, typeof row[c.name] === "string" ? (row[c.name] as string).length : 12),
      0,
    );
    column.width = Math.min(40, Math.max(10, heading(c).length + 2, longest + 2));
  });
  if (result.rows.length > 0) {
    sheet.autoFilter = {
      from: { row: headerRow, column: 1 },
      to: { row: headerRow + result.rows.length, column: result.columns.length },
    };
  }
  return new Uint8Array(await workbook.xlsx.writeBuffer());
}
