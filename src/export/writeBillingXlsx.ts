import type { DuckDBConnection } from "@duckdb/node-api";
import ExcelJS from "exceljs";
import { createWriteStream } from "node:fs";
import { rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { BillingReport } from "../billing/billingReport.js";
import { writeAboutSheet } from "./xlsx/aboutSheet.js";
import { EXCEL_MAX_ROWS, writeHourlySheet } from "./xlsx/hourlySheet.js";
import { writeLevelSheet } from "./xlsx/levelSheet.js";
import { writeSummarySheet } from "./xlsx/summarySheet.js";

/** Excel's last row (re-exported from the Hourly sheet). */
export { EXCEL_MAX_ROWS };

/** Options of the billing workbook. */
export interface BillingXlsxOptions {
  /** Most hourly lines the Hourly sheet holds before it becomes a note (default: Excel's limit minus the header). */
  maxHourlyRows?: number;
}

/**
 * Writes the billing workbook a finance team hands to an auditor, atomically (temporary
 * file, then rename): Summary (per account: units and amounts, totals), Accounts, Cloud
 * spaces, Machines (one row per entity, a totals row, and check rows against the level
 * above with the reason of any expected difference), Hourly (when it fits Excel's rows)
 * and About (period, inputs and hashes, rules, data quality). Numbers are real numbers
 * with number formats; ids are text; header rows are frozen and filtered.
 */
export async function writeBillingXlsx(
  report: BillingReport, connection: DuckDBConnection, file: string, options: BillingXlsxOptions = {},
): Promise<void> {
  const temp = join(dirname(file), `.${basename(file)}.${process.pid}.${Date.now()}.tmp`);
  const stream = createWriteStream(temp);
  try {
    const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream, useStyles: true, useSharedStrings: false });
    workbook.creator = "cloudunits";
    workbook.created = new Date(report.generatedAtMs);
    writeSummarySheet(workbook, report);
    const accounts = writeLevelSheet(workbook, report, "account", undefined);
    const cloudspaces = writeLevelSheet(workbook, report, "cloudspace", accounts);
    writeLevelSheet(workbook, report, "machine", cloudspaces);
    await writeHourlySheet(workbook, report, connection, options.maxHourlyRows ?? EXCEL_MAX_ROWS - 1);
    writeAboutSheet(workbook, report);
    await workbook.commit();
    await rename(temp, file);
  } catch (error) {
    stream.destroy();
    await rm(temp, { force: true });
    throw error;
  }
}
