import type ExcelJS from "exceljs";
import type { BillingReport } from "../../billing/billingReport.js";
import type { BillingLine } from "../../billing/lines.js";
import { checkHourlyOf, type HourlyStream } from "../../billing/hourlyStream.js";
import { billingColumns } from "../billingColumns.js";
import { addSheet, cellValue, formatOf, setHeader, widthOf } from "./style.js";

/** Excel's last row: a sheet holds the header and at most this many rows minus one. */
export const EXCEL_MAX_ROWS = 1_048_576;

/**
 * The Hourly sheet: one row per entity, level and hour (quantities only; hours as Excel
 * date-times in UTC), streamed row by row, or a note pointing to CSV/Parquet when the lines
 * do not fit in `maxRows`.
 */
export async function writeHourlySheet(
  workbook: ExcelJS.stream.xlsx.WorkbookWriter, report: BillingReport, hourly: HourlyStream, maxRows: number,
): Promise<void> {
  const sheet = addSheet(workbook, "Hourly", 1);
  checkHourlyOf(hourly, report);
  const count = await hourly.count();
  if (count > maxRows) {
    sheet.columns = [{ width: 120 }];
    const row = sheet.getRow(1);
    row.getCell(1).value = `${count.toLocaleString("en")} hourly lines do not fit Excel's ${EXCEL_MAX_ROWS.toLocaleString("en")} rows: use --format csv --detail hourly, or --format focus-parquet`;
    row.commit();
    sheet.commit();
    return;
  }
  const decimals = report.prices?.decimals ?? 2;
  // Quantities only: hourly amounts rounded to cents say little; the period sheets and FOCUS carry the money.
  const columns = billingColumns({ ...report, prices: undefined }, true).filter((c) => c.key !== "cu_rollup");
  // Formats per column, not per cell (a style per cell is most of exceljs's time): quantities in
  // General, which shows whole numbers without decimals and fractions as they are.
  sheet.columns = columns.map((c) => {
    const format = c.kind === "quantity" ? undefined : formatOf(c, decimals);
    return { key: c.key, width: widthOf(c), ...(format ? { style: { numFmt: format } } : {}) };
  });
  setHeader(sheet, columns.map((c) => c.header), 1);
  let r = 2;
  for await (const batch of hourly.lines()) {
    for (const line of batch as BillingLine[]) {
      const row = sheet.getRow(r++);
      columns.forEach((c, k) => { row.getCell(k + 1).value = cellValue(c.value(line, undefined), c, decimals); });
      row.commit();
    }
  }
  sheet.commit();
}

