import type { TopReport, TopRow } from "../forecast/top.js";
import type { Metric } from "../forecast/usageSeries.js";
import { isoUtc } from "../base/time.js";
import { guardFormula } from "./toBillingCsv.js";

const UNIT: Record<Metric, string> = { CU: "CU-hours", SU: "SU-hours", TU: "TU-hours", NU: "TB", cost: "" };
const entity = (r: TopRow) => (r.level === "machine" ? `machine ${r.machineId}` : r.level === "cloudspace" ? `cloud space ${r.cloudspaceId}` : `account ${r.accountId}`);
const num = (v: number) => v.toFixed(v !== 0 && Math.abs(v) < 10 ? 4 : 2);
const change = (r: TopRow) => (r.change === null ? (r.previous === null ? "new" : "n/a") : `${r.change >= 0 ? "+" : ""}${(r.change * 100).toFixed(1)}%`);

/** A ranking as text: a line per row with its value, the previous period's and the change. */
export function topToText(t: TopReport): string {
  const unit = t.by === "cost" ? t.currency ?? "" : UNIT[t.by];
  const lines = [
    `top ${t.rows.length} of ${t.entities} ${t.level === "cloudspace" ? "cloud space" : t.level}s by ${t.by} (${unit}), ${isoUtc(t.start)} to ${isoUtc(t.end)}; ` +
      `change against ${isoUtc(t.previous.start)} to ${isoUtc(t.previous.end)}`,
    ...(t.by === "CU" ? [t.cuRule] : []),
  ];
  for (const r of t.rows) {
    const where = r.level === "account" ? "" : ` of account ${r.accountId}${r.level === "machine" ? `, cloud space ${r.cloudspaceId}` : ""}`;
    lines.push(`${String(r.rank).padStart(3)}. ${entity(r)}${r.name ? ` (${r.name})` : ""}${where}: ${num(r.value)} ${unit}, before ${r.previous === null ? "-" : num(r.previous)}, change ${change(r)}`);
  }
  return `${lines.join("\n")}\n`;
}

/** A ranking as JSON. */
export function topToJson(t: TopReport): string {
  return `${JSON.stringify({ ...t, start: isoUtc(t.start), end: isoUtc(t.end), previous: { start: isoUtc(t.previous.start), end: isoUtc(t.previous.end) } }, null, 2)}\n`;
}

/** A ranking as CSV: rank, level, ids, name, every figure, then the ranked figure's previous value and change (a fraction). */
export function topToCsv(t: TopReport): string {
  const quote = (v: string) => {
    const text = guardFormula(v);
    return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
  };
  const head = ["rank", "level", "account_id", "cloudspace_id", "machine_id", "name", "CU", "SU", "TU", "NU", "cost", `previous_${t.by}`, `change_of_${t.by}`];
  const rows = t.rows.map((r) => [
    r.rank, r.level, r.accountId, r.cloudspaceId ?? "", r.machineId ?? "", quote(r.name),
    r.figures.CU ?? "", r.figures.SU ?? "", r.figures.TU ?? "", r.figures.NU ?? "", r.figures.cost ?? "", r.previous ?? "", r.change ?? "",
  ].join(","));
  return `${[head.join(","), ...rows].join("\r\n")}\r\n`;
}
