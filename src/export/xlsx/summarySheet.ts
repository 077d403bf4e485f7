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
  const decimals = report.prices?.decimals ?? 2;
  const columns = summaryColumns(report);
  // accounts billed in several currencies (a customer's own): each row's money in its own, a total per currency
  const severalBilled = (report.amountsDue?.length ?? 0) > 1;
  const currency = severalBilled ? "the row's currency" : (report.prices?.currency ?? "");
  const withDocuments = report.prices !== undefined && documents !== undefined && documents.length > 0;
  // issued documents keep the currency they were issued in, which may not be this price list's
  const documentCurrencies = [...new Set((documents ?? []).map((d) => d.currency))];
  const severalCurrencies = documentCurrencies.length > 1;
  const documentCurrency = severalCurrencies ? "" : ` (${documentCurrencies[0] ?? currency})`;
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
      ...columns.map((c) => headerOf(c, currency)),
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
  let r = headerRow + 1;
  const accounts = report.lines.map((l, i) => [l, i] as const).filter(([l]) => l.level === "account");
  const sums = new Map<string, number>();
  const money = new Map<string, Exact>();
  for (const [line, i] of accounts) {
    const row = sheet.getRow(r++);
    const own = report.prices ? currencyOf(report.prices, line.accountId).decimals : decimals;
    columns.forEach((c, k) => {
      const cell = c.value(line, report.money?.[i]);
      const v = cellValue(cell, c, own);
      writeCell(row.getCell(k + 1), v, c, own);
      if (typeof v === "number") sums.set(c.key, (sums.get(c.key) ?? 0) + v);
      if (cell instanceof Exact) money.set(c.key, (money.get(c.key) ?? Exact.ZERO).add(cell.round(own)));
    });
    if (withDocuments)
      writeDocumentCells(
        row,
        columns.length + 1,
        documents.find((d) => d.accountId === line.accountId),
        severalCurrencies,
      );
    row.commit();
  }
  const first = headerRow + 1;
  const last = r - 1;
  const total = sheet.getRow(r++);
  const n = `${accounts.length} account${accounts.length === 1 ? "" : "s"}`;
  // "Total": the row totals each unit's amount column and the net amounts
  total.getCell(1).value = `Total (${n})`;
  columns.forEach((c, k) => {
    const L = columnLetter(k + 1);
    const cell = total.getCell(k + 1);
    if (c.kind === "money" && !severalBilled) {
      cell.value = last >= first ? moneyTotal(`${L}${first}:${L}${last}`, money.get(c.key) ?? Exact.ZERO, decimals) : 0;
      cell.numFmt = moneyFormat(decimals);
    } else if (c.kind === "quantity") {
      cell.value = last >= first ? { formula: `SUM(${L}${first}:${L}${last})`, result: sums.get(c.key) ?? 0 } : 0;
      cell.numFmt = quantityFormat(sums.get(c.key) ?? 0);
    }
  });
  const billed = (documents ?? []).filter((d) => accounts.some(([l]) => l.accountId === d.accountId));
  // the documents' tax and amount due: added up in the totals row when they share a currency, else a row per currency
  if (withDocuments && !severalCurrencies) writeDocumentTotals(total, columns.length + 1, { first, last }, billed);
  styleTotal(total, columns.length + (withDocuments && !severalCurrencies ? 3 : 0));
  total.commit();
  if (severalBilled) r = writeCurrencyTotals(sheet, r, report, columns, accounts, { first, last });
  if (withDocuments && severalCurrencies) {
    for (const c of documentCurrencies) {
      const ofCurrency = billed.filter((d) => d.currency === c);
      const row = sheet.getRow(r++);
      row.getCell(1).value = `Total of the documents in ${c} (${ofCurrency.length})`;
      row.getCell(columns.length + 2).value = c;
      const sum = (key: "tax" | "gross") => ofCurrency.reduce((a, d) => a.add(d[key]), Exact.ZERO);
      (["tax", "gross"] as const).forEach((key, k) => {
        row.getCell(columns.length + 3 + k).value = sum(key).toNumber();
        row.getCell(columns.length + 3 + k).numFmt = moneyFormat(ofCurrency[0]!.decimals);
      });
      styleTotal(row, columns.length + 4);
      row.commit();
    }
  }
  const environment = report.lines.find((l) => l.level === "environment");
  if (environment && !report.prices) {
    const row = sheet.getRow(r++);
    row.getCell(1).value = "Environment (all accounts, its own CU)";
    row.getCell(1).font = font({ italic: true });
    columns.forEach((c, k) => {
      if (c.kind === "quantity")
        writeCell(row.getCell(k + 1), shownQuantity(environment, c.key as (typeof BASE_UNITS)[number]), c, decimals);
    });
    row.commit();
  }
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
