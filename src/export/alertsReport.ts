import type { Exact } from "../billing/exact.js";
import type { Alert, AlertReport } from "../forecast/alerts.js";
import { isoUtc } from "../base/time.js";
import { lagJson } from "../forecast/warehouseLag.js";

/** An alert as JSON: its fields, times in ISO 8601 UTC; a budget's figures numbers, as they always printed. */
export function alertJson(a: Alert): object {
  if (a.type === "budget") {
    const { kind, ...fields } = a;
    if (kind === "quantity") return fields;
    const n = (v: Exact) => v.toNumber();
    return {
      ...fields,
      budget: n(a.budget),
      value: n(a.value),
      monthToDate: n(a.monthToDate),
      projected: n(a.projected),
    };
  }
  if (a.type === "anomaly") return { ...a, since: isoUtc(a.since), until: isoUtc(a.until) };
  if (a.type === "warehouse-behind") return { ...a, lastHour: isoUtc(a.lastHour) };
  return { ...a, at: isoUtc(a.at) };
}

/** Alerts as text: a line per alert (its id in brackets), or a line saying there is none. */
export function alertsToText(report: AlertReport): string {
  const head = `alerts as of ${isoUtc(report.asOf)} (budgets of ${report.month}; anomalies and machine changes of the last ${report.windowHours} h): ${report.alerts.length} active`;
  const warnings = (report.warnings ?? []).map((w) => `warning: ${w}`);
  return `${[head, ...warnings, ...report.alerts.map((a) => `${a.type}: ${a.message} [${a.id}]`)].join("\n")}\n`;
}

/** Alerts as JSON: `{ asOf, month, windowHours, warehouse, alerts: [...] }`, one object per alert (what `--notify` posts); `warehouse`, its lag, when now is known. */
export function alertsToJson(report: AlertReport): string {
  return `${JSON.stringify(alertsBody(report), null, 2)}\n`;
}

/** The JSON value of `alertsToJson`. */
export function alertsBody(report: AlertReport): object {
  return {
    asOf: isoUtc(report.asOf),
    month: report.month,
    windowHours: report.windowHours,
    ...(report.lag ? { warehouse: lagJson(report.lag) } : {}),
    ...(report.warnings ? { warnings: report.warnings } : {}),
    alerts: report.alerts.map(alertJson),
  };
}
