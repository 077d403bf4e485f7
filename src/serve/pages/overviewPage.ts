import type { Exact } from "../../billing/exact.js";
import type { UnitName } from "../../billing/unitNames.js";
import { isoUtc } from "../../base/time.js";
import type { ForecastUnit } from "../../forecast/forecast.js";
import { lagOf, lagText } from "../../forecast/warehouseLag.js";
import type { OverviewAccount, OverviewData } from "../overviewData.js";
import { lostCell } from "./qualityPage.js";
import { when, esc, money, monthPicker, num, page, table, withMonth, type ChartSpec, type Column } from "./html.js";

/** The four units of the service's bill, with what their quantities are in. */
export const SHOWN_UNITS: readonly { unit: ForecastUnit; of: string; digits: number }[] = [
  { unit: "CU", of: "CU-hours", digits: 2 },
  { unit: "SU", of: "SU-hours", digits: 2 },
  { unit: "TU", of: "TU-hours", digits: 2 },
  { unit: "NU", of: "TiB", digits: 4 }, // a machine's traffic is often well under 0.01 TiB
];

/** Charts of units per day: one per unit, bars. */
export function dailyCharts(
  prefix: string,
  days: readonly { start: number; quantities: Record<UnitName, number | null> }[],
): ChartSpec[] {
  return SHOWN_UNITS.map(({ unit, of }) => ({
    id: `${prefix}-${unit}`,
    title: `${unit} per day`,
    subtitle: of,
    x: days.map((d) => d.start),
    units: [of],
    bars: true,
    lines: [{ label: unit, unit: of, values: days.map((d) => d.quantities[unit]) }],
  }));
}

/** The chart boxes of `charts`, in a grid. */
export const chartBoxes = (charts: readonly ChartSpec[], wide = false): string =>
  `<div class="charts${wide ? " wide" : ""}">${charts.map((c) => `<section class="chart"><h3>${esc(c.title)}${c.subtitle ? `<small>${esc(c.subtitle)}</small>` : ""}</h3><div id="${esc(c.id)}"></div></section>`).join("")}</div>`;

/** When the month ends after the last hour held: "so far". */
const soFar = (data: OverviewData) =>
  data.status.period !== null && data.month.end > data.status.period.lastHourEpoch + 3600;

/** A month-end forecast of one currency's amounts, rounded to its decimals. */
interface ForecastCardFigures {
  currency: string;
  decimals: number;
  projected: Exact;
  low: Exact;
  high: Exact;
}

/**
 * The month-end forecast beside the amount so far (while the month runs, with a price list):
 * the projected amount and its range, labelled a forecast (it is not owed). One card, or one
 * per currency when the accounts bill in several (two currencies never added).
 */
function forecastCards(data: OverviewData): string[] {
  const f = data.forecast;
  if (f === undefined) return [];
  if (f.amount && data.amountDue) {
    const decimals = data.report.invoices?.[0]?.decimals ?? 2;
    return [forecastCard(data, { ...f.amount, currency: data.amountDue.currency, decimals }, "forecast", "")];
  }
  const perCurrency = data.forecastAmounts ?? [];
  if (perCurrency.length <= 1) return [];
  return perCurrency.map((t) =>
    forecastCard(
      data,
      t,
      `forecast-in-${t.currency}`,
      ` in ${t.currency}, account${t.accountIds.length === 1 ? "" : "s"} ${t.accountIds.join(", ")}`,
    ),
  );
}

/** One forecast card: `id` its element's, `of` what its label adds after "Forecast for the month's end". */
function forecastCard(data: OverviewData, figures: ForecastCardFigures, id: string, of: string): string {
  const { weeks, hoursRemaining } = data.forecast!;
  const { currency, decimals } = figures;
  const range =
    weeks > 0
      ? `range ${money(figures.low.toFixed(decimals), undefined)} to ${money(figures.high.toFixed(decimals), currency)} (each of the last ${weeks} week${weeks === 1 ? "" : "s"} repeated instead)`
      : "less than a week held: no range";
  return (
    `<div class="card forecast" id="${esc(id)}"><div class="label">Forecast for the month's end${esc(of)}, ${esc(data.month.month)}</div>` +
    `<div class="value">${esc(money(figures.projected.toFixed(decimals), currency))}</div>` +
    `<div class="sub">the amount so far plus the last 7 days repeated hour by hour for the ${hoursRemaining} h to go; ${esc(range)}</div></div>`
  );
}

/** The amount-due cards: one, or one per currency when the accounts bill in several (never added). */
function amountCards(data: OverviewData, due: string, partial: boolean): string[] {
  const month = data.month.month;
  return [
    (data.amountsDue?.length ?? 0) > 1
      ? // accounts billing in several currencies: a card per currency, two currencies never added
        data
          .amountsDue!.map(
            (t) =>
              `<div class="card amount-due-currency" id="amount-due-${esc(t.currency)}"><div class="label">${due}${partial ? " so far (month to date)" : ""} in ${esc(t.currency)}, ${esc(month)}</div><div class="value">${esc(money(t.amount, t.currency))}</div><div class="sub">account${t.accountIds.length === 1 ? "" : "s"} ${esc(t.accountIds.join(", "))}; accounts bill in ${data.amountsDue!.length} currencies, never added</div></div>`,
          )
          .join("")
      : data.amountDue
        ? `<div class="card" id="amount-due"><div class="label">${due}${partial ? " so far (month to date)" : ""}, ${esc(month)}</div><div class="value">${esc(money(data.amountDue.amount, data.amountDue.currency))}</div></div>`
        : `<div class="card"><div class="label">Amount due</div><div class="sub">start with --prices FILE to see amounts</div></div>`,
  ];
}

/** The accounts' amount column: with its currency per row when they bill in several, else the one of the heading. */
function amountColumn(data: OverviewData, several: boolean): Column<RankedAccount>[] {
  if (!several && !data.amountDue) return [];
  const currency = several ? "its currency" : data.amountDue!.currency;
  return [
    {
      heading: data.taxesKnown ? "Net amount" : "Amount due",
      note: data.taxesKnown ? `${currency}, before tax` : currency,
      numeric: true,
      cell: (a) => ({ html: esc(money(a.amount, several ? a.currency : undefined)), sort: Number(a.amount ?? 0) }),
    },
  ];
}

/** A line first when the warehouse is behind (as `forecast`, `alerts` and `top` say it): its figures end at its latest hour held. */
function behind(data: OverviewData): string {
  const lag =
    data.status.period === null ? undefined : lagOf(data.status.period.lastHourEpoch, data.status.currentHourEpoch);
  if (!lag?.behind) return "";
  const text = lagText(lag);
  return `<p class="lead" id="warehouse-behind"><span class="bad">${esc(text.charAt(0).toUpperCase() + text.slice(1))}</span>: the figures end there (as of ${esc(when(lag.currentHourEpoch))}; <code>cloudunits status</code> says which account).</p>`;
}

/** The register changed outside cloudunits: said first, in red, with what to do; nothing when it is as recorded. */
function registerBroken(data: OverviewData): string {
  const problems = data.registerProblems;
  if (problems.length === 0) return "";
  return (
    `<h2 id="register-broken">Invoice register changed outside cloudunits</h2>
<p class="lead"><span class="bad">${problems.length} change${problems.length === 1 ? "" : "s"}</span> to issued records not made by cloudunits. ` +
    "Issued files and the Receivables page are withheld and nothing is issued until the warehouse is restored from a backup; <code>cloudunits invoices verify</code> lists the same.</p>\n" +
    `<ul>${problems.map((p) => `<li>${esc(p)}</li>`).join("")}</ul>`
  );
}

/** Issued invoices the warehouse now disagrees with (late, rewritten or vanished hours), and what to run: nothing when there are none. */
function toCorrect(data: OverviewData): string {
  if (data.invoicesToCorrect.length === 0) return "";
  const changed = (hours: readonly number[], what: string) => (hours.length === 0 ? [] : [`${hours.length} h ${what}`]);
  const rows = table(
    "to-correct",
    [
      { heading: "Invoice", cell: (d) => ({ html: esc(d.number) }) },
      { heading: "Account", numeric: true, cell: (d) => accountLink(isoUtc(d.start).slice(0, 7), d.accountId) },
      { heading: "Month", cell: (d) => ({ html: esc(isoUtc(d.start).slice(0, 7)) }) },
      { heading: "Issued", cell: (d) => ({ html: esc(d.issueDate) }) },
      {
        heading: "Hours changed since",
        cell: (d) => ({
          html: esc(
            [
              ...changed(d.late, "arrived late"),
              ...changed(d.rewritten, "rewritten"),
              ...changed(d.gone, "no longer held"),
            ].join(", "),
          ),
        }),
      },
    ],
    data.invoicesToCorrect,
  );
  return (
    `<h2 id="invoices-to-correct">Issued invoices to correct</h2>
<p class="lead"><span class="bad">${data.invoicesToCorrect.length}</span> issued invoice${data.invoicesToCorrect.length === 1 ? " was" : "s were"} computed from hours the warehouse now holds otherwise. ` +
    "An issued invoice never changes: <code>cloudunits invoices issue</code> says by how much the figures differ, <code>cloudunits invoices correct --number N</code> issues a credit note and a new invoice.</p>\n" +
    rows
  );
}

type RankedAccount = OverviewAccount & { rank: number };

/**
 * The environment's card of each unit: the month's quantity (so far), and its month-end forecast while the month
 * runs.
 */
function unitCards(data: OverviewData, partial: boolean): string {
  const environment = data.report.lines.find((l) => l.level === "environment");
  return SHOWN_UNITS.map(
    ({ unit, of, digits }) =>
      `<div class="card" id="env-${unit}"><div class="label">Environment ${esc(unit)}, ${esc(data.month.month)}${partial ? " so far" : ""}</div><div class="value">${esc(num(environment?.quantities[unit] ?? 0, digits))} <small>${esc(of)}</small></div>${
        data.forecast
          ? `<div class="sub" id="forecast-${unit}">month-end forecast ${esc(num(data.forecast.projected[unit], digits))}</div>`
          : ""
      }</div>`,
  ).join("");
}

/** A cell linking an account to its page of `month`. */
function accountLink(month: string, accountId: number): { html: string; sort: number } {
  return { html: `<a href="${esc(withMonth(`/account/${accountId}`, month))}">${accountId}</a>`, sort: accountId };
}

/** The accounts table's columns: rank, account, name, the units, and the amount with a price list. */
function accountColumns(data: OverviewData, several: boolean): Column<RankedAccount>[] {
  return [
    { heading: "#", numeric: true, cell: (a) => ({ html: String(a.rank), sort: a.rank }) },
    { heading: "Account", numeric: true, cell: (a) => accountLink(data.month.month, a.accountId) },
    { heading: "Name", cell: (a) => ({ html: esc(a.name) }) },
    ...SHOWN_UNITS.map(({ unit, of, digits }): Column<RankedAccount> => ({
      heading: unit,
      note: of,
      numeric: true,
      cell: (a) => ({ html: num(a.quantities[unit], digits), sort: a.quantities[unit] ?? 0 }),
    })),
    ...amountColumn(data, several),
  ];
}

/** The accounts ranked, with the total of their amounts when they bill in one currency. */
function accountsTable(data: OverviewData, several: boolean): string {
  const columns = accountColumns(data, several);
  const total = data.amountDue
    ? `<tfoot><tr><td colspan="${columns.length - 1}">Total: the sum of the accounts' ${data.taxesKnown ? "net amounts" : "amounts due"}</td><td class="num" id="accounts-total">${esc(money(data.amountDue.amount, undefined))}</td></tr></tfoot>`
    : "";
  const ranked = data.accounts.map((a, i) => ({ ...a, rank: i + 1 }));
  return table("accounts", columns, ranked, total);
}

/** How fresh the warehouse is, per account: complete until, behind, missing, lost, last sync. */
function freshnessTable(data: OverviewData): string {
  const names = new Map(data.accounts.map((a) => [a.accountId, a.name]));
  return table(
    "freshness",
    [
      { heading: "Account", numeric: true, cell: (a) => accountLink(data.month.month, a.accountId) },
      { heading: "Name", cell: (a) => ({ html: esc(names.get(a.accountId) || a.name || "") }) },
      {
        heading: "Complete until",
        note: "UTC",
        cell: (a) => ({
          html: a.completeUntilEpoch === null ? "—" : esc(when(a.completeUntilEpoch)),
          sort: a.completeUntilEpoch ?? 0,
        }),
      },
      {
        heading: "Behind",
        note: "hours",
        numeric: true,
        cell: (a) => ({
          html: a.lagHours === null ? "—" : `<span class="${a.lagHours > 2 ? "warn" : "ok"}">${a.lagHours}</span>`,
          sort: a.lagHours ?? -1,
        }),
      },
      {
        heading: "Missing",
        note: "hours",
        numeric: true,
        cell: (a) => {
          const n = a.missing.reduce((s, m) => s + m.hours, 0);
          return { html: `<span class="${n > 0 ? "bad" : "ok"}">${n}</span>`, sort: n };
        },
      },
      { heading: "Lost", note: "hours, at source", numeric: true, cell: (a) => lostCell(a) },
      {
        heading: "Last sync",
        cell: (a) => ({
          html: a.lastSync
            ? `${a.lastSync.atEpoch === null ? "—" : esc(when(a.lastSync.atEpoch))} ${a.lastSync.result ? `<span class="tag">${esc(a.lastSync.result)}</span>` : ""}`
            : '<span class="note">never synced (ingested)</span>',
        }),
      },
    ],
    data.status.accounts,
  );
}

/** The overview page: the month's units per day, its amount due, the accounts ranked, the warehouse's freshness. */
export function overviewPage(data: OverviewData): string {
  const month = data.month.month;
  const partial = soFar(data);
  // the amounts are the sums of the invoices' lines: where taxes are known, an amount due is the gross, so these are named the net
  const due = data.taxesKnown ? "Net amount (before tax)" : "Amount due";
  const several = (data.amountsDue?.length ?? 0) > 1;
  const forecasts = forecastCards(data);
  const amounts = [...amountCards(data, due, partial), ...forecasts].join("");
  const cards = unitCards(data, partial);
  const charts = dailyCharts("day", data.days);
  const body = `
<div class="head"><div><h1>Overview <small>${esc(month)}${partial ? " · month to date" : ""}</small></h1>
<p class="lead">The environment's billing units per day (UTC), ${data.amountDue ? `the ${due.toLowerCase()},` : ""} the accounts ranked by ${data.amountDue ? due.toLowerCase() : "CU"}, and how fresh the warehouse is.</p></div>
${monthPicker(data.months, month, "/")}</div>
${registerBroken(data)}
${behind(data)}
${toCorrect(data)}
${
  forecasts.length > 0
    ? `<div class="cards amounts">${amounts}</div>
<div class="cards">${cards}</div>`
    : `<div class="cards">${amounts}${cards}</div>`
}
${chartBoxes(charts)}
<h2>Accounts by ${data.amountDue ? due.toLowerCase() : "CU"}, ${esc(month)}</h2>
${accountsTable(data, several)}
<p class="note">Each account's CU is its own (the CU rule applied to the account's totals each hour); the environment's is the rule applied to everything at once, so it is at most the sum of the accounts'.</p>
<h2>Freshness</h2>
${freshnessTable(data)}
<p class="note">Complete until: every hour before it is held, missing or lost at source (never written within the platform's retention: red until accepted with <code>status --accept-lost</code>); hours after it are not yet synced.</p>`;
  return page(`Overview ${month}`, body, charts, footerOf(data.report.generatedAtMs));
}

/** The footer: when the figures were computed. */
export const footerOf = (generatedAtMs: number): string =>
  `Figures computed ${esc(when(generatedAtMs / 1000))} from the warehouse, read-only.`;
