import type ExcelJS from "exceljs";
import type { BillingReport } from "../../billing/billingReport.js";
import { isoUtc } from "../../base/time.js";
import { Exact } from "../../billing/exact.js";
import { nuUnit } from "../../billing/money.js";
import { cuRuleText } from "../../billing/units.js";
import { addSheet, font } from "./style.js";
import { shownUnits } from "../billingColumns.js";
import { unitsParagraph } from "../unitDefinitions.js";

/** The About sheet: period in UTC, when, inputs and their hashes, units, prices, rules and data quality. */
export function writeAboutSheet(workbook: ExcelJS.stream.xlsx.WorkbookWriter, report: BillingReport): void {
  const sheet = addSheet(workbook, "About", 0);
  sheet.columns = [{ width: 34 }, { width: 110 }];
  const rows: [string, string | number][] = [];
  const add = (item: string, value: string | number) => rows.push([item, value]);
  const { params, options, quality } = report;
  add("Period start (UTC, inclusive)", isoUtc(params.start));
  add("Period end (UTC, exclusive)", isoUtc(params.end));
  const statement = report.statementOf !== undefined;
  add("Account", params.accountId === undefined ? "every account (and the environment)" : String(params.accountId));
  add("Generated at (UTC)", isoUtc(Math.floor(report.generatedAtMs / 1000)));
  // A statement is one account's: the inputs and file counts of the whole load are other accounts' too.
  if (!statement) {
    for (const input of report.inputs) add("Input", `${input.input}  ${input.hash}`);
    add(
      "Data loaded",
      report.data === undefined
        ? `${report.load?.filesLoaded ?? "?"} files, not fingerprinted`
        : `${report.data.files} files, content fingerprint ${report.data.hash}`,
    );
  }
  add("Units file", report.unitsFile ?? "none: the published constants");
  for (const [key, value] of Object.entries(options.units)) add(`Unit constant ${key}`, JSON.stringify(value));
  add(
    "Quantities",
    `${options.per === "month" ? `unit-months: unit-hours / ${options.units.hoursPerMonth}` : "unit-hours: each hourly sample counts one hour"}; NU is a volume: ${nuUnit(options.units)} transferred (${options.units.bytesPerNu} bytes each), whatever the period, and is priced per ${nuUnit(options.units)}`,
  );
  add("Units in use", unitsParagraph(options.units, shownUnits(report), options.cuRollup, options.per));
  add(
    "CU rollup",
    options.cuRollup === "aggregate"
      ? `aggregate: a cloud space's, account's and the environment's CU is ${cuRuleText(options.units)} of its own totals per hour, summed over hours`
      : "sum: a level's CU is the sum of its machines' CU",
  );
  if (report.prices) {
    const p = report.prices;
    add(
      "Price list",
      statement
        ? `${p.source ?? "given"}: ${p.currency}${p.accounts.size > 0 ? ", with this account's own prices" : ""}`
        : `${p.source ?? "given"}: ${p.currency}, ${p.accounts.size} account override${p.accounts.size === 1 ? "" : "s"}`,
    );
    add(
      "Rounding",
      `each invoice line is quantity × unit price (the quantity in the unit of the price: unit-months are unit-hours / ${options.units.hoursPerMonth}), rounded half-even to ${p.decimals} decimals; an account's amount due is the sum of its rounded lines, the total amount due the sum of the accounts'`,
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
  } else add("Price list", "none: quantities only");
  if (quality.emptyPeriod) add("Empty period", "no account has a sample in the period");
  if (quality.missingHours.length === 0) add("Missing hours", "none");
  for (const m of quality.missingHours) {
    add(
      `Missing hours, account ${m.accountId}`,
      `${m.hours}: ${m.runs.map((r) => (r.hours === 1 ? isoUtc(r.startHour) : `${isoUtc(r.startHour)}..${isoUtc(r.endHour)}`)).join(", ")}`,
    );
    // of them, those sync gave up: they will never come
    if (m.lost)
      add(
        `Of which lost at source, account ${m.accountId}`,
        `${m.lost.hours}: ${m.lost.runs.map((r) => (r.hours === 1 ? isoUtc(r.startHour) : `${isoUtc(r.startHour)}..${isoUtc(r.endHour)}`)).join(", ")}`,
      );
  }
  if (!statement) {
    add("Skipped files", quality.skipped.length === 0 ? "none" : String(quality.skipped.length));
    for (const s of quality.skipped) add("Skipped file", `${s.file}: ${s.code}: ${s.reason}`);
    add("Byte-identical duplicates dropped", String(quality.duplicates.length));
  }
  for (const t of quality.unbilledMachineTypes)
    add("Not billed", `${t.machineHours} machine-hours of type "${t.type}"`);
  add("Warnings", report.warnings.length === 0 ? "none" : String(report.warnings.length));
  for (const w of report.warnings) add(`Warning ${w.code}`, w.message);
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
