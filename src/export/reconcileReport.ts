import type { ReconcileRow } from "../reconcile/compareBills.js";
import type { ReconcileReport } from "../reconcile/reconcile.js";
import { isoUtc } from "../base/time.js";
import { plainNumber } from "./plainNumber.js";
import { guardFormula } from "./toBillingCsv.js";
import { csvField } from "./csvField.js";

const PERIOD_RULES = {
  exclusive: "half-open [start, end), like ours",
  inclusive: "end-inclusive [start, end]: asked for the period's last hour as end",
} as const;

/** The lines that say what was assumed: period, platform period rule, CU rollup, tolerance. */
function assumptions(report: ReconcileReport): string[] {
  return [
    `period: [${isoUtc(report.startEpoch)}, ${isoUtc(report.endEpoch)})`,
    `platform period rule: ${PERIOD_RULES[report.platformEnd]} (billing/calculate asked start=${report.platformRequest.start}, end=${report.platformRequest.end})`,
    `our CU rollup: ${report.cuRollup}; tolerance: ${report.tolerance} relative`,
    `compared: ${report.compared.entities} entities (the environment and ${report.accountIds.length} account${report.accountIds.length === 1 ? "" : "s"}: ${report.accountIds.join(", ") || "none"}), ${report.compared.figures} figures`,
  ];
}

/** The one-line verdict: agreement, or how many figures differ and how many are on one side only. */
export function reconcileVerdict(report: ReconcileReport): string {
  if (report.agree)
    return `our bill and the platform's agree (${report.compared.figures} figures within ${report.tolerance})`;
  const differs = report.rows.filter((r) => r.issue === "differs").length;
  const oneSide = report.rows.length - differs;
  return `our bill and the platform's differ: ${differs} figure${differs === 1 ? "" : "s"} beyond the tolerance ${report.tolerance}, ${oneSide} on one side only`;
}

const COLUMNS = [
  "level",
  "account_id",
  "cloudspace_id",
  "machine_id",
  "name",
  "unit",
  "ours",
  "platform",
  "difference",
  "relative_difference",
  "issue",
] as const;

function cells(row: ReconcileRow): string[] {
  const n = (v: number | null) => (v === null ? "" : plainNumber(v));
  return [
    row.level,
    n(row.accountId),
    n(row.cloudspaceId),
    n(row.machineId),
    row.name,
    row.unit,
    n(row.ours),
    n(row.platform),
    n(row.difference),
    n(row.relativeDifference),
    row.issue,
  ];
}

/**
 * The reconciliation as text: the assumptions, a table of every row (aligned columns, ids and
 * figures as plain numbers, a missing side as `-`), and the verdict.
 */
export function reconcileToText(report: ReconcileReport): string {
  const lines = assumptions(report);
  if (report.rows.length > 0) {
    const table = [[...COLUMNS], ...report.rows.map((r) => cells(r).map((c) => (c === "" ? "-" : c)))];
    const widths = COLUMNS.map((_c, i) => Math.max(...table.map((row) => row[i]!.length)));
    lines.push(
      "",
      ...table.map((row) =>
        row
          .map((c, i) => c.padEnd(widths[i]!))
          .join("  ")
          .trimEnd(),
      ),
      "",
    );
  }
  lines.push(...factorLines(report), reconcileVerdict(report));
  return `${lines.join("\n")}\n`;
}

/**
 * The factors between the platform's figures and ours, unit by unit, and the units file that
 * makes them agree when one constant explains a unit: said only when the bills differ.
 */
function factorLines(report: ReconcileReport): string[] {
  if (report.agree) return [];
  const lines = ["factor (platform ÷ ours) per unit, to 10 significant digits:"];
  const shown = (x: number) => plainNumber(Number(x.toPrecision(10)));
  for (const f of report.factors) {
    const [least, greatest] = f.accounts ? [shown(f.accounts.least), shown(f.accounts.greatest)] : ["", ""];
    const range = least !== greatest ? `; accounts ${least} to ${greatest}` : "";
    const what =
      f.factor === null
        ? "none (a figure of 0)"
        : f.constant
          ? `${shown(f.factor)}, every account alike: a constant or a reading`
          : Math.abs(f.factor - 1) <= report.tolerance
            ? "1"
            : `${shown(f.factor)}, not one factor: the data differs`;
    lines.push(`  ${f.unit}: ${what}${range}`);
  }
  const suggested = report.suggestedUnits;
  if (suggested !== undefined) {
    lines.push(`a units file (the units option) with these keys makes ${suggested.units.join(", ")} agree:`);
    for (const [key, value] of Object.entries(suggested.changes))
      lines.push(`  ${key}: ${typeof value === "number" ? plainNumber(value) : String(value)}`);
  }
  lines.push("");
  return lines;
}

/**
 * The reconciliation as CSV (RFC 4180, CRLF): one row per differing figure, with the period,
 * the platform period rule and the CU rollup in every row; only the header when they agree.
 */
export function reconcileToCsv(report: ReconcileReport): string {
  const header = [...COLUMNS, "period_start", "period_end", "platform_end", "cu_rollup", "tolerance"];
  const rows = report.rows.map((r) =>
    [
      ...cells(r).map((c, i) => (COLUMNS[i] === "name" ? guardFormula(c) : c)),
      isoUtc(report.startEpoch),
      isoUtc(report.endEpoch),
      report.platformEnd,
      report.cuRollup,
      plainNumber(report.tolerance),
    ]
      .map(csvField)
      .join(","),
  );
  return `${[header.join(","), ...rows].join("\r\n")}\r\n`;
}

/** The reconciliation as a JSON value: the report with the period also in ISO 8601. */
export function reconcileToJson(report: ReconcileReport): unknown {
  return { period: { start: isoUtc(report.startEpoch), end: isoUtc(report.endEpoch) }, ...report };
}
