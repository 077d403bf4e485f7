import type { DuckDBConnection } from "@duckdb/node-api";
import { resolveOptions, type BillingOptions } from "../billing/billingOptions.js";
import type { Names } from "../billing/names.js";
import type { PriceList } from "../billing/prices.js";
import { UsageError } from "../base/errors.js";
import { groupThousands } from "../base/groupThousands.js";
import { isoUtc } from "../base/time.js";
import { checkKnownIds } from "../base/unknownIds.js";
import {
  ANOMALY_LEVELS,
  ANOMALY_RULE,
  anomalyReadStart,
  type Anomaly,
  type AnomalyScan,
  type MachineChange,
} from "./anomalies.js";
import type { Budget } from "./budgets.js";
import { entityLabel } from "./entityLabel.js";
import {
  forecastOfReading,
  forecastPlan,
  type EntityForecast,
  type ForecastAmounts,
  type Forecast,
} from "./forecast.js";
import { withStoredNames } from "./storedNames.js";
import { lagText, warehouseLag, type WarehouseLag } from "./warehouseLag.js";
import { metricUnit } from "./usageTable.js";
import { readAlerts } from "./alertsReading.js";
import { Exact } from "../billing/exact.js";

const HOUR = 3600;
const WEEK = 7 * 24 * HOUR;

/**
 * The most entity-hours (an entity: a machine, cloud space or account; an hour of the 3 weeks
 * anomalies read) kept at once: each holds 5 figures (40 bytes). A warehouse with more is read
 * for anomalies a group of accounts at a time, so their memory is bounded whatever the number of
 * machines (but grows with an account larger than that alone; docs/performance.md).
 */
export const ALERTS_ENTITY_HOURS = 1_200_000;

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
  /** The most entity-hours the anomalies keep at once (memory), beyond which the accounts are read apart; default `ALERTS_ENTITY_HOURS`. */
  maxEntityHours?: number;
  options?: BillingOptions;
  /** Now (epoch seconds): a warehouse more than `BEHIND_AFTER_HOURS` behind it is an alert itself (`warehouse-behind`), and the report says its lag. */
  nowEpoch?: number;
}

/** What every budget alert says. */
interface BudgetAlertBase {
  /**
   * `budget:account:7:2026-10:amount=2500:80:actual`: the budget (whose, what, how much), the
   * month, the threshold and the basis; the same crossing of the same budget has the same id
   * on every run, and a new id when it goes up a threshold or the forecast comes true.
   */
  id: string;
  type: "budget";
  basis: "actual" | "forecast";
  accountId: number | null;
  name: string;
  month: string;
  /** The highest threshold crossed on that basis, % of the budget. */
  threshold: number;
  /** value / budget × 100, to 2 decimals. */
  percent: number;
  /**
   * A budget of an amount of the environment counts only the accounts billed in its currency (the
   * price list's): the accounts billed in another, by currency, left out of `value` (absent when none).
   */
  leftOut?: { currency: string; accountIds: number[] }[];
  message: string;
}

/** The alert of a budget of an amount: its figures are money, `Exact`s in the currency `unit`. */
export interface AmountBudgetAlert extends BudgetAlertBase {
  kind: "amount";
  /** The monthly budget, as the budgets file wrote it. */
  budget: Exact;
  /** The currency. */
  unit: string;
  /** Month to date (actual) or projected to the month's end (forecast). */
  value: Exact;
  /** The month to date and the month-end forecast. */
  monthToDate: Exact;
  projected: Exact;
}

/** The alert of a budget of a quantity: its figures are numbers of `unit`. */
export interface QuantityBudgetAlert extends BudgetAlertBase {
  kind: "quantity";
  /** The monthly budget, in `unit`. */
  budget: number;
  /** `CU-hours`, `SU-hours`, `TU-hours` or `TiB` (NU). */
  unit: string;
  /** Month to date (actual) or projected to the month's end (forecast), in `unit`. */
  value: number;
  /** The month to date and the month-end forecast, in `unit`. */
  monthToDate: number;
  projected: number;
}

/**
 * A budget crossed: its highest threshold crossed by the month to date (`actual`), or a higher
 * one crossed by the month-end forecast alone (`forecast`). One alert per budget; `kind` says
 * whether its figures are money (`Exact`s) or a quantity (numbers), as its budget's limit.
 */
export type BudgetAlert = AmountBudgetAlert | QuantityBudgetAlert;

/** An anomaly active in the window. */
export type AnomalyAlert = Anomaly & { type: "anomaly"; message: string };
/** A machine new or vanished in the window. */
export type MachineAlert = Omit<MachineChange, "kind"> & { type: "machine-new" | "machine-vanished"; message: string };
/**
 * The warehouse is behind now (its latest hour held more than `BEHIND_AFTER_HOURS` before the
 * current hour): every other alert is as of that hour, and what happened since is unknown.
 * Its id holds the latest hour held (`warehouse-behind:2026-11-12T09:00:00Z`): the same while
 * nothing arrives, a new one when hours arrive and it is still behind.
 */
export interface WarehouseBehindAlert {
  id: string;
  type: "warehouse-behind";
  /** The latest hour held (epoch seconds) and how many whole hours it ended before the current hour. */
  lastHour: number;
  lagHours: number;
  message: string;
}
export type Alert = BudgetAlert | AnomalyAlert | MachineAlert | WarehouseBehindAlert;

/** Every active alert, as of an hour. */
export interface AlertReport {
  /** The hour alerts are computed as of (epoch seconds): the warehouse's last hour + 1 h unless given. */
  asOf: number;
  month: string;
  windowHours: number;
  alerts: Alert[];
  /** The month's forecast the budgets were checked against. */
  forecast: Forecast;
  /** How far the warehouse is behind the request's `nowEpoch` (with it). */
  lag?: WarehouseLag;
  /**
   * What the budgets could not count, in sentences: an environment's budget of an amount leaves out
   * the accounts billed in another currency than the price list's (absent when nothing was left out).
   */
  warnings?: string[];
}

/**
 * The money an environment's budget of an amount counts: the accounts billed in the price list's
 * currency only (two currencies are never added), and the accounts of each other currency it leaves out.
 */
export function environmentBudgetMoney(f: Forecast): {
  counted?: Pick<ForecastAmounts, "monthToDate" | "projected">;
  leftOut: { currency: string; accountIds: number[] }[];
} {
  const amounts = f.amounts ?? [];
  return {
    counted: amounts.find((t) => t.currency === f.currency),
    leftOut: amounts
      .filter((t) => t.currency !== f.currency && t.accountIds.length > 0)
      .map((t) => ({ currency: t.currency, accountIds: t.accountIds })),
  };
}

/** The sentence of the accounts an environment's budget of an amount leaves out. */
export function leftOutText(leftOut: readonly { currency: string; accountIds: number[] }[], currency: string): string {
  const each = leftOut.map(
    (l) => `account${l.accountIds.length === 1 ? "" : "s"} ${l.accountIds.join(", ")} (billed in ${l.currency})`,
  );
  return `not counted: ${each.join("; ")}: the environment's budget is in ${currency}, and two currencies are never added (give such an account its own budget, in its currency)`;
}

/** A quantity as people read it: whole and grouped by thousands from 100 on (12,345), 2 decimals from 1, 3 digits below. */
export const quantityText = (v: number): string =>
  Math.abs(v) >= 100 ? groupThousands(v.toFixed(0)) : Math.abs(v) >= 1 ? v.toFixed(2) : v.toPrecision(3);

/** An amount of money as a statement gives it: to the cent, grouped by thousands (2,347.12). */
export const moneyText = (v: number): string => groupThousands(v.toFixed(2));

/**
 * A percentage as people read it, never more than it is (79.96% is "79.9%", not the "80%" a
 * threshold of 80 would seem crossed at): one decimal below 100, whole above, grouped by thousands.
 */
export function percentText(percent: number): string {
  if (percent >= 100) return `${groupThousands(String(Math.floor(percent)))}%`;
  return `${(Math.floor(percent * 10) / 10).toFixed(1).replace(/\.0$/, "")}%`;
}

/** A percentage as JSON gives it: to 2 decimals (97.13, not 97.12799999999999). */
const percentNumber = (percent: number): number => Math.round(percent * 100) / 100;

function who(accountId: number | null, name: string): string {
  return accountId === null ? "the environment" : `account ${accountId}${name ? ` (${name})` : ""}`;
}

/** A budget's month to date and month-end forecast, exact: money as the forecast gives it, a quantity as its number. */
function budgetFigures(budget: Budget, entry: EntityForecast | undefined, f: Forecast) {
  // an account's budget of an amount is in the currency it is billed in; the environment's in the list's,
  // counting only the accounts billed in it
  const money = budget.limit.kind === "amount" && budget.accountId === null ? environmentBudgetMoney(f) : undefined;
  const unit =
    budget.limit.kind === "amount"
      ? money
        ? f.currency!
        : (entry?.currency ?? f.currency!)
      : metricUnit(budget.limit.unit);
  const pick = (which: "monthToDate" | "projected"): Exact => {
    if (money) return money.counted?.[which] ?? Exact.ZERO;
    if (!entry) return Exact.ZERO;
    if (budget.limit.kind === "amount") return entry.amount?.[which] ?? Exact.ZERO;
    return Exact.fromNumber(entry[which][budget.limit.unit]);
  };
  const leftOut = money && money.leftOut.length > 0 ? money.leftOut : undefined;
  return { unit, leftOut, actual: pick("monthToDate"), projected: pick("projected") };
}

/** The one alert of a budget, at its highest threshold crossed, or undefined when none is. */
function budgetAlert(budget: Budget, entry: EntityForecast | undefined, f: Forecast): BudgetAlert | undefined {
  const limit = budget.limit.kind === "amount" ? budget.limit.amount : Exact.fromNumber(budget.limit.quantity);
  const { unit, leftOut, actual, projected } = budgetFigures(budget, entry, f);
  const crossed = (value: Exact, t: number) => value.compare(limit.mul(Exact.fromNumber(t)).div(Exact.of(100))) >= 0;
  const highest = (value: Exact) => budget.thresholds.filter((t) => crossed(value, t)).at(-1);
  const byActual = highest(actual);
  const byForecast = highest(projected);
  const basis =
    byForecast !== undefined && (byActual === undefined || byForecast > byActual)
      ? "forecast"
      : byActual !== undefined
        ? "actual"
        : undefined;
  if (basis === undefined) return undefined;
  const threshold = basis === "actual" ? byActual! : byForecast!;
  const value = basis === "actual" ? actual : projected;
  const percentOf = (v: Exact) => (v.toNumber() / limit.toNumber()) * 100;
  const percent = percentOf(value);
  const name = entry?.name ?? "";
  const scope = budget.accountId === null ? "environment" : `account:${budget.accountId}`;
  const what = budget.limit.kind === "amount" ? "amount" : budget.limit.unit;
  const limitText = budget.limit.kind === "amount" ? String(budget.limit.amount) : String(budget.limit.quantity);
  const text = (v: Exact) => (budget.limit.kind === "amount" ? moneyText : quantityText)(v.toNumber());
  const soFar =
    basis === "forecast" ? `; month to date ${text(actual)} ${unit} (${percentText(percentOf(actual))})` : "";
  const said = {
    id: `budget:${scope}:${f.month}:${what}=${limitText}:${threshold}:${basis}`,
    type: "budget" as const,
    basis: basis as BudgetAlert["basis"],
    accountId: budget.accountId,
    name,
    month: f.month,
    threshold,
  };
  const tail = {
    ...(leftOut ? { leftOut } : {}),
    message:
      `${who(budget.accountId, name)}: ${basis === "actual" ? "month to date" : "forecast for the month's end"} ${text(value)} ${unit} ` +
      `is ${percentText(percent)} of its ${f.month} budget of ${text(limit)} ${unit} (threshold ${threshold}%)${soFar}` +
      (leftOut ? `; ${leftOutText(leftOut, unit)}` : ""),
  };
  // in the order the JSON always gave them; money as Exacts, a quantity as numbers
  const figures = <T>(as: (v: Exact) => T) => ({
    budget: as(limit),
    unit,
    value: as(value),
    percent: percentNumber(percent),
    monthToDate: as(actual),
    projected: as(projected),
  });
  if (budget.limit.kind === "amount") return { kind: "amount", ...said, ...figures((v) => v), ...tail };
  return { kind: "quantity", ...said, ...figures((v) => v.toNumber()), ...tail };
}

function anomalyMessage(a: Anomaly): string {
  const per = a.granularity === "hour" ? "in an hour" : "per hour that day";
  // CU, SU and TU are their own unit (unit-hours in an hour); NU is in TiB, cost in the currency
  const unit = a.metric === "cost" || a.metric === "NU" ? ` ${a.unit}` : "";
  const size =
    a.ratio === null
      ? `from ${quantityText(a.baseline)}${unit}`
      : `${quantityText(a.ratio)}× its baseline of ${quantityText(a.baseline)}${unit}`;
  return (
    `${entityLabel(a)}: ${a.metric} ${a.direction === "up" ? "up" : "down"} to ${quantityText(a.value)}${unit} ${per}, ` +
    `${size}, since ${isoUtc(a.since)} (${a.points} ${a.granularity}${a.points === 1 ? "" : "s"}, robust score ${quantityText(a.score)})`
  );
}

/** The alert of a warehouse behind. */
function behindAlert(lag: WarehouseLag): WarehouseBehindAlert {
  return {
    id: `warehouse-behind:${isoUtc(lag.lastHourEpoch)}`,
    type: "warehouse-behind",
    lastHour: lag.lastHourEpoch,
    lagHours: lag.lagHours,
    message: `${lagText(lag)}: the budgets, anomalies and machine changes below are as of then, nothing since is known (sync it; \`status\` says which account)`,
  };
}

/**
 * The anomalies `alerts` looks for as of an hour: the runs reaching into the last
 * `windowHours`, scored from a week before them (so a run that began before the window keeps
 * its first hour, and its id), their baselines read from `readStart`.
 */
export function alertsScan(
  asOf: number,
  windowHours: number,
  threshold: number,
  prices: PriceList | undefined,
  names: Names | undefined,
): AnomalyScan & { readStart: number; reachingPast: number } {
  const windowStart = asOf - windowHours * HOUR;
  const start = windowStart - WEEK;
  return {
    start,
    end: asOf,
    threshold,
    levels: ANOMALY_LEVELS,
    prices,
    names,
    reachingPast: windowStart,
    readStart: anomalyReadStart(start),
  };
}

/** The budgets' alerts, one per budget, each id once (two budgets alike give the same alert). */
function budgetAlerts(budgets: readonly Budget[], f: Forecast): BudgetAlert[] {
  const environment = f.entries.find((e) => e.level === "environment");
  const accounts = new Map(f.entries.filter((e) => e.level === "account").map((e) => [e.accountId, e]));
  const out = new Map<string, BudgetAlert>();
  for (const budget of budgets) {
    const alert = budgetAlert(budget, budget.accountId === null ? environment : accounts.get(budget.accountId), f);
    if (alert && !out.has(alert.id)) out.set(alert.id, alert);
  }
  return [...out.values()];
}

/**
 * Every active alert of a warehouse as of an hour: each budget crossed this month (at its
 * highest threshold crossed, actually or by the month-end forecast), each anomaly reaching
 * into the last `windowHours`, and each machine new or vanished in them. Ids are stable so a
 * caller can drop repeats. The forecast and the anomalies come from one pass over the warehouse
 * when their hours fit `maxEntityHours` (see `readAlerts`).
 */
export async function alerts(connection: DuckDBConnection, request: AlertsRequest): Promise<AlertReport> {
  const windowHours = request.windowHours ?? 24;
  if (!Number.isSafeInteger(windowHours) || windowHours < 1)
    throw new UsageError(`bad window ${String(windowHours)} (a whole number of hours, 1 or more)`);
  const threshold = request.threshold ?? ANOMALY_RULE.threshold;
  if (!(threshold > 0)) throw new UsageError(`bad threshold ${String(threshold)} (a number above 0)`);
  const held = (
    await connection.runAndReadAll(
      "SELECT max(hour_epoch) AS last, list(DISTINCT account_id) AS ids FROM account_hours",
    )
  ).getRowObjectsJS()[0]!;
  const known = ((held.ids as unknown[] | null) ?? []).map(Number);
  checkKnownIds(
    "account",
    request.budgets.flatMap((b) => (b.accountId === null ? [] : [b.accountId])),
    known,
    "the warehouse",
  );
  if (request.budgets.some((b) => b.limit.kind === "amount") && !request.prices)
    throw new UsageError("a budget of an amount needs a price list (the prices option)");
  const asOf = request.asOf ?? (held.last === null ? undefined : Number(held.last) + HOUR);
  if (asOf === undefined) throw new UsageError("the warehouse holds no hours: nothing to alert on");
  const month = isoUtc(asOf - HOUR).slice(0, 7);
  const options = await withStoredNames(connection, request.options);
  const resolved = resolveOptions(options);
  const plan = await forecastPlan(connection, { month, asOf });
  const scan = {
    ...alertsScan(asOf, windowHours, threshold, request.prices, resolved.names),
    maxEntityHours: request.maxEntityHours ?? ALERTS_ENTITY_HOURS,
  };
  const windowStart = scan.reachingPast;
  const { table, billed, found } = await readAlerts(connection, {
    plan,
    scan,
    prices: request.prices,
    options: resolved,
  });
  const f = await forecastOfReading(connection, plan, { table, billed }, request.prices, options);
  const lag = request.nowEpoch === undefined ? undefined : await warehouseLag(connection, request.nowEpoch);
  const out: Alert[] = lag?.behind ? [behindAlert(lag)] : [];
  out.push(...budgetAlerts(request.budgets, f));
  for (const a of found.anomalies) out.push({ ...a, type: "anomaly", message: anomalyMessage(a) });
  for (const c of found.changes) {
    if (c.at < windowStart) continue;
    const { kind, ...rest } = c;
    out.push({
      ...rest,
      type: kind === "new" ? "machine-new" : "machine-vanished",
      message: `${entityLabel({ ...c, level: "machine" })}: ${kind === "new" ? "new since" : "gone since"} ${isoUtc(c.at)}`,
    });
  }
  const leftOut = request.budgets.some((b) => b.limit.kind === "amount" && b.accountId === null)
    ? environmentBudgetMoney(f).leftOut
    : [];
  const warnings =
    leftOut.length > 0 ? [`the environment's budget of an amount: ${leftOutText(leftOut, f.currency!)}`] : [];
  return {
    asOf,
    month,
    windowHours,
    alerts: out,
    forecast: f,
    ...(lag ? { lag } : {}),
    ...(warnings.length > 0 ? { warnings } : {}),
  };
}
