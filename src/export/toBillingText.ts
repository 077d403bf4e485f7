import type { BillingReport } from "../billing/billingReport.js";
import type { BillingLine } from "../billing/lines.js";
import { Exact } from "../billing/exact.js";
import { nuUnit, unitAmountOf, type LineMoney } from "../billing/money.js";
import { pricedUnits } from "../billing/prices.js";
import { cuRuleSentence } from "../billing/units.js";
import type { UnitName } from "../billing/unitNames.js";
import { isVolume } from "../billing/unitCatalog.js";
import { isoUtc } from "../base/time.js";
import { periodText } from "./periodText.js";
import { ALLOCATION_SENTENCE, shownUnits } from "./billingColumns.js";

/**
 * A billing report as aligned plain-text tables for a terminal. Without an account id: one
 * row per account, a total row that adds up the rows above it (its amount due is the total
 * amount due), and the environment's own CU on a line of its own (under `aggregate` it is
 * less than the accounts' sum, so it never sits in a column that adds up). With an account
 * id: the account (its amount due) and its cloud spaces (their own CU, their allocated CU
 * and allocated cost, which add up to the account). Every unit with a price is shown (its
 * money is in the amount due), with `allUnits` all eight. Quantities are shown with 4
 * decimals; JSON, CSV and XLSX carry the full values.
 */
export function toBillingText(report: BillingReport): string {
  const { params } = report;
  const one = params.accountId !== undefined;
  const indexes = report.lines
    .map((l, i) => [l, i] as const)
    .filter(([l]) => l.level === "account" || (one && l.level === "cloudspace"));
  const rows: TextRows = { report, one, indexes, accounts: indexes.filter(([l]) => l.level === "account") };
  const out = [
    `period [${isoUtc(params.start)}, ${isoUtc(params.end)})${one ? `, account ${params.accountId}` : ""}`,
    cuRuleLine(report),
    "",
    ...quantityTable(rows),
    ...cuNotes(rows),
  ];
  const totals = report.amountsDue ?? [];
  if (report.prices?.currency && report.money && totals.length > 0) {
    // one table per currency: two currencies are never added
    for (const total of totals) out.push(...currencyTable(rows, total, totals.length > 1));
    out.push("", ...amountDueLines(one, totals));
  }
  if (report.warnings.length > 0) out.push("", ...report.warnings.map((w) => `warning: ${w.message}`));
  return `${out.join("\n")}\n`;
}

/** A line of the report and its index in `report.lines` (its money's). */
type Indexed = readonly [BillingLine, number];

/** The rows the text shows: the accounts, and with one account (`one`) its cloud spaces too. */
interface TextRows {
  report: BillingReport;
  one: boolean;
  indexes: readonly Indexed[];
  accounts: readonly Indexed[];
}

const quantityText = (v: number | null) => (v ?? 0).toFixed(4);
const headOf = (l: BillingLine) => [l.level, idOf(l), l.name, String(l.sampleHours)];
const accountsWord = (count: number) => `${count} account${count === 1 ? "" : "s"}`;
const perUnitOf = (report: BillingReport) => (report.options.per === "month" ? "-months" : "-hours");

/**
 * The quantities table: a column per unit shown (with one account under `aggregate`, its CU own and allocated), a
 * total row of the accounts.
 */
function quantityTable({ report, one, indexes, accounts }: TextRows): string[] {
  const { options } = report;
  const units = shownUnits(report);
  const cuColumns = one && options.cuRollup === "aggregate";
  return table(
    [
      "level",
      "id",
      "name",
      "hours",
      ...units.flatMap((u) =>
        u === "CU" && cuColumns
          ? ["CU own", "CU allocated"]
          : [isVolume(u) ? `${u}-${nuUnit(options.units)}` : `${u}${perUnitOf(report)}`],
      ),
    ],
    indexes.map(([l]) => [
      ...headOf(l),
      ...units.flatMap((u) =>
        u === "CU" && cuColumns
          ? [quantityText(l.quantities.CU), quantityText(l.cuAllocated)]
          : [quantityText(l.quantities[u])],
      ),
    ]),
    one
      ? undefined
      : [
          "total",
          "",
          accountsWord(accounts.length),
          "",
          ...units.map((u) => quantityText(accounts.reduce((a, [l]) => a + (l.quantities[u] ?? 0), 0))),
        ],
  );
}

/**
 * Under `aggregate`, what the CU figures are: the environment's own CU apart, or a cloud space's own and allocated
 * CU.
 */
function cuNotes({ report, one }: TextRows): string[] {
  if (report.options.cuRollup !== "aggregate") return [];
  const environment = report.lines.find((l) => l.level === "environment");
  if (!one && environment)
    return [
      "",
      `the environment's own CU (its own totals per hour, not a total of the rows above): ${quantityText(environment.quantities.CU)} CU${perUnitOf(report)}; the accounts' CU add up to ${quantityText(environment.cuAllocated)}`,
    ];
  if (one)
    return [
      "",
      "CU own: a cloud space's CU from its own totals, so the cloud spaces' own CU may add up to more than the account's; CU allocated splits the account's CU in proportion to it, hour by hour, and adds up.",
    ];
  return [];
}

/**
 * The amounts of the accounts billed in one currency (`several`: of several), per priced unit, and their lines of
 * each price period.
 */
function currencyTable(rows: TextRows, total: CurrencyTotal, several: boolean): string[] {
  const { report, one } = rows;
  const { currency, decimals } = total;
  const priced = pricedUnits(report.prices!).map((p) => p.unit);
  const of = (id: number | null) => id !== null && total.accountIds.includes(id);
  const shown = several ? rows.indexes.filter(([l]) => of(l.accountId)) : rows.indexes;
  const mine = shown.filter(([l]) => l.level === "account");
  const amounts = (m: LineMoney | undefined) => priced.map((u) => unitAmountOf(m, u)?.toFixed(decimals) ?? "");
  const money = table(
    [
      "level",
      "id",
      "name",
      ...priced,
      ...(one ? [`amount due (${currency})`, `allocated cost (${currency})`] : [`amount due (${currency})`]),
    ],
    shown.map(([l, i]) => {
      const m = report.money![i];
      const sum = m?.amount.toFixed(decimals) ?? "";
      return [
        ...headOf(l).slice(0, 3),
        ...amounts(m),
        ...(l.level === "account" ? [sum, ...(one ? [""] : [])] : ["", sum]),
      ];
    }),
    one
      ? undefined
      : [
          "total",
          "",
          accountsWord(several ? mine.length : rows.accounts.length),
          ...priced.map((u) =>
            sumOf(
              report,
              mine.map(([, i]) => i),
              u,
            ).toFixed(decimals),
          ),
          total.amount.toFixed(decimals),
        ],
  );
  return [
    "",
    `amounts (${currency}) per priced unit${several ? `, the accounts billed in ${currency}` : ""}:`,
    ...money,
    ...pricePeriodLines(report, currency),
  ];
}

/** The invoice lines of each price period, when prices change in the period, of the invoices in `currency`. */
function pricePeriodLines(report: BillingReport, currency: string): string[] {
  const { params } = report;
  const periods = (report.invoices ?? []).filter(
    (inv) => inv.currency === currency && inv.lines.some((l) => l.start !== params.start || l.end !== params.end),
  );
  if (periods.length === 0) return [];
  return [
    "",
    `prices that change in the period: the invoice lines of each price period (${currency})`,
    ...periods.flatMap((inv) =>
      inv.lines.map(
        (l) =>
          `  account ${inv.accountId} ${l.unit} ${periodText(l)}: ${l.quantity.toFixed(4)} ${l.quantityUnit} × ${l.unitPrice} = ${l.amount.toFixed(inv.decimals)}`,
      ),
    ),
  ];
}

/** The amount due in words: one account's, the accounts' total, or a total per currency (never added across two). */
function amountDueLines(one: boolean, totals: readonly CurrencyTotal[]): string[] {
  const first = totals[0]!;
  if (one)
    return [
      `amount due: ${first.amount.toFixed(first.decimals)} ${first.currency} (the sum of the account's invoice lines, each quantity × unit price rounded half-even)`,
      ALLOCATION_SENTENCE,
    ];
  if (totals.length === 1)
    return [
      `total amount due: ${first.amount.toFixed(first.decimals)} ${first.currency} (the sum of the accounts' amounts due; each is the sum of its lines, each rounded half-even)`,
    ];
  return [
    `total amount due per currency (never added across currencies): ${totals.map((t) => `${t.amount.toFixed(t.decimals)} ${t.currency} (${accountsWord(t.accountIds.length)})`).join("; ")}; each is the sum of its accounts' amounts due, each the sum of its lines, each rounded half-even`,
  ];
}

/** The amount due of the accounts billed in one currency. */
type CurrencyTotal = NonNullable<BillingReport["amountsDue"]>[number];

/** Σ of one unit's amounts over some lines, exactly. */
function sumOf(report: BillingReport, indexes: readonly number[], unit: UnitName): Exact {
  return indexes.reduce((a, i) => a.add(unitAmountOf(report.money?.[i], unit) ?? Exact.ZERO), Exact.ZERO);
}

/** An aligned table: header, rule, rows, and a total row under a rule; the first three columns left-aligned. */
function table(header: string[], rows: string[][], total: string[] | undefined): string[] {
  const all = total ? [...rows, total] : rows;
  const widths = header.map((h, i) => Math.max(h.length, ...all.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i < 3 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join("  ")
      .trimEnd();
  const rule = line(widths.map((w) => "-".repeat(w)));
  return [line(header), rule, ...rows.map(line), ...(total ? [rule, line(total)] : [])];
}

/** The CU rule, as every output that shows CU states it. */
function cuRuleLine(report: BillingReport): string {
  return cuRuleSentence(report.options.cuRollup, report.options.units);
}

function idOf(line: BillingLine): string {
  return String(line.machineId ?? line.cloudspaceId ?? line.accountId ?? "");
}
