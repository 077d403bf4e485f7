import { groupThousands } from "../../invoices/document/documentWords.js";
import { escapeHtml } from "../../export/statsHtml.js";
import { isoUtc } from "../../base/time.js";

/** Text made safe for HTML (element content and quoted attributes). */
export const esc = (value: unknown): string => escapeHtml(String(value ?? ""));

/** A time as every output of cloudunits gives it: ISO 8601 UTC, `2026-11-11T16:00:00Z`. */
export const when = (epoch: number): string => isoUtc(epoch);

/**
 * The formats of `num`, by decimals: `toLocaleString` with the same options makes this format
 * anew for every number (an account page formats some 5,000).
 */
const FORMATS = new Map<number, Intl.NumberFormat>();

/** A quantity for a table cell: grouped thousands, `digits` decimals; `—` for null. */
export function num(value: number | null | undefined, digits = 2): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "—";
  let format = FORMATS.get(digits);
  if (format === undefined)
    FORMATS.set(
      digits,
      (format = new Intl.NumberFormat("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits })),
    );
  return format.format(value);
}

/** An amount as the invoice writes it (a decimal string), with grouped thousands and its currency. */
export function money(amount: string | undefined, currency: string | undefined): string {
  if (amount === undefined) return "—";
  return `${amount.startsWith("-") ? "−" : ""}${groupThousands(amount.replace(/^-/, ""))}${currency ? ` ${currency}` : ""}`;
}

/** A column of a table: its heading, whether it is a number (right-aligned, sorted as numbers), and its cell. */
export interface Column<R> {
  heading: string;
  numeric?: boolean;
  /** The cell's HTML (already escaped) and, for sorting, its value. */
  cell(row: R): { html: string; sort?: number | string };
  /** A note under the heading, e.g. a unit. */
  note?: string;
}

/** A table whose rows the reader can sort by clicking a heading (`dashboard.js`); on a narrow screen it scrolls sideways in its box, never the page. */
export function table<R>(id: string, columns: readonly Column<R>[], rows: readonly R[], footer?: string): string {
  const head = columns
    .map(
      (c) =>
        `<th${c.numeric ? ' class="num"' : ""} scope="col">${esc(c.heading)}${c.note ? `<small>${esc(c.note)}</small>` : ""}</th>`,
    )
    .join("");
  const body = rows
    .map(
      (row) =>
        `<tr>${columns
          .map((c) => {
            const { html, sort } = c.cell(row);
            return `<td${c.numeric ? ' class="num"' : ""}${sort !== undefined ? ` data-sort="${esc(sort)}"` : ""}>${html}</td>`;
          })
          .join("")}</tr>`,
    )
    .join("\n");
  return `<div class="table-wrap"><table class="sortable" id="${esc(id)}"><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody>${footer ?? ""}</table></div>`;
}

/** One chart the page script draws with uPlot: a time axis, a line (or bars) per label, axes per unit, marked hour ranges. */
export interface ChartSpec {
  id: string;
  title: string;
  subtitle?: string;
  /** The x values: epoch seconds. */
  x: number[];
  units: string[];
  lines: { label: string; unit: string; values: (number | null)[] }[];
  /** Bars (one per x) instead of lines. */
  bars?: boolean;
  /** Ranges `[from, to)` shaded with their label (halted hours). */
  bands?: { from: number; to: number; label: string }[];
}

/** A link to a page with a month picked. */
export const withMonth = (path: string, month: string): string => `${path}?month=${encodeURIComponent(month)}`;

/** The month picker: a form (works without the script), which the script submits on change. */
export function monthPicker(months: readonly { month: string }[], chosen: string, action: string): string {
  const options = [...months]
    .reverse()
    .map((m) => `<option value="${esc(m.month)}"${m.month === chosen ? " selected" : ""}>${esc(m.month)}</option>`)
    .join("");
  return `<form class="picker" method="get" action="${esc(action)}"><label>Month <select name="month" data-autosubmit>${options}</select></label><noscript><button>Show</button></noscript></form>`;
}

/** A whole page: the navigation, the body, the charts' data for `dashboard.js`. */
export function page(title: string, body: string, charts: readonly ChartSpec[] = [], footer = ""): string {
  const payload = JSON.stringify({ charts }).replaceAll("<", "\\u003c");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)} · cloudunits</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/assets/uPlot.min.css">
<link rel="stylesheet" href="/assets/dashboard.css">
</head>
<body>
<nav><a class="brand" href="/">cloudunits</a><a href="/">Overview</a><a href="/quality">Data quality</a><a href="/receivables">Receivables</a></nav>
<main>
${body}
</main>
<footer>${footer}</footer>
<script type="application/json" id="charts-data">${payload}</script>
<script src="/assets/uPlot.iife.min.js"></script>
<script src="/assets/dashboard.js"></script>
</body>
</html>
`;
}
