import type { BillingReport } from "../billing/billingReport.js";
import type { BillingLine } from "../billing/lines.js";
import { nuUnit } from "../billing/money.js";
import { BASE_UNITS, UNIT_NAMES } from "../billing/unitNames.js";
import { isoUtc } from "../time.js";
import { periodText } from "./periodText.js";

/** Levels shown by the text summary, from the top down. */
const SUMMARY_LEVELS = new Set(["environment", "account", "cloudspace"]);

/**
 * A billing report as an aligned plain-text table for a terminal: the environment (or the
 * account) and the level below it, with the CU rollup rule and the data-quality warnings;
 * with a price list, each line's amount due (cloud spaces: their showback share) and the
 * total amount due. Quantities are shown with 4 decimals; JSON, CSV and XLSX carry the full values.
 */
export function toBillingText(report: BillingReport): string {
  const { params, options } = report;
  const units = options.allUnits ? UNIT_NAMES : BASE_UNITS;
  const unitSuffix = options.per === "month" ? "-months" : "-hours";
  const decimals = report.prices?.decimals ?? 2;
  const indexes = report.lines.map((l, i) => [l, i] as const)
    .filter(([l]) => SUMMARY_LEVELS.has(l.level) && (params.accountId !== undefined || l.level !== "cloudspace"));
  const money = report.prices ? [`amount due (${report.prices.currency})`] : [];
  const header = ["level", "id", "name", "hours", ...units.map((u) => (u === "NU" ? `NU-${nuUnit(options.units)}` : `${u}${unitSuffix}`)), ...money];
  const rows = indexes.map(([l, i]) => [
    l.level, idOf(l), l.name, String(l.sampleHours),
    ...units.map((u) => (l.quantities[u] ?? 0).toFixed(4)),
    ...(report.prices ? [report.money?.[i]?.amount.toFixed(decimals) ?? ""] : []),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i < 3 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ").trimEnd();
  const out = [
    `period [${isoUtc(params.start)}, ${isoUtc(params.end)})${params.accountId === undefined ? "" : `, account ${params.accountId}`}; CU rollup: ${options.cuRollup}`,
    "",
    line(header),
    line(widths.map((w) => "-".repeat(w))),
    ...rows.map(line),
  ];
  const periods = (report.invoices ?? []).filter((inv) => inv.lines.some((l) => l.start !== params.start || l.end !== params.end));
  if (report.prices && periods.length > 0) {
    out.push("", `prices that change in the period: the invoice lines of each price period (${report.prices.currency})`);
    for (const inv of periods) {
      for (const l of inv.lines) {
        out.push(`  account ${inv.accountId} ${l.unit} ${periodText(l)}: ${l.quantity.toFixed(4)} ${l.quantityUnit} × ${l.unitPrice} = ${l.amount.toFixed(inv.decimals)}`);
      }
    }
  }
  if (report.prices && report.amountDue) {
    out.push("", `total amount due: ${report.amountDue.toFixed(decimals)} ${report.prices.currency} (the sum of the accounts' amounts due; each is the sum of its lines, each rounded half-even)`);
  }
  if (report.warnings.length > 0) out.push("", ...report.warnings.map((w) => `warning: ${w.message}`));
  return `${out.join("\n")}\n`;
}

function idOf(line: BillingLine): string {
  if (line.level === "environment") return "";
  return String(line.machineId ?? line.cloudspaceId ?? line.accountId ?? "");
}
