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
  const { params, options } = report;
  const units = shownUnits(report);
  const perUnit = options.per === "month" ? "-months" : "-hours";
  const currency = report.prices?.currency;
  const one = params.accountId !== undefined;
  const indexes = report.lines
    .map((l, i) => [l, i] as const)
    .filter(([l]) => l.level === "account" || (one && l.level === "cloudspace"));
  const accounts = indexes.filter(([l]) => l.level === "account");
  const n = `${accounts.length} account${accounts.length === 1 ? "" : "s"}`;
  const quantity = (v: number | null) => (v ?? 0).toFixed(4);
  const head = (l: BillingLine) => [l.level, idOf(l), l.name, String(l.sampleHours)];

  const cuColumns = one && options.cuRollup === "aggregate";
  const quantities = table(
    [
      "level",
      "id",
      "name",
      "hours",
      ...units.flatMap((u) =>
        u === "CU" && cuColumns
          ? ["CU own", "CU allocated"]
          : [isVolume(u) ? `${u}-${nuUnit(options.units)}` : `${u}${perUnit}`],
      ),
    ],
    indexes.map(([l]) => [
      ...head(l),
      ...units.flatMap((u) =>
        u === "CU" && cuColumns ? [quantity(l.quantities.CU), quantity(l.cuAllocated)] : [quantity(l.quantities[u])],
      ),
    ]),
    one
      ? undefined
      : ["total", "", n, "", ...units.map((u) => quantity(accounts.reduce((a, [l]) => a + (l.quantities[u] ?? 0), 0)))],
  );
  const out = [
    `period [${isoUtc(params.start)}, ${isoUtc(params.end)})${one ? `, account ${params.accountId}` : ""}`,
    cuRuleLine(report),
    "",
    ...quantities,
  ];
  const environment = report.lines.find((l) => l.level === "environment");
  if (!one && environment && options.cuRollup === "aggregate") {
    out.push(
      "",
      `the environment's own CU (its own totals per hour, not a total of the rows above): ${quantity(environment.quantities.CU)} CU${perUnit}; the accounts' CU add up to ${quantity(environment.cuAllocated)}`,
    );
  }
  if (cuColumns) {
    out.push(
      "",
      "CU own: a cloud space's CU from its own totals, so the cloud spaces' own CU may add up to more than the account's; CU allocated splits the account's CU in proportion to it, hour by hour, and adds up.",
    );
  }
  const totals = report.amountsDue ?? [];
  if (currency && report.money && totals.length > 0) {
    const priced = pricedUnits(report.prices!).map((p) => p.unit);
    const several = totals.length > 1;
    // one table per currency: two currencies are never added
    for (const total of totals) {
      const { currency, decimals } = total;
      const of = (id: number | null) => id !== null && total.accountIds.includes(id);
      const rows = several ? indexes.filter(([l]) => of(l.accountId)) : indexes;
      const mine = rows.filter(([l]) => l.level === "account");
      const count = `${mine.length} account${mine.length === 1 ? "" : "s"}`;
      const amounts = (m: LineMoney | undefined) => priced.map((u) => unitAmountOf(m, u)?.toFixed(decimals) ?? "");
      const money = table(
        [
          "level",
          "id",
          "name",
          ...priced,
          ...(one ? [`amount due (${currency})`, `allocated cost (${currency})`] : [`amount due (${currency})`]),
        ],
        rows.map(([l, i]) => {
          const m = report.money![i];
          const sum = m?.amount.toFixed(decimals) ?? "";
          return [
            ...head(l).slice(0, 3),
            ...amounts(m),
            ...(l.level === "account" ? [sum, ...(one ? [""] : [])] : ["", sum]),
          ];
        }),
        one
          ? undefined
          : [
              "total",
              "",
              several ? count : n,
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
      out.push(
        "",
        `amounts (${currency}) per priced unit${several ? `, the accounts billed in ${currency}` : ""}:`,
        ...money,
      );
      const periods = (report.invoices ?? []).filter(
        (inv) => inv.currency === currency && inv.lines.some((l) => l.start !== params.start || l.end !== params.end),
      );
      if (periods.length > 0) {
        out.push("", `prices that change in the period: the invoice lines of each price period (${currency})`);
        for (const inv of periods) {
          for (const l of inv.lines) {
            out.push(
              `  account ${inv.accountId} ${l.unit} ${periodText(l)}: ${l.quantity.toFixed(4)} ${l.quantityUnit} × ${l.unitPrice} = ${l.amount.toFixed(inv.decimals)}`,
            );
          }
        }
      }
    }
    out.push("");
    if (one) {
      out.push(
        `amount due: ${totals[0]!.amount.toFixed(totals[0]!.decimals)} ${totals[0]!.currency} (the sum of the account's invoice lines, each quantity × unit price rounded half-even)`,
        ALLOCATION_SENTENCE,
      );
    } else if (!several) {
      out.push(
        `total amount due: ${totals[0]!.amount.toFixed(totals[0]!.decimals)} ${totals[0]!.currency} (the sum of the accounts' amounts due; each is the sum of its lines, each rounded half-even)`,
      );
    } else {
      out.push(
        `total amount due per currency (never added across currencies): ${totals.map((t) => `${t.amount.toFixed(t.decimals)} ${t.currency} (${t.accountIds.length} account${t.accountIds.length === 1 ? "" : "s"})`).join("; ")}; each is the sum of its accounts' amounts due, each the sum of its lines, each rounded half-even`,
      );
    }
  }
  if (report.warnings.length > 0) out.push("", ...report.warnings.map((w) => `warning: ${w.message}`));
  return `${out.join("\n")}\n`;
}

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
