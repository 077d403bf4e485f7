import { cuRuleSentence } from "../billing/units.js";
import type { DuckDBConnection } from "@duckdb/node-api";
import { Exact } from "../billing/exact.js";
import { accountInvoice, accountInvoices } from "../billing/invoice.js";
import type { BillingOptions } from "../billing/lines.js";
import type { PriceList } from "../billing/prices.js";
import { UsageError } from "../base/errors.js";
import { monthPeriod } from "../base/time.js";
import { withStoredNames } from "./storedNames.js";
import { usageSeries, type EntitySeries, type Figures } from "./usageSeries.js";

const HOUR = 3600;
const WEEK = 7 * 24 * HOUR;

/** The units a forecast projects: unit-hours of CU, SU, TU; TB of NU. */
export const FORECAST_UNITS = ["CU", "SU", "TU", "NU"] as const;
export type ForecastUnit = (typeof FORECAST_UNITS)[number];
export type ForecastQuantities = Record<ForecastUnit, number>;

/** The method, in the two sentences the CLI prints and the README states. */
export const FORECAST_METHOD =
  "The rest of the month repeats the last 7 days held hour by hour (reaching into the previous month when needed), so a weekly cycle " +
  "and machines added or removed lately carry on at their current level; the range repeats each of the 4 weeks before instead and keeps the lowest and highest. " +
  "The forecast amount adds to the month-to-date invoice the projected quantities of the remaining hours at the prices in force then.";

/** What to forecast. */
export interface ForecastRequest {
  /** The month, `YYYY-MM` (UTC). */
  month: string;
  /** A price list: adds amounts (month to date and projected amount due). */
  prices?: PriceList;
  /**
   * Forecast as of this hour (epoch seconds): only the hours before it are read, as if it were
   * now (backtests). Default: each account's last hour held + 1 h, at most the month's end.
   */
  asOf?: number;
  /** Billing options (units, names, CU rollup). */
  options?: BillingOptions;
}

/** Amounts of a forecast, in the price list's currency, rounded to its decimals. */
export interface ForecastAmounts {
  /** The amount due of the month's hours held: the invoice of `[month start, asOf)`. */
  monthToDate: Exact;
  /** Month to date + the remaining hours' projected quantities at their prices. */
  projected: Exact;
  low: Exact;
  high: Exact;
}

/** The forecast of one account, or of the environment (every account). */
export interface EntityForecast {
  level: "environment" | "account";
  /** null for the environment. */
  accountId: number | null;
  name: string;
  /** The hours before this one (epoch seconds) are held and counted; the others projected. */
  asOf: number;
  /** Hours of the month held (with a file) before `asOf`. */
  hoursHeld: number;
  /** Hours of the month from `asOf` to its end. */
  hoursRemaining: number;
  /** How many past weeks the range comes from (0: less than a week held; the average hour is repeated). */
  weeks: number;
  monthToDate: ForecastQuantities;
  projected: ForecastQuantities;
  low: ForecastQuantities;
  high: ForecastQuantities;
  /** With a price list. */
  amount?: ForecastAmounts;
}

/** A month's forecast: the environment, then each account by id. */
export interface Forecast {
  month: string;
  start: number;
  end: number;
  method: string;
  /** The CU rule of the CU figures, in a sentence (`CU rule: aggregate (...)`). */
  cuRule: string;
  currency?: string;
  decimals?: number;
  entries: EntityForecast[];
}

const zero = (): ForecastQuantities => ({ CU: 0, SU: 0, TU: 0, NU: 0 });

/** The projection of one entity's remaining hours: its values per unit and cost, from a source week. */
interface Projection {
  quantities: ForecastQuantities;
  cost: number;
}

/**
 * The remaining hours `[asOf, end)` repeated from the week `k` weeks before `asOf`: each
 * remaining hour takes the hour at the same place in that week; a source hour not held takes
 * the average of the hours held in that week.
 */
function project(hours: Map<number, Figures>, asOf: number, end: number, k: number): Projection | undefined {
  const from = asOf - k * WEEK;
  const held: Figures[] = [];
  for (let t = from; t < from + WEEK; t += HOUR) {
    const f = hours.get(t);
    if (f) held.push(f);
  }
  if (held.length === 0) return undefined;
  const mean = averageOf(held);
  const out: Projection = { quantities: zero(), cost: 0 };
  for (let t = asOf; t < end; t += HOUR) {
    const source = hours.get(from + ((t - asOf) % WEEK)) ?? mean;
    for (const u of Object.keys(out.quantities) as ForecastUnit[]) out.quantities[u] += source[u];
    out.cost += source.cost;
  }
  return out;
}

function averageOf(list: readonly Figures[]): Figures {
  const sum: Figures = { CU: 0, SU: 0, TU: 0, NU: 0, cost: 0 };
  for (const f of list) for (const k of Object.keys(sum) as (keyof Figures)[]) sum[k] += f[k];
  for (const k of Object.keys(sum) as (keyof Figures)[]) sum[k] /= list.length;
  return sum;
}

function add(a: ForecastQuantities, b: ForecastQuantities): ForecastQuantities {
  return { CU: a.CU + b.CU, SU: a.SU + b.SU, TU: a.TU + b.TU, NU: a.NU + b.NU };
}

/** One entity's forecast, before amounts: what is held in the month and the projections. */
function forecastOf(entity: EntitySeries, start: number, end: number, asOfLimit: number) {
  const last = Math.max(...entity.hours.keys());
  const asOf = Math.min(asOfLimit, end, Math.max(start, last + HOUR));
  const monthToDate = zero();
  let hoursHeld = 0;
  for (const [t, f] of entity.hours) {
    if (t < start || t >= asOf) continue;
    hoursHeld++;
    for (const u of Object.keys(monthToDate) as ForecastUnit[]) monthToDate[u] += f[u];
  }
  const weeks = [1, 2, 3, 4].map((k) => project(entity.hours, asOf, end, k)).filter((p): p is Projection => p !== undefined);
  const point = weeks[0] ?? { quantities: zero(), cost: 0 };
  const total = (p: Projection) => add(monthToDate, p.quantities);
  const low = zero();
  const high = zero();
  for (const u of Object.keys(low) as ForecastUnit[]) {
    const values = weeks.length > 0 ? weeks.map((p) => p.quantities[u]) : [0];
    low[u] = monthToDate[u] + Math.min(...values);
    high[u] = monthToDate[u] + Math.max(...values);
  }
  const costs = weeks.length > 0 ? weeks.map((p) => p.cost) : [0];
  return {
    asOf, hoursHeld, hoursRemaining: (end - asOf) / HOUR, weeks: weeks.length,
    monthToDate, projected: total(point), low, high,
    remainingCost: { point: point.cost, low: Math.min(...costs), high: Math.max(...costs) },
  };
}

/**
 * The amount due of each account's hours held, `[start, asOf)` with its own `asOf`: the
 * invoice `accountInvoice` gives, from one pass over the warehouse for all the accounts held
 * to the same hour (`accountInvoices`; they are usually synced together) instead of one per account.
 */
async function monthToDateInvoices(
  connection: DuckDBConnection, start: number, accounts: readonly { accountId: number; asOf: number }[], prices: PriceList, options: BillingOptions,
): Promise<Map<number, Exact>> {
  const out = new Map<number, Exact>();
  const byAsOf = new Map<number, number[]>();
  for (const a of accounts) if (a.asOf > start) byAsOf.set(a.asOf, [...(byAsOf.get(a.asOf) ?? []), a.accountId]);
  for (const [asOf, ids] of byAsOf) {
    const invoices = ids.length > 1 ? new Map((await accountInvoices(connection, { start, end: asOf }, prices, options)).map((inv) => [inv.accountId, inv])) : new Map();
    for (const accountId of ids) {
      const invoice = invoices.get(accountId) ?? await accountInvoice(connection, { start, end: asOf, accountId }, prices, options);
      out.set(accountId, invoice.amountDue);
    }
  }
  return out;
}

/**
 * The month-end forecast of every account (and of the environment) over a warehouse: the
 * quantities and amount due so far, and projected to the month's end with a range
 * (`FORECAST_METHOD`). Reads the month and the 4 weeks before it through the billing engine.
 */
export async function forecast(connection: DuckDBConnection, request: ForecastRequest): Promise<Forecast> {
  const { start, end } = monthPeriod(request.month, "--month");
  if (request.asOf !== undefined && (!Number.isSafeInteger(request.asOf) || request.asOf % HOUR !== 0)) {
    throw new UsageError(`bad asOf: ${String(request.asOf)} (epoch seconds at the start of an hour)`);
  }
  const limit = Math.min(request.asOf ?? end, end);
  const readFrom = Math.min(start, limit) - 4 * WEEK;
  const prices = request.prices;
  const options = await withStoredNames(connection, request.options);
  const series = limit > readFrom
    ? await usageSeries(connection, { start: readFrom, end: limit }, ["environment", "account"], options, prices)
    : new Map<string, EntitySeries>();
  const entries: EntityForecast[] = [];
  const ordered = [...series.values()].sort((a, b) => (a.accountId ?? -1) - (b.accountId ?? -1));
  const decimals = prices?.decimals ?? 2;
  let environmentAmount: ForecastAmounts | undefined = prices ? { monthToDate: Exact.ZERO, projected: Exact.ZERO, low: Exact.ZERO, high: Exact.ZERO } : undefined;
  const held = ordered.filter((entity) => entity.hours.size > 0).map((entity) => ({ entity, f: forecastOf(entity, start, end, limit) }));
  const accounts = held.filter(({ entity }) => entity.level === "account").map(({ entity, f }) => ({ accountId: entity.accountId!, asOf: f.asOf }));
  const monthToDate = prices ? await monthToDateInvoices(connection, start, accounts, prices, options) : new Map<number, Exact>();
  for (const { entity, f } of held) {
    const { remainingCost, ...figures } = f;
    const entry: EntityForecast = {
      level: entity.level === "environment" ? "environment" : "account", accountId: entity.accountId, name: entity.name, ...figures,
    };
    if (prices && entity.level === "account" && entity.accountId !== null) {
      const sofar = monthToDate.get(entity.accountId) ?? Exact.ZERO;
      const plus = (cost: number) => sofar.add(Exact.fromNumber(cost).round(decimals));
      entry.amount = { monthToDate: sofar, projected: plus(remainingCost.point), low: plus(remainingCost.low), high: plus(remainingCost.high) };
      environmentAmount = environmentAmount && {
        monthToDate: environmentAmount.monthToDate.add(entry.amount.monthToDate), projected: environmentAmount.projected.add(entry.amount.projected),
        low: environmentAmount.low.add(entry.amount.low), high: environmentAmount.high.add(entry.amount.high),
      };
    }
    entries.push(entry);
  }
  const environment = entries.find((e) => e.level === "environment");
  if (environment && environmentAmount) environment.amount = environmentAmount;
  return {
    month: request.month.trim(), start, end, method: FORECAST_METHOD, cuRule: cuRuleSentence(options.cuRollup, options.units),
    ...(prices ? { currency: prices.currency, decimals: prices.decimals } : {}), entries,
  };
}
