import type { TopReport, TopRow } from "../forecast/top.js";
import { entityLabel } from "../forecast/entityLabel.js";
import { metricUnit } from "../forecast/usageTable.js";
import { isoUtc } from "../base/time.js";
import { lagJson, lagText } from "../forecast/warehouseLag.js";
import { guardFormula } from "./toBillingCsv.js";

const num = (v: number) => v.toFixed(v !== 0 && Math.abs(v) < 10 ? 4 : 2);
const change = (r: TopRow) =>
  r.change === null
    ? r.previous === null
      ? "new"
      : "n/a"
    : `${r.change >= 0 ? "+" : ""}${(r.change * 100).toFixed(1)}%`;

/** A ranking as text: a line per row with its value, the previous period's and the change. */
export function topToText(t: TopReport): string {
  const unit = t.currencies ? `each currency ranked apart: ${t.currencies.join(", ")}` : metricUnit(t.by, t.currency);
  const running = t.heldUntil === undefined ? "" : ` (the month to date: hours held until ${isoUtc(t.heldUntil)})`;
  const lines = [
    `top ${t.rows.length} of ${t.entities} ${t.level === "cloudspace" ? "cloud space" : t.level}s by ${t.by} (${unit}), ${isoUtc(t.start)} to ${isoUtc(t.end)}${running}; ` +
      `change against ${t.comparedWith}, ${isoUtc(t.previous.start)} to ${isoUtc(t.previous.end)}`,
    ...(t.by === "CU" ? [t.cuRule] : []),
    // a warehouse behind ranks the hours it holds: said before the ranking is read as current
    ...(t.lag?.behind ? [`warning: ${lagText(t.lag)}: the figures end there`] : []),
  ];
  for (const r of t.rows) {
    lines.push(
      `${String(r.rank).padStart(3)}. ${entityLabel(r)}: ${num(r.value)} ${t.by === "cost" ? (r.currency ?? unit) : unit}, before ${r.previous === null ? "-" : num(r.previous)}, change ${change(r)}`,
    );
  }
  return `${lines.join("\n")}\n`;
}

/** A ranking as JSON; each row's cost a number, as it always printed. */
export function topToJson(t: TopReport): string {
  const { lag, ...rest } = t;
  return `${JSON.stringify(
    {
      ...rest,
      rows: t.rows.map((r) => ({ ...r, figures: { ...r.figures, cost: r.figures.cost?.toNumber() ?? null } })),
      start: isoUtc(t.start),
      end: isoUtc(t.end),
      ...(t.heldUntil === undefined ? {} : { heldUntil: isoUtc(t.heldUntil) }),
      ...(lag ? { warehouse: lagJson(lag) } : {}),
      previous: { start: isoUtc(t.previous.start), end: isoUtc(t.previous.end) },
    },
    null,
    2,
  )}\n`;
}

/** A ranking as CSV: rank, level, ids, name, every figure, the ranked figure's previous value and change (a fraction), then the names of the account and cloud space. */
export function topToCsv(t: TopReport): string {
  const quote = (v: string) => {
    const text = guardFormula(v);
    return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
  };
  const head = [
    "rank",
    "level",
    "account_id",
    "cloudspace_id",
    "machine_id",
    "name",
    "CU",
    "SU",
    "TU",
    "NU",
    "cost",
    ...(t.currency ? ["currency"] : []),
    `previous_${t.by}`,
    `change_of_${t.by}`,
    "account_name",
    "cloudspace_name",
  ];
  const rows = t.rows.map((r) =>
    [
      r.rank,
      r.level,
      r.accountId,
      r.cloudspaceId ?? "",
      r.machineId ?? "",
      quote(r.name),
      r.figures.CU ?? "",
      r.figures.SU ?? "",
      r.figures.TU ?? "",
      r.figures.NU ?? "",
      r.figures.cost?.toNumber() ?? "",
      ...(t.currency ? [r.currency ?? ""] : []),
      r.previous ?? "",
      r.change ?? "",
      quote(r.accountName),
      quote(r.cloudspaceName ?? ""),
    ].join(","),
  );
  return `${[head.join(","), ...rows].join("\r\n")}\r\n`;
}
