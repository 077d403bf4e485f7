import type ExcelJS from "exceljs";
import type { BillingReport } from "../../billing/billingReport.js";
import type { BillingLine } from "../../billing/lines.js";
import { checkHourlyOf, type HourlyStream } from "../../billing/hourlyStream.js";
import { refilledLinesOfRows } from "../../billing/hourlyRowLines.js";
import { billingColumns, type BillingColumn } from "../billingColumns.js";
import { addSheet, cellValue, formatOf, setHeader, widthOf } from "./style.js";

/** A column's Excel value of a line; a time column's is kept for the next line of the same hour (an hour's lines come together). */
function hourlyValue(column: BillingColumn, decimals: number): (line: BillingLine) => ExcelJS.CellValue {
  if (column.kind !== "time") return (line) => cellValue(column.value(line, undefined), column, decimals);
  let hour: number | null = Number.NaN;
  let value: ExcelJS.CellValue = null;
  return (line) => {
    if (line.hourEpoch !== hour) {
      hour = line.hourEpoch;
      value = cellValue(column.value(line, undefined), column, decimals);
    }
    return value;
  };
}

/** Excel's last row: a sheet holds the header and at most this many rows minus one. */
export const EXCEL_MAX_ROWS = 1_048_576;

/**
 * The Hourly sheet: one row per entity, level and hour (quantities only; hours as Excel
 * date-times in UTC), streamed row by row, or a note pointing to CSV/Parquet when the lines
 * do not fit in `maxRows`.
 */
export async function writeHourlySheet(
  workbook: ExcelJS.stream.xlsx.WorkbookWriter,
  report: BillingReport,
  hourly: HourlyStream,
  maxRows: number,
): Promise<void> {
  const sheet = addSheet(workbook, "Hourly", 1);
  checkHourlyOf(hourly, report);
  const count = await hourly.count();
  if (count > maxRows) {
    sheet.columns = [{ width: 120 }];
    const row = sheet.getRow(1);
    row.getCell(1).value =
      `${count.toLocaleString("en")} hourly lines do not fit Excel's ${EXCEL_MAX_ROWS.toLocaleString("en")} rows: use --format csv --detail hourly, or --format focus-parquet`;
    row.commit();
    sheet.commit();
    return;
  }
  const decimals = report.prices?.decimals ?? 2;
  // Quantities only: hourly amounts rounded to cents say little; the period sheets and FOCUS carry the money.
  const columns = billingColumns({ ...report, prices: undefined }, true).filter((c) => c.key !== "cu_rollup");
  // Formats per column, not per cell (a style per cell is most of exceljs's time): quantities in
  // General, which shows whole numbers without decimals and fractions as they are.
  const formats = columns.map((c) => (c.kind === "quantity" ? undefined : formatOf(c, decimals)));
  sheet.columns = columns.map((c, k) => ({
    key: c.key,
    width: widthOf(c),
    ...(formats[k] ? { style: { numFmt: formats[k] } } : {}),
  }));
  // each cell takes its column's style object, the same one every row: exceljs knows an object
  // it has seen (a cell's own merged copy was turned into its XML again for every cell)
  const styles = formats.map((format): Partial<ExcelJS.Style> => (format ? { numFmt: format } : {}));
  setHeader(
    sheet,
    columns.map((c) => c.header),
    1,
  );
  const values = columns.map((c) => hourlyValue(c, decimals));
  let r = 2;
  const write = (line: BillingLine) => {
    const row = sheet.getRow(r++);
    for (let k = 0; k < columns.length; k++) {
      const cell = row.getCell(k + 1);
      cell.value = values[k]!(line);
      cell.style = styles[k]!;
    }
    row.commit();
  };
  if (hourly.rows) {
    // one line object rewritten for every row: a cell's value is a number or text, nothing of the line is kept
    for await (const batch of refilledLinesOfRows(hourly.rows(), report.options))
      for (let i = 0; i < batch.count; i++) write(batch.line(i));
  } else {
    for await (const batch of hourly.lines()) for (const line of batch) write(line);
  }
  sheet.commit();
}
