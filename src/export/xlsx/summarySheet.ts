import type ExcelJS from "exceljs";
import { Exact } from "../../billing/exact.js";
import type { BillingReport } from "../../billing/billingReport.js";
import { isoUtc } from "../../base/time.js";
import { BASE_UNITS } from "../../billing/unitNames.js";
import { nuUnit } from "../../billing/money.js";
import { currencyOf } from "../../billing/prices.js";
import { cuRuleText } from "../../billing/units.js";
import { shownQuantity } from "../billingColumns.js";
import type { DraftDocument, InvoiceDocument } from "../../invoices/document/invoiceDocument.js";
import {
  addSheet,
  cellValue,
  columnLetter,
  font,
  moneyFormat,
  moneyTotal,
  quantityFormat,
  setHeader,
  sheetColumns,
  styleTotal,
  writeCell,
} from "./style.js";

/** The title lines of a sheet that introduces a report: period, quantities, rules, data quality. */
export function titleLines(report: BillingReport): string[] {
  const decimals = report.prices?.decimals ?? 2;
  const per =
    report.options.per === "month" ? `unit-months (unit-hours / ${report.options.units.hoursPerMonth})` : "unit-hours";
  return [
    `Period (UTC): ${isoUtc(report.params.start).replace("T", " ").replace(":00Z", "")} to ${isoUtc(report.params.end).replace("T", " ").replace(":00Z", "")}, end exclusive`,
    `Quantities in ${per}, NU in ${nuUnit(report.options.units)} transferred`,
    cuRuleSentence(report),
    report.prices && (report.amountsDue?.length ?? 0) > 1
      ? `Amounts in each account's own currency (${report.amountsDue!.map((t) => t.currency).join(", ")}), never added across two: each line is quantity × unit price rounded half-even to its currency's decimals; an account's net amount is the sum of its rounded lines, and its amount due that plus its tax`
      : report.prices
        ? `Amounts in ${report.prices.currency}: each line is quantity × unit price rounded half-even to ${decimals} decimals; an account's net amount is the sum of its rounded lines, and its amount due that plus its tax`
        : "No price list: quantities only",
    report.warnings.length > 0
      ? `Data quality: ${report.warnings.length} warning${report.warnings.length === 1 ? "" : "s"}, see About`
      : "Data quality: no warnings",
  ];
}

/** The CU rule in one sentence, as every sheet that shows CU states it. */
export function cuRuleSentence(report: BillingReport): string {
  const rule = cuRuleText(report.options.units);
  return report.options.cuRollup === "aggregate"
    ? `CU rule: aggregate: a machine's, cloud space's and account's CU per hour is ${rule} of its own totals (the published rule), summed over the hours`
    : `CU rule: sum: a machine's CU per hour is ${rule}; a cloud space's and account's CU is the sum of their machines'`;
}

/** Writes a bold title in row 1 and the lines below it; returns the next free row. */
export function writeTitle(sheet: ExcelJS.Worksheet, title: string, lines: readonly string[]): number {
  const row = sheet.getRow(1);
  row.getCell(1).value = title;
  row.getCell(1).font = font({ bold: true, size: 14 });
  row.height = 20;
  row.commit();
  lines.forEach((text, i) => {
    const line = sheet.getRow(2 + i);
    line.getCell(1).value = text;
    line.commit();
  });
  return 2 + lines.length + 1;
}

/** The header of a summary column: the lines' sum is the net amount, before tax; the amount due is the documents' gross. */
function headerOf(column: { key: string; header: string }, currency: string): string {
  return column.key === "amount_due" ? `net amount, excluding tax (${currency})` : column.header;
}

/** Beside each account's figures, its document's: number (or DRAFT), its currency when the documents have several, tax and amount due (the gross), in its currency. */
function writeDocumentCells(
  row: ExcelJS.Row,
  at: number,
  document: InvoiceDocument | DraftDocument | undefined,
  withCurrency: boolean,
): void {
  if (!document) return;
  row.getCell(at).value = document.number ?? "DRAFT";
  if (withCurrency) row.getCell(++at).value = document.currency;
  row.getCell(at + 1).value = Number(document.tax);
  row.getCell(at + 2).value = Number(document.gross);
  for (const c of [at + 1, at + 2]) row.getCell(c).numFmt = moneyFormat(document.decimals);
}

/** The documents' tax and amount due added up, in one currency: a formula over their cells, its value the exact sum. */
function writeDocumentTotals(
  row: ExcelJS.Row,
  at: number,
  range: { first: number; last: number },
  documents: readonly (InvoiceDocument | DraftDocument)[],
): void {
  const decimals = documents[0]?.decimals ?? 2;
  const sum = (key: "tax" | "gross") => documents.reduce((a, d) => a.add(d[key]), Exact.ZERO);
  (["tax", "gross"] as const).forEach((key, k) => {
    const L = columnLetter(at + 1 + k);
    const cell = row.getCell(at + 1 + k);
    cell.value = range.last >= range.first ? moneyTotal(`${L}${range.first}:${L}${range.last}`, sum(key), decimals) : 0;
    cell.numFmt = moneyFormat(decimals);
  });
}

/** The Summary's columns: the account, its currency (when they bill in several), and its amounts (else its units). */
function summaryColumns(report: BillingReport): ReturnType<typeof sheetColumns> {
  const keep = (key: string) =>
    key === "account_id" ||
    key === "name" ||
    key === "currency" ||
    (report.prices ? key.endsWith("_amount") || key === "amount_due" : (BASE_UNITS as readonly string[]).includes(key));
  return sheetColumns(report, "account").filter((c) => keep(c.key));
}

/**
 * Below the totals row of accounts billed in several currencies: one row per currency adding up the
 * money columns of that currency's accounts only (a SUMIF over the currency column, its value the exact
 * sum of the rounded cells); two currencies are never added. Returns the next free row.
 */
function writeCurrencyTotals(
  sheet: ExcelJS.Worksheet,
  r: number,
  report: BillingReport,
  columns: ReturnType<typeof sheetColumns>,
  accounts: readonly (readonly [BillingReport["lines"][number], number])[],
  range: { first: number; last: number },
): number {
  const at = columns.findIndex((c) => c.key === "currency");
  const C = columnLetter(at + 1);
  for (const total of report.amountsDue ?? []) {
    const mine = accounts.filter(([l]) => total.accountIds.includes(l.accountId!));
    const row = sheet.getRow(r++);
    row.getCell(1).value = `Total in ${total.currency} (${mine.length} account${mine.length === 1 ? "" : "s"})`;
    if (at >= 0) row.getCell(at + 1).value = total.currency;
    columns.forEach((c, k) => {
      if (c.kind !== "money") return;
      const sum = mine.reduce((a, [l, i]) => {
        const v = c.value(l, report.money?.[i]);
        return v instanceof Exact ? a.add(v.round(total.decimals)) : a;
      }, Exact.ZERO);
      const L = columnLetter(k + 1);
      const cell = row.getCell(k + 1);
      cell.value =
        range.last >= range.first
          ? {
              formula: `ROUND(SUMIF(${C}${range.first}:${C}${range.last},"${total.currency}",${L}${range.first}:${L}${range.last}),${total.decimals})`,
              result: sum.toNumber(),
            }
          : 0;
      cell.numFmt = moneyFormat(total.decimals);
    });
    styleTotal(row, columns.length);
    row.commit();
  }
  return r;
}

/** What the Summary shows, decided once from the report and the documents. */
interface SummaryLayout {
  columns: ReturnType<typeof sheetColumns>;
  /** The price list's decimals (2 without one). */
  decimals: number;
  /** Accounts billed in several currencies (a customer's own): each row's money in its own, a total per currency. */
  severalBilled: boolean;
  /** What the money headers say they are in. */
  currency: string;
  withDocuments: boolean;
  /**
   * The documents' currencies: issued documents keep the currency they were issued in, which may not be this price
   * list's.
   */
  documentCurrencies: string[];
  severalCurrencies: boolean;
  documents: readonly (InvoiceDocument | DraftDocument)[];
}

/** An account's line of the report and its index in `report.lines` (its money's). */
type AccountAt = readonly [BillingReport["lines"][number], number];

function summaryLayout(
  report: BillingReport,
  documents: readonly (InvoiceDocument | DraftDocument)[] = [],
): SummaryLayout {
  const severalBilled = (report.amountsDue?.length ?? 0) > 1;
  const documentCurrencies = [...new Set(documents.map((d) => d.currency))];
  return {
    columns: summaryColumns(report),
    decimals: report.prices?.decimals ?? 2,
    severalBilled,
    currency: severalBilled ? "the row's currency" : (report.prices?.currency ?? ""),
    withDocuments: report.prices !== undefined && documents.length > 0,
    documentCurrencies,
    severalCurrencies: documentCurrencies.length > 1,
    documents,
  };
}

/** The column widths, the title lines and the header row (`headerRow`). */
function writeSummaryHead(
  sheet: ExcelJS.Worksheet,
  report: BillingReport,
  layout: SummaryLayout,
  headerRow: number,
): void {
  const { columns, withDocuments, severalCurrencies } = layout;
  const documentCurrency = severalCurrencies ? "" : ` (${layout.documentCurrencies[0] ?? layout.currency})`;
  sheet.columns = [
    ...columns.map((c) => ({
      key: c.key,
      width: c.key === "name" ? 34 : c.key === "account_id" ? 12 : c.kind === "money" ? 16 : 18,
    })),
    ...(withDocuments
      ? [{ width: 18 }, ...(severalCurrencies ? [{ width: 10 }] : []), { width: 14 }, { width: 16 }]
      : []),
  ];
  writeTitle(sheet, "Billing summary (internal)", titleLines(report));
  setHeader(
    sheet,
    [
      ...columns.map((c) => headerOf(c, layout.currency)),
      ...(withDocuments
        ? [
            "document",
            ...(severalCurrencies ? ["currency"] : []),
            `tax${documentCurrency}`,
            `amount due${documentCurrency}`,
          ]
        : []),
    ],
    headerRow,
  );
}

/**
 * One row per account from row `r` on (its document's cells beside it); returns the next free row
 * and, per column, the sum of its quantities and of its rounded money.
 */
function writeAccountRows(
  sheet: ExcelJS.Worksheet,
  r: number,
  report: BillingReport,
  layout: SummaryLayout,
  accounts: readonly AccountAt[],
): { next: number; sums: Map<string, number>; money: Map<string, Exact> } {
  const { columns } = layout;
  const sums = new Map<string, number>();
  const money = new Map<string, Exact>();
  for (const [line, i] of accounts) {
    const row = sheet.getRow(r++);
    const own = report.prices ? currencyOf(report.prices, line.accountId).decimals : layout.decimals;
    columns.forEach((c, k) => {
      const cell = c.value(line, report.money?.[i]);
      const v = cellValue(cell, c, own);
      writeCell(row.getCell(k + 1), v, c, own);
      if (typeof v === "number") sums.set(c.key, (sums.get(c.key) ?? 0) + v);
      if (cell instanceof Exact) money.set(c.key, (money.get(c.key) ?? Exact.ZERO).add(cell.round(own)));
    });
    if (layout.withDocuments)
      writeDocumentCells(
        row,
        columns.length + 1,
        layout.documents.find((d) => d.accountId === line.accountId),
        layout.severalCurrencies,
      );
    row.commit();
  }
  return { next: r, sums, money };
}

/**
 * The totals row: each quantity column's sum, each money column's when the accounts bill in one
 * currency, and the documents' tax and amount due when they share one (`billed`: the accounts' documents).
 */
function writeTotalRow(
  total: ExcelJS.Row,
  layout: SummaryLayout,
  accounts: readonly AccountAt[],
  written: { sums: Map<string, number>; money: Map<string, Exact> },
  range: { first: number; last: number },
  billed: readonly (InvoiceDocument | DraftDocument)[],
): void {
  const { columns, decimals } = layout;
  const { first, last } = range;
  const n = `${accounts.length} account${accounts.length === 1 ? "" : "s"}`;
  // "Total": the row totals each unit's amount column and the net amounts
  total.getCell(1).value = `Total (${n})`;
  columns.forEach((c, k) => {
    const L = columnLetter(k + 1);
    const cell = total.getCell(k + 1);
    if (c.kind === "money" && !layout.severalBilled) {
      cell.value =
        last >= first ? moneyTotal(`${L}${first}:${L}${last}`, written.money.get(c.key) ?? Exact.ZERO, decimals) : 0;
      cell.numFmt = moneyFormat(decimals);
    } else if (c.kind === "quantity") {
      cell.value =
        last >= first ? { formula: `SUM(${L}${first}:${L}${last})`, result: written.sums.get(c.key) ?? 0 } : 0;
      cell.numFmt = quantityFormat(written.sums.get(c.key) ?? 0);
    }
  });
  // the documents' tax and amount due: added up in the totals row when they share a currency, else a row per currency
  const documentTotals = layout.withDocuments && !layout.severalCurrencies;
  if (documentTotals) writeDocumentTotals(total, columns.length + 1, range, billed);
  styleTotal(total, columns.length + (documentTotals ? 3 : 0));
  total.commit();
}

/**
 * Documents in several currencies: a row per currency adding up their tax and amount due. Returns the next free row.
 */
function writeDocumentCurrencyTotals(
  sheet: ExcelJS.Worksheet,
  r: number,
  layout: SummaryLayout,
  billed: readonly (InvoiceDocument | DraftDocument)[],
): number {
  const at = layout.columns.length;
  for (const c of layout.documentCurrencies) {
    const ofCurrency = billed.filter((d) => d.currency === c);
    const row = sheet.getRow(r++);
    row.getCell(1).value = `Total of the documents in ${c} (${ofCurrency.length})`;
    row.getCell(at + 2).value = c;
    const sum = (key: "tax" | "gross") => ofCurrency.reduce((a, d) => a.add(d[key]), Exact.ZERO);
    (["tax", "gross"] as const).forEach((key, k) => {
      row.getCell(at + 3 + k).value = sum(key).toNumber();
      row.getCell(at + 3 + k).numFmt = moneyFormat(ofCurrency[0]!.decimals);
    });
    styleTotal(row, at + 4);
    row.commit();
  }
  return r;
}

/** Without prices, the environment's own quantities (its own CU) in row `r`; returns the next free row. */
function writeEnvironmentRow(
  sheet: ExcelJS.Worksheet,
  r: number,
  report: BillingReport,
  layout: SummaryLayout,
): number {
  const environment = report.lines.find((l) => l.level === "environment");
  if (!environment || report.prices) return r;
  const row = sheet.getRow(r++);
  row.getCell(1).value = "Environment (all accounts, its own CU)";
  row.getCell(1).font = font({ italic: true });
  layout.columns.forEach((c, k) => {
    if (c.kind === "quantity")
      writeCell(
        row.getCell(k + 1),
        shownQuantity(environment, c.key as (typeof BASE_UNITS)[number]),
        c,
        layout.decimals,
      );
  });
  row.commit();
  return r;
}

/**
 * The Summary sheet, short enough to print on A4: title lines, then one row per account:
 * with a price list its amount per priced unit and their net total, and the net total of all
 * (Σ of the accounts' lines); with `documents`, each account's number, tax and amount due (the
 * gross); without prices, its CU, SU, TU and NU and the environment's.
 */
export function writeSummarySheet(
  workbook: ExcelJS.stream.xlsx.WorkbookWriter,
  report: BillingReport,
  documents?: readonly (InvoiceDocument | DraftDocument)[],
): void {
  const headerRow = 8;
  const sheet = addSheet(workbook, "Summary", headerRow);
  const layout = summaryLayout(report, documents);
  writeSummaryHead(sheet, report, layout, headerRow);
  const accounts = report.lines.map((l, i) => [l, i] as const).filter(([l]) => l.level === "account");
  const written = writeAccountRows(sheet, headerRow + 1, report, layout, accounts);
  const range = { first: headerRow + 1, last: written.next - 1 };
  let r = written.next;
  const billed = layout.documents.filter((d) => accounts.some(([l]) => l.accountId === d.accountId));
  writeTotalRow(sheet.getRow(r++), layout, accounts, written, range, billed);
  if (layout.severalBilled) r = writeCurrencyTotals(sheet, r, report, layout.columns, accounts, range);
  if (layout.withDocuments && layout.severalCurrencies) r = writeDocumentCurrencyTotals(sheet, r, layout, billed);
  r = writeEnvironmentRow(sheet, r, report, layout);
  if (report.prices && (report.amountsDue?.length ?? 0) > 0) {
    r++;
    const note = sheet.getRow(r++);
    note.getCell(1).value =
      `Amounts per unit are on 'Accounts' with quantities and unit prices; 'Cloud spaces' and 'Machines' split each account's lines (showback, adding up to them exactly).`;
    note.getCell(1).font = font({ italic: true });
    note.commit();
  }
  sheet.commit();
}
