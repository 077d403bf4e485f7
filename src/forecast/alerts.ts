import type { DuckDBConnection } from "@duckdb/node-api";
import type { BillingOptions } from "../billing/lines.js";
import type { PriceList } from "../billing/prices.js";
import { UsageError } from "../base/errors.js";
import { isoUtc } from "../base/time.js";
import { checkKnownIds } from "../base/unknownIds.js";
import { anomalies, type Anomaly, type MachineChange } from "./anomalies.js";
import type { Budget } from "./budgets.js";
import { forecast, type EntityForecast, type Forecast } from "./forecast.js";

const HOUR = 3600;
const WEEK = 7 * 24 * HOUR;

/** What `alerts` checks. */
export interface AlertsRequest {
  budgets: readonly Budget[];
  /** Needed by budgets of an amount; adds cost to the anomalies. */
  prices?: PriceList;
  /** Now, as far as the warehouse goes (epoch seconds, on the hour); default the last hour held + 1 h. */
  asOf?: number;
  /** Anomalies and machine changes reaching into the last this many hours before `asOf` are active; default 24. */
  windowHours?: number;
  /** Robust-score threshold of anomalies (default `ANOMALY_RULE.threshold`). */
  threshold?: number;
  options?: BillingOptions;
}

/** A budget threshold crossed: by the month to date (`actual`), or by the month-end forecast alone (`forecast`). */
export interface BudgetAlert {
  /** `budget:account:7:2026-10:amount:80:actual`: the same crossing has the same id on every run. */
  id: string;
  type: "budget";
  basis: "actual" | "forecast";
  accountId: number | null;
  name: string;
  month: string;
  /** % of the budget. */
  threshold: number;
  /** The monthly budget, in `unit`. */
  budget: number;
  /** The currency of an amount, else `CU-hours`, `SU-hours`, `TU-hours`, `TB` (NU). */
  unit: string;
  /** Month to date (actual) or projected to the month's end (forecast), in `unit`. */
  value: number;
  /** value / budget × 100. */
  percent: number;
  message: string;
}

/** An anomaly active in the window. */
export type AnomalyAlert = Anomaly & { type: "anomaly"; message: string };
/** A machine new or vanished in the window. */
export type MachineAlert = Omit<MachineChange, "kind"> & { type: "machine-new" | "machine-vanished"; message: string };
export type Alert = BudgetAlert | AnomalyAlert | MachineAlert;

/** Every active alert, as of an hour. */
export interface AlertReport {
  /** The hour alerts are computed as of (epoch seconds): the warehouse's last hour + 1 h unless given. */
  asOf: number;
  month: string;
  windowHours: number;
  alerts: Alert[];
  /** The month's forecast the budgets were checked against. */
  forecast: Forecast;
}

const fixed = (v: number) => (Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 1 ? v.toFixed(2) : v.toPrecision(3));

function who(accountId: number | null, name: string): string {
  return accountId === null ? "the environment" : `account ${accountId}${name ? ` (${name})` : ""}`;
}

function budgetAlerts(budget: Budget, entry: EntityForecast | undefined, f: Forecast): BudgetAlert[] {
  const amount = budget.limit.kind === "amount";
  const limit = budget.limit.kind === "amount" ? budget.limit.amount : budget.limit.quantity;
  const unit = budget.limit.kind === "amount" ? f.currency! : budget.limit.unit === "NU" ? "TB" : `${budget.limit.unit}-hours`;
  const pick = (which: "monthToDate" | "projected"): number => {
    if (!entry) return 0;
    if (budget.limit.kind === "amount") return entry.amount?.[which].toNumber() ?? 0;
    return entry[which][budget.limit.unit];
  };
  const actual = pick("monthToDate");
  const projected = pick("projected");
  const scope = budget.accountId === null ? "environment" : `account:${budget.accountId}`;
  const kind = amount ? "amount" : budget.limit.kind === "quantity" ? budget.limit.unit : "";
  const out: BudgetAlert[] = [];
  for (const threshold of budget.thresholds) {
    const line = (limit * threshold) / 100;
    const basis = actual >= line ? "actual" : projected >= line ? "forecast" : undefined;
    if (!basis) continue;
    const value = basis === "actual" ? actual : projected;
    const name = entry?.name ?? "";
    out.push({
      id: `budget:${scope}:${f.month}:${kind}:${threshold}:${basis}`, type: "budget", basis, accountId: budget.accountId, name, month: f.month,
      threshold, budget: limit, unit, value, percent: (value / limit) * 100,
      message: `${who(budget.accountId, name)}: ${basis === "actual" ? "month to date" : "forecast for the month's end"} ${fixed(value)} ${unit} ` +
        `is ${((value / limit) * 100).toFixed(0)}% of its ${f.month} budget of ${fixed(limit)} ${unit} (threshold ${threshold}%)`,
    });
  }
  return out;
}

function anomalyMessage(a: Anomaly): string {
  const entity = a.level === "machine" ? `machine ${a.machineId}` : a.level === "cloudspace" ? `cloud space ${a.cloudspaceId}` : `account ${a.accountId}`;
  const per = a.granularity === "hour" ? "in an hour" : "per hour that day";
  const size = a.ratio === null ? `from ${fixed(a.baseline)}` : `${fixed(a.ratio)}× its baseline of ${fixed(a.baseline)}`;
  return `${entity}${a.name ? ` (${a.name})` : ""} of account ${a.accountId}: ${a.metric} ${a.direction === "up" ? "up" : "down"} to ${fixed(a.value)} ${per}, ` +
    `${size}, since ${isoUtc(a.since)} (${a.points} ${a.granularity}${a.points === 1 ? "" : "s"}, robust score ${fixed(a.score)})`;
}

/**
 * Every active alert of a warehouse as of an hour: each budget threshold crossed this month,
 * actually or by the month-end forecast, each anomaly reaching into the last `windowHours`,
 * and each machine new or vanished in them. Ids are stable so a caller can drop repeats.
 */
export async function alerts(connection: DuckDBConnection, request: AlertsRequest): Promise<AlertReport> {
  const windowHours = request.windowHours ?? 24;
  if (!Number.isSafeInteger(windowHours) || windowHours < 1) throw new UsageError(`bad window ${String(windowHours)} (a whole number of hours, 1 or more)`);
  const held = (await connection.runAndReadAll("SELECT max(hour_epoch) AS last, list(DISTINCT account_id) AS ids FROM account_hours")).getRowObjectsJS()[0]!;
  const known = ((held.ids as unknown[] | null) ?? []).map(Number);
  checkKnownIds("account", request.budgets.flatMap((b) => (b.accountId === null ? [] : [b.accountId])), known, "the warehouse");
  if (request.budgets.some((b) => b.limit.kind === "amount") && !request.prices) throw new UsageError("a budget of an amount needs a price list (--prices FILE)");
  const asOf = request.asOf ?? (held.last === null ? undefined : Number(held.last) + HOUR);
  if (asOf === undefined) throw new UsageError("the warehouse holds no hours: nothing to alert on");
  const month = isoUtc(asOf - HOUR).slice(0, 7);
  const f = await forecast(connection, { month, prices: request.prices, asOf, options: request.options });
  const out: Alert[] = [];
  for (const budget of request.budgets) {
    const entry = f.entries.find((e) => (budget.accountId === null ? e.level === "environment" : e.accountId === budget.accountId && e.level === "account"));
    out.push(...budgetAlerts(budget, entry, f));
  }
  const windowStart = asOf - windowHours * HOUR;
  // scored from a week before the window, so a run that began before it keeps its first hour (and its id)
  const found = await anomalies(connection, { start: windowStart - WEEK, end: asOf, prices: request.prices, threshold: request.threshold, options: request.options });
  for (const a of found.anomalies) if (a.until > windowStart) out.push({ ...a, type: "anomaly", message: anomalyMessage(a) });
  for (const c of found.changes) {
    if (c.at < windowStart) continue;
    const { kind, ...rest } = c;
    out.push({
      ...rest, type: kind === "new" ? "machine-new" : "machine-vanished",
      message: `machine ${c.machineId}${c.name ? ` (${c.name})` : ""} of account ${c.accountId}, cloud space ${c.cloudspaceId}: ${kind === "new" ? "new since" : "gone since"} ${isoUtc(c.at)}`,
    });
  }
  return { asOf, month, windowHours, alerts: out, forecast: f };
}
