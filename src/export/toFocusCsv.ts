import type { Exact } from "../billing/exact.js";
import type { BillingReport } from "../billing/billingReport.js";
import type { HourlyStream } from "../billing/hourlyStream.js";
import { FOCUS_COLUMNS, focusRows, type FocusOptions, type FocusRow } from "./focusRows.js";
import { plainNumber } from "./plainNumber.js";
import { guardFormula } from "./toBillingCsv.js";

/** An exact cost as text: its exact decimal when it has one, else rounded half-even to 12 decimals. */
export function costText(cost: Exact): string {
  return cost.toDecimalString() ?? cost.toFixed(12);
}

function focusCell(value: FocusRow[string], guard: boolean): string {
  if (value === null) return "";
  const text =
    typeof value === "number"
      ? plainNumber(value)
      : typeof value === "string"
        ? guard
          ? guardFormula(value)
          : value
        : costText(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * The FOCUS 1.3 rows as CSV (header of FOCUS column names, CRLF, timestamps
 * `YYYY-MM-DDTHH:mm:ssZ`, costs exact), streamed. Text that a spreadsheet would run as a
 * formula gets a leading `'` unless `guardFormulas` is false. `hourly`: the report's hourly lines.
 */
export async function* toFocusCsv(
  report: BillingReport,
  hourly: HourlyStream,
  options: FocusOptions & { guardFormulas?: boolean } = {},
): AsyncGenerator<string> {
  const guard = options.guardFormulas ?? true;
  yield `${FOCUS_COLUMNS.map(([name]) => name).join(",")}\r\n`;
  for await (const rows of focusRows(report, hourly, options)) {
    yield rows
      .map((row) => `${FOCUS_COLUMNS.map(([name]) => focusCell(row[name] ?? null, guard)).join(",")}\r\n`)
      .join("");
  }
}
