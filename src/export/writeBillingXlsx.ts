import type { DuckDBConnection } from "@duckdb/node-api";
import ExcelJS from "exceljs";
import { createWriteStream } from "node:fs";
import { rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { Exact } from "../billing/exact.js";
import { hourlyLineCount, hourlyLines, type BillingLine, type Level } from "../billing/lines.js";
import { sumMoney, type LineMoney } from "../billing/money.js";
import type { BillingReport } from "../billing/report.js";
import { isoUtc } from "../time.js";
import { billingColumns, shownUnits, type BillingColumn, type Cell } from "./billingColumns.js";

/** Excel's last row: a sheet holds the header and at most this many rows minus one. */
export const EXCEL_MAX_ROWS = 1_048_576;

/** Options of the billing workbook. */
export interface BillingXlsxOptions {
  /** Most hourly lines the Hourly sheet holds before it becomes a note (default: Excel's limit minus the header). */
  maxHourlyRows?: number;
}

const QUANTITY = "#,##0.000000";
const COUNT = "#,##0";
const PRICE = "#,##0.00########";
const HEADER_FILL: ExcelJS.Fill = { type: "pattern", pattern: "solid", fgColor: { argb: "FFD9E1F2" } };
const TOTAL_FILL: ExcelJS.Fill = { type: "pattern", pattern: "solid", fgColor: { argb: "FFF2F2F2" } };

/** A sheet printed on landscape pages, every column on one page width, rows up to `frozenRows` frozen. */
function addSheet(workbook: ExcelJS.stream.xlsx.WorkbookWriter, name: string, frozenRows: number): ExcelJS.Worksheet {
  return workbook.addWorksheet(name, {
    pageSetup: { orientation: "landscape", fitToPage: true, fitToWidth: 1, fitToHeight: 0, paperSize: 9 },
    views: frozenRows > 0 ? [{ state: "frozen", ySplit: frozenRows, xSplit: 0 }] : [],
  });
}

const moneyFormat = (decimals: number) => (decimals === 0 ? "#,##0" : `#,##0.${"0".repeat(decimals)}`);

function columnLetter(index: number): string {
  let s = "";
  for (let n = index; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}

function cellValue(cell: Cell, column: BillingColumn, decimals: number): ExcelJS.CellValue {
  if (cell === null) return null;
  if (cell instanceof Exact) return cell.round(decimals).toNumber();
  if (column.kind === "id") return String(cell);
  if (column.kind === "price") return Number(cell);
  return cell;
}

function formatOf(column: BillingColumn, decimals: number): string | undefined {
  switch (column.kind) {
    case "id": return "@";
    case "quantity": return QUANTITY;
    case "count": return COUNT;
    case "price": return PRICE;
    case "money": return moneyFormat(decimals);
    default: return undefined;
  }
}

function widthOf(column: BillingColumn): number {
  const byKind = { text: 14, id: 14, time: 22, count: 14, quantity: 16, price: 14, money: 14 }[column.kind];
  return Math.min(30, Math.max(byKind, Math.ceil(column.header.length * 0.6)));
}

/**
 * The columns of a level sheet: the billing columns without what the sheet's title or the
 * About sheet says once (level, period, CU rule: in the CU header), and without the ids of
 * levels below the sheet's.
 */
function sheetColumns(report: BillingReport, level: Exclude<Level, "environment">, hourly = false): BillingColumn[] {
  const drop = new Set(["level", "period_start", "period_end", "cu_rollup"]);
  if (level === "account") drop.add("cloudspace_id").add("machine_id");
  if (level === "cloudspace") drop.add("machine_id");
  return billingColumns(report, hourly)
    .filter((c) => !drop.has(c.key))
    .map((c) => (c.key === "CU" ? { ...c, header: c.header.replace(")", `, ${report.options.cuRollup} rollup)`) } : c));
}

function setHeader(sheet: ExcelJS.Worksheet, headers: string[], headerRow: number): void {
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

/** Where a level sheet's totals are, so other sheets' check rows can refer to them. */
interface SheetTotals {
  sheet: string;
  totalRow: number;
  /** Column letter of each column key. */
  letters: Map<string, string>;
  /** Σ of each quantity column, as computed here (the formula's cached result). */
  sums: Map<string, number>;
}

const SHEET_OF: Record<Exclude<Level, "environment">, string> = { account: "Accounts", cloudspace: "Cloud spaces", machine: "Machines" };

/** Why a child level's total may differ from its parent's, per unit. */
function whyDiffers(report: BillingReport, level: Level, key: string): string | undefined {
  if (key === "CU" && report.options.cuRollup === "aggregate") {
    return level === "machine"
      ? "CU aggregate: a cloud space's CU is max(Σmem/1024/4, Σvcpus/2) of its machines per hour, never more than the sum of their CU; the machines' CU add up to the cloud spaces' 'CU sum of machines'"
      : "CU aggregate: an account's CU is computed per hour from its own Σmem and Σvcpus, never more than the sum of its cloud spaces' CU; the column 'CU sum of machines' adds up exactly";
  }
  if (key === "PIU" && level === "machine") return "a deployed cloud space also counts 1 PIU for its gateway's public IP";
  if (key === "NU" && level === "machine") return "NU is billed at cloud space level and above (gateways' and machines' external traffic)";
  return undefined;
}

function writeLevelSheet(
  workbook: ExcelJS.stream.xlsx.WorkbookWriter, report: BillingReport, level: Exclude<Level, "environment">, parent: SheetTotals | undefined,
): SheetTotals {
  const name = SHEET_OF[level];
  const sheet = addSheet(workbook, name, 1);
  const decimals = report.prices?.decimals ?? 2;
  const columns = sheetColumns(report, level);
  sheet.columns = columns.map((c) => ({ key: c.key, width: widthOf(c), style: formatOf(c, decimals) ? { numFmt: formatOf(c, decimals)! } : {} }));
  setHeader(sheet, columns.map((c) => c.header), 1);
  const indexes = report.lines.map((l, i) => [l, i] as const).filter(([l]) => l.level === level);
  let r = 2;
  const sums = new Map<string, number>();
  for (const [line, i] of indexes) {
    const money = report.money?.[i];
    const row = sheet.getRow(r++);
    columns.forEach((c, k) => {
      const v = cellValue(c.value(line, money), c, decimals);
      row.getCell(k + 1).value = v;
      if (typeof v === "number" && (c.kind === "quantity" || c.kind === "money" || c.kind === "count")) sums.set(c.key, (sums.get(c.key) ?? 0) + v);
    });
    row.commit();
  }
  const first = 2;
  const last = r - 1;
  const letters = new Map(columns.map((c, k) => [c.key, columnLetter(k + 1)]));
  const summed = (c: BillingColumn) => c.kind === "quantity" || c.kind === "money" || c.kind === "count";
  const totalRow = r++;
  const total = sheet.getRow(totalRow);
  total.getCell(1).value = `Total (${indexes.length} ${name.toLowerCase()})`;
  columns.forEach((c, k) => {
    if (!summed(c) || c.key === "sample_hours") return;
    const L = letters.get(c.key)!;
    total.getCell(k + 1).value = last >= first ? { formula: `SUM(${L}${first}:${L}${last})`, result: sums.get(c.key) ?? 0 } : 0;
  });
  total.eachCell((cell) => { cell.font = { bold: true }; cell.fill = TOTAL_FILL; });
  total.commit();
  if (parent) {
    // Check rows: this level's totals against the parent level's, with the difference and why.
    const against = sheet.getRow(r++);
    const diff = sheet.getRow(r++);
    const why = sheet.getRow(r++);
    against.getCell(1).value = `Total of '${parent.sheet}'`;
    diff.getCell(1).value = "Difference (check)";
    const notes: string[] = [];
    columns.forEach((c, k) => {
      if (c.kind !== "quantity" && c.kind !== "money") return;
      if (c.key === "cu_sum_of_machines") return;
      const parentKey = c.key === "CU" && report.options.cuRollup === "aggregate" && level === "machine" ? "CU" : c.key;
      const P = parent.letters.get(parentKey);
      const L = letters.get(c.key)!;
      if (!P) return;
      if (c.kind === "money") return; // money differs by design across levels under aggregate; the invoice is the account's
      const parentSum = parent.sums.get(parentKey) ?? 0;
      against.getCell(k + 1).value = { formula: `'${parent.sheet}'!${P}${parent.totalRow}`, result: parentSum };
      diff.getCell(k + 1).value = { formula: `${L}${totalRow}-${L}${against.number}`, result: (sums.get(c.key) ?? 0) - parentSum };
      const reason = whyDiffers(report, level, c.key);
      if (reason) notes.push(`${c.key}: ${reason}`);
    });
    if (report.options.cuRollup === "aggregate" && letters.has("CU") && parent.letters.has("cu_sum_of_machines")) {
      const k = columns.findIndex((c) => c.key === "cu_sum_of_machines");
      if (level === "machine") {
        // Machines have no 'CU sum of machines': compare their CU with the cloud spaces' sum of machines' CU, which must be 0.
        const P = parent.letters.get("cu_sum_of_machines")!;
        const L = letters.get("CU")!;
        const parentSum = parent.sums.get("cu_sum_of_machines") ?? 0;
        against.getCell(k + 1).value = { formula: `'${parent.sheet}'!${P}${parent.totalRow}`, result: parentSum };
        diff.getCell(k + 1).value = { formula: `${L}${totalRow}-${columnLetter(k + 1)}${against.number}`, result: (sums.get("CU") ?? 0) - parentSum };
      } else {
        const L = letters.get("cu_sum_of_machines")!;
        const P = parent.letters.get("cu_sum_of_machines")!;
        const parentSum = parent.sums.get("cu_sum_of_machines") ?? 0;
        against.getCell(k + 1).value = { formula: `'${parent.sheet}'!${P}${parent.totalRow}`, result: parentSum };
        diff.getCell(k + 1).value = { formula: `${L}${totalRow}-${L}${against.number}`, result: (sums.get("cu_sum_of_machines") ?? 0) - parentSum };
      }
    }
    why.getCell(1).value = `Why: ${notes.length > 0 ? notes.join("  |  ") : "no difference is expected: every unit adds up"}`;
    for (const row of [against, diff]) row.eachCell((cell) => { cell.font = { italic: true }; });
    against.commit();
    diff.commit();
    why.commit();
  }
  sheet.commit();
  return { sheet: name, totalRow, letters, sums };
}

function writeSummarySheet(workbook: ExcelJS.stream.xlsx.WorkbookWriter, report: BillingReport): void {
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

async function writeHourlySheet(
  workbook: ExcelJS.stream.xlsx.WorkbookWriter, report: BillingReport, connection: DuckDBConnection, maxRows: number,
): Promise<void> {
  const sheet = addSheet(workbook, "Hourly", 1);
  const billingOptions = { ...report.options };
  const count = await hourlyLineCount(connection, report.params, billingOptions);
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
  const columns = billingColumns({ ...report, prices: undefined }, true)
    .filter((c) => c.key !== "cu_rollup")
    .map((c) => (c.key === "CU" ? { ...c, header: c.header.replace(")", `, ${report.options.cuRollup} rollup)`) } : c));
  sheet.columns = columns.map((c) => ({ key: c.key, width: widthOf(c), style: formatOf(c, decimals) ? { numFmt: formatOf(c, decimals)! } : {} }));
  setHeader(sheet, columns.map((c) => c.header), 1);
  let r = 2;
  for await (const batch of hourlyLines(connection, report.params, billingOptions)) {
    for (const line of batch as BillingLine[]) {
      const row = sheet.getRow(r++);
      columns.forEach((c, k) => { row.getCell(k + 1).value = cellValue(c.value(line, undefined), c, decimals); });
      row.commit();
    }
  }
  sheet.commit();
}

function writeAboutSheet(workbook: ExcelJS.stream.xlsx.WorkbookWriter, report: BillingReport): void {
  const sheet = addSheet(workbook, "About", 0);
  sheet.columns = [{ width: 34 }, { width: 110 }];
  const rows: [string, string | number][] = [];
  const add = (item: string, value: string | number) => rows.push([item, value]);
  const { params, options, quality } = report;
  add("Period start (UTC, inclusive)", isoUtc(params.start));
  add("Period end (UTC, exclusive)", isoUtc(params.end));
  add("Account", params.accountId === undefined ? "every account (and the environment)" : String(params.accountId));
  add("Generated at (UTC)", isoUtc(Math.floor(report.generatedAtMs / 1000)));
  for (const input of report.inputs) add("Input", `${input.input}  ${input.hash}`);
  add("Data loaded", `${report.data.files} files, content fingerprint ${report.data.hash}`);
  add("Units file", report.unitsFile ?? "none: the published constants");
  for (const [key, value] of Object.entries(options.units)) add(`Unit constant ${key}`, JSON.stringify(value));
  add("Quantities", options.per === "month" ? `unit-months: unit-hours / ${options.units.hoursPerMonth}` : "unit-hours: each hourly sample counts one hour");
  add("CU rollup", options.cuRollup === "aggregate"
    ? "aggregate: a cloud space's, account's and the environment's CU is max(Σmem/1024/4, Σvcpus/2) of its own totals per hour, summed over hours"
    : "sum: a level's CU is the sum of its machines' CU");
  if (report.prices) {
    const p = report.prices;
    add("Price list", `${p.source ?? "given"}: ${p.currency}, ${p.accounts.size} account override${p.accounts.size === 1 ? "" : "s"}`);
    add("Rounding", `amounts are computed exactly (quantity × unit price, ÷ ${options.units.hoursPerMonth} for monthly prices) and rounded half-even to ${p.decimals} decimals only for display; the Summary shows both the sum of rounded lines and the rounded total`);
  } else add("Price list", "none: quantities only");
  if (quality.emptyPeriod) add("Empty period", "no account has a sample in the period");
  if (quality.missingHours.length === 0) add("Missing hours", "none");
  for (const m of quality.missingHours) {
    add(`Missing hours, account ${m.accountId}`, `${m.hours}: ${m.runs.map((r) => (r.hours === 1 ? isoUtc(r.startHour) : `${isoUtc(r.startHour)}..${isoUtc(r.endHour)}`)).join(", ")}`);
  }
  add("Skipped files", quality.skipped.length === 0 ? "none" : String(quality.skipped.length));
  for (const s of quality.skipped) add("Skipped file", `${s.file}: ${s.code}: ${s.reason}`);
  add("Byte-identical duplicates dropped", String(quality.duplicates.length));
  for (const t of quality.unbilledMachineTypes) add("Not billed", `${t.machineHours} machine-hours of type "${t.type}"`);
  add("Warnings", report.warnings.length === 0 ? "none" : String(report.warnings.length));
  for (const w of report.warnings) add(`Warning ${w.code}`, w.message);
  rows.forEach(([item, value], i) => {
    const row = sheet.getRow(i + 1);
    row.getCell(1).value = item;
    row.getCell(1).font = { bold: true };
    row.getCell(1).alignment = { vertical: "top" };
    row.getCell(2).value = value;
    row.getCell(2).alignment = { wrapText: true, vertical: "top" };
    row.height = 15 * Math.max(1, Math.ceil(String(value).length / 110));
    row.commit();
  });
  sheet.commit();
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
