import type ExcelJS from "exceljs";
import type { BillingReport } from "../../billing/billingReport.js";
import { sumMoney, type LineMoney } from "../../billing/money.js";
import { isoUtc } from "../../time.js";
import { shownUnits } from "../billingColumns.js";
import { addSheet, cellValue, columnLetter, formatOf, setHeader, sheetColumns, TOTAL_FILL, widthOf } from "./style.js";

/**
 * The Summary sheet: title lines (period, units, rules, data quality), one row per account
 * with units and amounts, the totals row, the exact total rounded once, and the environment.
 */
export function writeSummarySheet(workbook: ExcelJS.stream.xlsx.WorkbookWriter, report: BillingReport): void {
  const sheet = addSheet(workbook, "Summary", 6);
  const decimals = report.prices?.decimals ?? 2;
  const currency = report.prices?.currency;
  const all = sheetColumns(report, "account");
  const keep = new Set(["account_id", "name", "sample_hours", ...shownUnits(report), "total", "sum_of_rounded_amounts"]);
  for (const c of all) if (c.key.endsWith("_amount")) keep.add(c.key);
  const columns = all.filter((c) => keep.has(c.key));
  sheet.columns = columns.map((c) => ({ key: c.key, width: Math.max(widthOf(c), c.key === "name" ? 28 : 0), style: formatOf(c, decimals) ? { numFmt: formatOf(c, decimals)! } : {} }));
  const per = report.options.per === "month" ? "unit-months (unit-hours / 720)" : "unit-hours";
  const title = sheet.getRow(1);
  title.getCell(1).value = "Billing summary";
  title.getCell(1).font = { bold: true, size: 14 };
  title.commit();
  const lines = [
    `Period (UTC): ${isoUtc(report.params.start)} to ${isoUtc(report.params.end)}, end exclusive${report.params.accountId === undefined ? "" : `; account ${report.params.accountId}`}`,
    `Quantities in ${per}; CU rollup: ${report.options.cuRollup}${report.prices ? `; amounts in ${currency}, rounded half-even to ${decimals} decimals for display, computed exactly` : "; no price list"}`,
    report.warnings.length > 0 ? `Data quality: ${report.warnings.length} warning${report.warnings.length === 1 ? "" : "s"}, see About` : "Data quality: no warnings",
  ];
  lines.forEach((text, i) => {
    const row = sheet.getRow(2 + i);
    row.getCell(1).value = text;
    row.commit();
  });
  const headerRow = 6; // frozen in addSheet
  setHeader(sheet, columns.map((c) => c.header), headerRow);
  let r = headerRow + 1;
  const accounts = report.lines.map((l, i) => [l, i] as const).filter(([l]) => l.level === "account");
  const sums = new Map<string, number>();
  for (const [line, i] of accounts) {
    const row = sheet.getRow(r++);
    columns.forEach((c, k) => {
      const v = cellValue(c.value(line, report.money?.[i]), c, decimals);
      row.getCell(k + 1).value = v;
      if (typeof v === "number") sums.set(c.key, (sums.get(c.key) ?? 0) + v);
    });
    row.commit();
  }
  const first = headerRow + 1;
  const last = r - 1;
  const total = sheet.getRow(r++);
  total.getCell(1).value = `Total (${accounts.length} account${accounts.length === 1 ? "" : "s"})`;
  columns.forEach((c, k) => {
    if (!(c.kind === "quantity" || c.kind === "money")) return;
    const L = columnLetter(k + 1);
    total.getCell(k + 1).value = last >= first ? { formula: `SUM(${L}${first}:${L}${last})`, result: sums.get(c.key) ?? 0 } : 0;
  });
  total.eachCell((cell) => { cell.font = { bold: true }; cell.fill = TOTAL_FILL; });
  total.commit();
  if (report.money) {
    const accountMoney = accounts.map(([, i]) => report.money![i]).filter((m): m is LineMoney => m !== undefined);
    const both = sumMoney(accountMoney, decimals);
    const row = sheet.getRow(r++);
    const k = columns.findIndex((c) => c.key === "total");
    row.getCell(1).value = "Total of the exact amounts, rounded once";
    row.getCell(k + 1).value = both.roundedTotal.toNumber();
    row.getCell(k + 2).value = both.roundedTotal.equals(both.sumOfRoundedLines)
      ? "equal to the sum of the rounded account totals"
      : `differs from the sum of the rounded account totals (${both.sumOfRoundedLines.toFixed(decimals)}) by rounding`;
    row.getCell(1).font = { italic: true };
    row.commit();
  }
  if (report.options.cuRollup === "aggregate" && accounts.length > 0) {
    const row = sheet.getRow(r++);
    const k = columns.findIndex((c) => c.key === "CU");
    const cuSum = accounts.reduce((a, [l]) => a + l.cuSumOfMachines, 0);
    row.getCell(1).value = "CU, sum of machines' CU";
    if (k >= 0) row.getCell(k + 1).value = cuSum;
    row.getCell(1).font = { italic: true };
    row.commit();
  }
  const environment = report.lines.find((l) => l.level === "environment");
  if (environment) {
    const row = sheet.getRow(r++);
    row.getCell(1).value = "Environment (all accounts)";
    columns.forEach((c, k) => {
      if (c.kind === "quantity") row.getCell(k + 1).value = cellValue(c.value(environment, undefined), c, decimals);
    });
    row.getCell(1).font = { italic: true };
    row.commit();
  }
  sheet.commit();
}
