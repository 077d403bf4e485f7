import type { BillingLine } from "../billing/lines.js";
import type { LineMoney } from "../billing/money.js";
import type { BillingReport } from "../billing/billingReport.js";
import { currencyOf } from "../billing/prices.js";
import { Exact } from "../billing/exact.js";
import { checkHourlyOf, type HourlyStream } from "../billing/hourlyStream.js";
import { refilledLinesOfRows } from "../billing/hourlyRowLines.js";
import { billingColumns, isShown, type BillingColumn, type Cell } from "./billingColumns.js";
import { plainNumber } from "./plainNumber.js";

/** Options of the billing CSV. */
export interface BillingCsvOptions {
  /** Start with a UTF-8 byte order mark so Excel reads UTF-8; default false. */
  excel?: boolean;
  /**
   * Hourly lines instead of the report's period lines: the report's hourly stream (e.g.
   * `warehouseHourly(connection, report)`; its rows are written as they come), or batches of
   * lines (from `hourlyLines`).
   */
  hourly?: HourlyStream | AsyncIterable<BillingLine[]>;
}

/** A text cell a spreadsheet would run as a formula (`= + - @`, tab, CR) gets a leading `'`. */
export function guardFormula(text: string): string {
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

function csvCell(cell: Cell, column: BillingColumn, decimals: number): string {
  if (cell === null) return "";
  let text: string;
  if (cell instanceof Exact) text = cell.toFixed(decimals);
  else if (typeof cell === "number")
    return plainNumber(cell); // digits, a sign and a point: never quoted
  else text = column.kind === "text" ? guardFormula(cell) : cell;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** Writes a column's cells; a time column's text is kept for the next line of the same hour (an hour's lines come together). */
function cellWriter(
  column: BillingColumn,
  decimals: number,
  decimalsOf: (line: BillingLine) => number = () => decimals,
): (line: BillingLine, money: LineMoney | undefined) => string {
  if (column.kind !== "time") return (line, money) => csvCell(column.value(line, money), column, decimalsOf(line));
  let hour: number | null = Number.NaN;
  let text = "";
  return (line, money) => {
    if (line.hourEpoch !== hour || line.hourEpoch === null) {
      hour = line.hourEpoch;
      text = csvCell(column.value(line, money), column, decimals);
    }
    return text;
  };
}

/**
 * The billing report as CSV (RFC 4180, CRLF): a header row with units, then one row per
 * entity and level (or per entity, level and hour with `hourly`, quantities only). Numbers are unformatted
 * with `.` decimals and all their digits; money is rounded half-even at the currency's
 * decimals; ids are plain integers (at most 10 digits: spreadsheets keep them exact).
 * Yields text chunks, so hourly detail streams.
 */
export async function* toBillingCsv(report: BillingReport, options: BillingCsvOptions = {}): AsyncGenerator<string> {
  // Hourly lines carry quantities only: amounts rounded per hour mislead; FOCUS has exact hourly costs.
  const columns = options.hourly
    ? billingColumns({ ...report, prices: undefined }, true)
    : billingColumns(report, false);
  const decimals = report.prices?.decimals ?? 2;
  const row = (cells: string[]) => `${cells.join(",")}\r\n`;
  yield (options.excel ? "\uFEFF" : "") + row(columns.map((c) => csvCell(c.header, { ...c, kind: "text" }, decimals)));
  const list = report.prices;
  // each account's money at its own currency's decimals (a customer may be billed in JPY beside EUR)
  const decimalsOf = (line: BillingLine) => (list ? currencyOf(list, line.accountId).decimals : decimals);
  const cells = columns.map((c) => cellWriter(c, decimals, decimalsOf));
  const rowOf = (line: BillingLine, money: LineMoney | undefined) => {
    if (!isShown(report, line, money)) return "";
    let text = cells[0]!(line, money);
    for (let c = 1; c < cells.length; c++) text += `,${cells[c]!(line, money)}`;
    return `${text}\r\n`;
  };
  const render = (lines: readonly BillingLine[], money: readonly (LineMoney | undefined)[]) => {
    let text = "";
    for (let i = 0; i < lines.length; i++) text += rowOf(lines[i]!, money[i]);
    return text;
  };
  const { hourly } = options;
  if (hourly && "report" in hourly) checkHourlyOf(hourly, report);
  if (hourly && "report" in hourly && hourly.rows) {
    // one line object rewritten for every row: nothing per line is kept
    for await (const batch of refilledLinesOfRows(hourly.rows(), report.options)) {
      let text = "";
      for (let i = 0; i < batch.count; i++) text += rowOf(batch.line(i), undefined);
      yield text;
    }
  } else if (hourly) {
    for await (const batch of "report" in hourly ? hourly.lines() : hourly) yield render(batch, []);
  } else {
    yield render(report.lines, report.money ?? []);
  }
}
