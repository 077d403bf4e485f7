import type { EntityForecast, Forecast, ForecastAmounts, ForecastUnit } from "../forecast/forecast.js";
import { FORECAST_UNITS } from "../forecast/forecast.js";
import { isoUtc } from "../base/time.js";
import { lagJson, lagText } from "../forecast/warehouseLag.js";

const UNIT_LABEL: Record<ForecastUnit, string> = { CU: "CU-hours", SU: "SU-hours", TU: "TU-hours", NU: "TiB (NU)" };
const figure = (v: number) => v.toFixed(v !== 0 && Math.abs(v) < 10 ? 4 : 2);

function entityText(e: EntityForecast, f: Forecast): string[] {
  const who =
    e.level === "environment" ? "environment (every account)" : `account ${e.accountId}${e.name ? ` (${e.name})` : ""}`;
  const range =
    e.weeks === 0
      ? "less than a week held: the average hour repeated, no range"
      : `range from ${e.weeks} week${e.weeks === 1 ? "" : "s"}`;
  const lines = [
    `${who}: as of ${isoUtc(e.asOf)}, ${e.hoursHeld} h of the month held, ${e.hoursRemaining} h to go (${range})`,
  ];
  for (const u of FORECAST_UNITS) {
    lines.push(
      `  ${u}  ${figure(e.monthToDate[u])} ${UNIT_LABEL[u]} so far; month end ${figure(e.projected[u])} (${figure(e.low[u])} to ${figure(e.high[u])})`,
    );
  }
  if (e.amount) {
    const d = e.decimals ?? f.decimals ?? 2;
    // the month-end figure is a forecast, not an amount due: the line says which is which
    lines.push(
      `  amount due so far  ${e.amount.monthToDate.toFixed(d)} ${e.currency ?? f.currency}; forecast for the month end ${e.amount.projected.toFixed(d)} (${e.amount.low.toFixed(d)} to ${e.amount.high.toFixed(d)})`,
    );
  } else if (e.level === "environment" && (f.amounts?.length ?? 0) > 1) {
    // accounts billed in several currencies: a line per currency, two currencies never added
    for (const t of f.amounts!) {
      const d = t.decimals;
      const ids = t.accountIds.join(", ");
      lines.push(
        `  in ${t.currency} (account${t.accountIds.length === 1 ? "" : "s"} ${ids}): amount due so far  ${t.monthToDate.toFixed(d)} ${t.currency}; forecast for the month end ${t.projected.toFixed(d)} (${t.low.toFixed(d)} to ${t.high.toFixed(d)})`,
      );
    }
  }
  return lines;
}

/** A forecast as text: the method in two sentences, then the environment and each account. */
export function forecastToText(f: Forecast): string {
  const lines = [`Forecast of ${f.month} (${isoUtc(f.start)} to ${isoUtc(f.end)}, end exclusive)`];
  // a warehouse behind holds less of the month than has passed: the month to date ends where it does, and it is said first
  if (f.lag?.behind)
    lines.push(`warning: ${lagText(f.lag)}: the month to date ends there and the rest is projected (sync it)`);
  lines.push(`Method: ${f.method}`, f.cuRule);
  for (const e of f.entries) lines.push("", ...entityText(e, f));
  return `${lines.join("\n")}\n`;
}

/** A forecast as JSON: times in ISO 8601 UTC, amounts as decimal strings of the currency's decimals. */
export function forecastToJson(f: Forecast): string {
  const money = (a: ForecastAmounts, d: number) => ({
    monthToDate: a.monthToDate.toFixed(d),
    projected: a.projected.toFixed(d),
    low: a.low.toFixed(d),
    high: a.high.toFixed(d),
  });
  return `${JSON.stringify(
    {
      month: f.month,
      start: isoUtc(f.start),
      end: isoUtc(f.end),
      ...(f.lag ? { warehouse: lagJson(f.lag) } : {}),
      method: f.method,
      cuRule: f.cuRule,
      currency: f.currency,
      // the amounts per currency: two currencies are never added (the environment has no amount then)
      ...(f.amounts && f.amounts.length > 1
        ? {
            amounts: f.amounts.map((t) => ({
              currency: t.currency,
              accountIds: t.accountIds,
              ...money(t, t.decimals),
            })),
          }
        : {}),
      entries: f.entries.map(({ decimals, ...e }) => ({
        ...e,
        asOf: isoUtc(e.asOf),
        amount: e.amount && money(e.amount, decimals ?? f.decimals ?? 2),
      })),
    },
    null,
    2,
  )}\n`;
}
