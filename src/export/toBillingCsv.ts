import type { BillingLine } from "../billing/lines.js";
import { lineMoney } from "../billing/money.js";
import type { BillingReport } from "../billing/billingReport.js";
import { Exact } from "../billing/exact.js";
import { billingColumns, type BillingColumn, type Cell } from "./billingColumns.js";
import { plainNumber } from "./plainNumber.js";

/** Options of the billing CSV. */
export interface BillingCsvOptions {
  /** Start with a UTF-8 byte order mark so Excel reads UTF-8; default false. */
  excel?: boolean;
  /** Hourly lines (from `hourlyLines`) instead of the report's period lines. */
  hourly?: AsyncIterable<BillingLine[]>;
}

/** A text cell a spreadsheet would run as a formula (`= + - @`, tab, CR) gets a leading `'`. */
export function guardFormula(text: string): string {
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

function csvCell(cell: Cell, column: BillingColumn, decimals: number): string {
  if (cell === null) return "";
  let text: string;
  if (cell instanceof Exact) text = cell.toFixed(decimals);
  else if (typeof cell === "number") text = plainNumber(cell);
  else text = column.kind === "text" ? guardFormula(cell) : cell;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * The billing report as CSV (RFC 4180, CRLF): a header row with units, then one row per
 * entity and level (or per entity, level and hour with `hourly`). Numbers are unformatted
 * with `.` decimals and all their digits; money is rounded half-even at the currency's
 * decimals; ids are plain integers (at most 10 digits: spreadsheets keep them exact).
 * Yields text chunks, so hourly detail streams.
 */
export async function* toBillingCsv(report: BillingReport, options: BillingCsvOptions = {}): AsyncGenerator<string> {
  const columns = billingColumns(report, options.hourly !== undefined);
  const decimals = report.prices?.decimals ?? 2;
  const row = (cells: string[]) => `${cells.join(",")}\r\n`;
  yield (options.excel ? "\uFEFF" : "") + row(columns.map((c) => csvCell(c.header, { ...c, kind: "text" }, decimals)));
  const render = (lines: BillingLine[], money: (ReturnType<typeof lineMoney> | undefined)[]) =>
    lines.map((line, i) => row(columns.map((c) => csvCell(c.value(line, money[i]), c, decimals)))).join("");
  if (options.hourly) {
    for await (const batch of options.hourly) {
      const prices = report.prices;
      const money = batch.map((l) => (prices && l.level !== "environment" ? lineMoney(l, prices, report.options.units) : undefined));
      yield render(batch, money);
    }
  } else {
    yield render(report.lines, report.money ?? []);
  }
}
