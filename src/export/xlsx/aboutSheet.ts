import type ExcelJS from "exceljs";
import type { BillingReport } from "../../billing/billingReport.js";
import { isoUtc } from "../../base/time.js";
import { Exact } from "../../billing/exact.js";
import { nuUnit } from "../../billing/money.js";
import { cuRuleText } from "../../billing/units.js";
import { addSheet, font } from "./style.js";
import { shownUnits } from "../billingColumns.js";
import { unitsParagraph } from "../unitDefinitions.js";

/** One row of the About sheet: what, and its value. */
type Item = [string, string | number];

/** The period, the account, when, and (but in a statement, one account's) the inputs and their fingerprints. */
function periodItems(report: BillingReport): Item[] {
  const rows: Item[] = [];
  const add = (item: string, value: string | number) => rows.push([item, value]);
  const { params } = report;
  add("Period start (UTC, inclusive)", isoUtc(params.start));
  add("Period end (UTC, exclusive)", isoUtc(params.end));
  add("Account", params.accountId === undefined ? "every account (and the environment)" : String(params.accountId));
  add("Generated at (UTC)", isoUtc(Math.floor(report.generatedAtMs / 1000)));
  // A statement is one account's: the inputs and file counts of the whole load are other accounts' too.
  if (report.statementOf === undefined) {
    for (const input of report.inputs) add("Input", `${input.input}  ${input.hash}`);
    add(
      "Data loaded",
      report.data === undefined
        ? `${report.load?.filesLoaded ?? "?"} files, not fingerprinted`
        : `${report.data.files} files, content fingerprint ${report.data.hash}`,
    );
  }
  return rows;
}

/** The units: their file and constants, what the quantities count, the units in use and the CU rollup. */
function unitItems(report: BillingReport): Item[] {
  const { options } = report;
  return [
    ["Units file", report.unitsFile ?? "none: the published constants"],
    ...Object.entries(options.units).map(([key, value]): Item => [`Unit constant ${key}`, JSON.stringify(value)]),
    [
      "Quantities",
      `${options.per === "month" ? `unit-months: unit-hours / ${options.units.hoursPerMonth}` : "unit-hours: each hourly sample counts one hour"}; NU is a volume: ${nuUnit(options.units)} transferred (${options.units.bytesPerNu} bytes each), whatever the period, and is priced per ${nuUnit(options.units)}`,
    ],
    ["Units in use", unitsParagraph(options.units, shownUnits(report), options.cuRollup, options.per)],
    [
      "CU rollup",
      options.cuRollup === "aggregate"
        ? `aggregate: a cloud space's, account's and the environment's CU is ${cuRuleText(options.units)} of its own totals per hour, summed over hours`
        : "sum: a level's CU is the sum of its machines' CU",
    ],
  ];
}

/** The price list, how lines are rounded and split (showback), and the unrounded sum. */
function priceItems(report: BillingReport): Item[] {
  const p = report.prices;
  if (!p) return [["Price list", "none: quantities only"]];
  const rows: Item[] = [];
  const add = (item: string, value: string | number) => rows.push([item, value]);
  add(
    "Price list",
    report.statementOf !== undefined
      ? `${p.source ?? "given"}: ${p.currency}${p.accounts.size > 0 ? ", with this account's own prices" : ""}`
      : `${p.source ?? "given"}: ${p.currency}, ${p.accounts.size} account override${p.accounts.size === 1 ? "" : "s"}`,
  );
  add(
    "Rounding",
    `each invoice line is quantity × unit price (the quantity in the unit of the price: unit-months are unit-hours / ${report.options.units.hoursPerMonth}), rounded half-even to ${p.decimals} decimals; an account's amount due is the sum of its rounded lines, the total amount due the sum of the accounts'`,
  );
  add(
    "Showback",
    "CU is allocated hour by hour from the account to its cloud spaces in proportion to their own CU, and on to their machines (equal shares when all are 0); each line amount is split over cloud spaces, then machines and gateways, by the largest-remainder method (ties to the lower id), so every level adds up to the account's lines exactly",
  );
  if (report.invoices) {
    const exact = report.invoices.reduce((a, inv) => a.add(inv.exactAmount), Exact.ZERO);
    const text = exact.toDecimalString();
    add(
      "Unrounded sum (information)",
      `${text !== undefined && !/\.\d{13}/.test(text) ? text : `${exact.toFixed(12)}…`} ${p.currency}: the lines before rounding; information only, not an amount due`,
    );
  }
  return rows;
}

/** Runs of hours in UTC: an hour alone, else its first and last. */
const runsText = (runs: readonly { hours: number; startHour: number; endHour: number }[]): string =>
  runs.map((r) => (r.hours === 1 ? isoUtc(r.startHour) : `${isoUtc(r.startHour)}..${isoUtc(r.endHour)}`)).join(", ");

/**
 * Data quality: an empty period, missing and lost hours, skipped and duplicate files, machines not billed, warnings.
 */
function qualityItems(report: BillingReport): Item[] {
  const rows: Item[] = [];
  const add = (item: string, value: string | number) => rows.push([item, value]);
  const { quality } = report;
  if (quality.emptyPeriod) add("Empty period", "no account has a sample in the period");
  if (quality.missingHours.length === 0) add("Missing hours", "none");
  for (const m of quality.missingHours) {
    add(`Missing hours, account ${m.accountId}`, `${m.hours}: ${runsText(m.runs)}`);
    // of them, those sync gave up: they will never come
    if (m.lost) add(`Of which lost at source, account ${m.accountId}`, `${m.lost.hours}: ${runsText(m.lost.runs)}`);
  }
  if (report.statementOf === undefined) {
    add("Skipped files", quality.skipped.length === 0 ? "none" : String(quality.skipped.length));
    for (const s of quality.skipped) add("Skipped file", `${s.file}: ${s.code}: ${s.reason}`);
    add("Byte-identical duplicates dropped", String(quality.duplicates.length));
  }
  for (const t of quality.unbilledMachineTypes)
    add("Not billed", `${t.machineHours} machine-hours of type "${t.type}"`);
  add("Warnings", report.warnings.length === 0 ? "none" : String(report.warnings.length));
  for (const w of report.warnings) add(`Warning ${w.code}`, w.message);
  return rows;
}

/** The About sheet: period in UTC, when, inputs and their hashes, units, prices, rules and data quality. */
export function writeAboutSheet(workbook: ExcelJS.stream.xlsx.WorkbookWriter, report: BillingReport): void {
  const sheet = addSheet(workbook, "About", 0);
  sheet.columns = [{ width: 34 }, { width: 110 }];
  const rows = [...periodItems(report), ...unitItems(report), ...priceItems(report), ...qualityItems(report)];
  rows.forEach(([item, value], i) => {
    const row = sheet.getRow(i + 1);
    row.getCell(1).value = item;
    row.getCell(1).font = font({ bold: true });
    row.getCell(1).alignment = { vertical: "top" };
    row.getCell(2).value = value;
    row.getCell(2).alignment = { wrapText: true, vertical: "top" };
    row.height = 15 * Math.max(1, Math.ceil(String(value).length / 110));
    row.commit();
  });
  sheet.commit();
}
