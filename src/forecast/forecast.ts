import { cuRuleSentence } from "../billing/units.js";
import type { DuckDBConnection } from "@duckdb/node-api";
import { Exact } from "../billing/exact.js";
import { bill } from "../billEntry/bill.js";
import { invoiceOf } from "../billing/invoice.js";
import { resolveOptions, type BillingOptions, type ResolvedBillingOptions } from "../billing/billingOptions.js";
import type { AccountLine } from "../billing/lines.js";
import { priceCuts } from "../billing/cuts.js";
import { currencyOf, type PriceList } from "../billing/prices.js";
import { NoHoursHeldError, UsageError } from "../base/errors.js";
import { isoUtc, monthPeriod } from "../base/time.js";
import { withStoredNames } from "./storedNames.js";
import { feedingTable, HourCosts, UsageTable, type EntityUsage } from "./usageTable.js";
import { usagePass, type BilledAccounts, type UsagePassRequest } from "./usagePass.js";
import { lagOf, lagText, latestHour, type WarehouseLag } from "./warehouseLag.js";
import { groupedAccountHours } from "../billing/groupedHours.js";

const HOUR = 3600;
const WEEK = 7 * 24 * HOUR;

/** The units a forecast projects: unit-hours of CU, SU, TU; TiB of NU. */
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
  /** Now (epoch seconds): the forecast then says how far behind it the warehouse is (`lag`). */
  nowEpoch?: number;
}

/** Amounts of a forecast, in the entity's currency (`EntityForecast.currency`), rounded to its decimals. */
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
  /**
   * With a price list: an account's in the currency it is billed in; the environment's only when
   * every account bills in one currency (two currencies are never added: see `Forecast.amounts`).
   */
  amount?: ForecastAmounts;
  /** The currency of `amount` and its decimals (with it). */
  currency?: string;
  decimals?: number;
}

/** The amounts of the accounts billed in one currency, added up (never across two). */
export interface ForecastCurrencyAmounts extends ForecastAmounts {
  currency: string;
  decimals: number;
  /** The accounts billed in it, ascending. */
  accountIds: number[];
}

/** A month's forecast: the environment, then each account by id. */
export interface Forecast {
  month: string;
  start: number;
  end: number;
  method: string;
  /** The CU rule of the CU figures, in a sentence (`CU rule: aggregate (...)`). */
  cuRule: string;
  /** The price list's currency and decimals; an account billed in its own says so on its entry. */
  currency?: string;
  decimals?: number;
  /** With a price list: the accounts' amounts added up per currency, the list's first. */
  amounts?: ForecastCurrencyAmounts[];
  entries: EntityForecast[];
  /** How far the warehouse's latest hour is behind the request's `nowEpoch` (with it). */
  lag?: WarehouseLag;
}

const zero = (): ForecastQuantities => ({ CU: 0, SU: 0, TU: 0, NU: 0 });
/** The positions of the forecast units and of cost in `METRICS` (the table's columns). */
const UNIT_AT: Record<ForecastUnit, number> = { CU: 0, SU: 1, TU: 2, NU: 3 };
const COST_AT = 4;

/** The projection of one entity's remaining hours: its values per unit and cost, from a source week. */
interface Projection {
  quantities: ForecastQuantities;
  cost: number;
}

/** An hour's figures: the forecast units and cost. */
type HourValues = Record<ForecastUnit | "cost", number>;

/** The entity's figures in hour `t` (epoch seconds), or undefined when it has no line then. */
function hourOf(table: UsageTable, entity: EntityUsage, t: number): HourValues | undefined {
  const h = (t - table.start) / HOUR;
  if (!table.held(entity, h)) return undefined;
  const v = (m: number) => table.value(entity, m, h);
  return { CU: v(UNIT_AT.CU), SU: v(UNIT_AT.SU), TU: v(UNIT_AT.TU), NU: v(UNIT_AT.NU), cost: v(COST_AT) };
}

/**
 * The remaining hours `[asOf, end)` repeated from the week `k` weeks before `asOf`: each
 * remaining hour takes the hour at the same place in that week; a source hour not held takes
 * the average of the hours held in that week.
 */
function project(table: UsageTable, entity: EntityUsage, asOf: number, end: number, k: number): Projection | undefined {
  const from = asOf - k * WEEK;
  const week: (HourValues | undefined)[] = [];
  const held: HourValues[] = [];
  for (let t = from; t < from + WEEK; t += HOUR) {
    const f = hourOf(table, entity, t);
    week.push(f);
    if (f) held.push(f);
  }
  if (held.length === 0) return undefined;
  const mean = averageOf(held);
  const out: Projection = { quantities: zero(), cost: 0 };
  for (let t = asOf; t < end; t += HOUR) {
    const source = week[((t - asOf) % WEEK) / HOUR] ?? mean;
    for (const u of FORECAST_UNITS) out.quantities[u] += source[u];
    out.cost += source.cost;
  }
  return out;
}

function averageOf(list: readonly HourValues[]): HourValues {
  const sum: HourValues = { CU: 0, SU: 0, TU: 0, NU: 0, cost: 0 };
  const keys = Object.keys(sum) as (keyof HourValues)[];
  for (const f of list) for (const k of keys) sum[k] += f[k];
  for (const k of keys) sum[k] /= list.length;
  return sum;
}

function add(a: ForecastQuantities, b: ForecastQuantities): ForecastQuantities {
  return { CU: a.CU + b.CU, SU: a.SU + b.SU, TU: a.TU + b.TU, NU: a.NU + b.NU };
}

/** The hour after an entity's last one in the table (its start when it has none). */
function lastHeld(table: UsageTable, entity: EntityUsage): number {
  for (let h = table.hours - 1; h >= 0; h--) if (table.held(entity, h)) return table.start + (h + 1) * HOUR;
  return table.start;
}

/** One entity's forecast, before amounts: what is held in the month and the projections. */
function forecastOf(table: UsageTable, entity: EntityUsage, start: number, end: number, asOfLimit: number) {
  const asOf = Math.min(asOfLimit, end, Math.max(start, lastHeld(table, entity)));
  const monthToDate = zero();
  let hoursHeld = 0;
  for (let t = Math.max(start, table.start); t < asOf; t += HOUR) {
    const f = hourOf(table, entity, t);
    if (!f) continue;
    hoursHeld++;
    for (const u of FORECAST_UNITS) monthToDate[u] += f[u];
  }
  const weeks = [1, 2, 3, 4]
    .map((k) => project(table, entity, asOf, end, k))
    .filter((p): p is Projection => p !== undefined);
  const point = weeks[0] ?? { quantities: zero(), cost: 0 };
  const total = (p: Projection) => add(monthToDate, p.quantities);
  const low = zero();
  const high = zero();
  for (const u of FORECAST_UNITS) {
    const values = weeks.length > 0 ? weeks.map((p) => p.quantities[u]) : [0];
    low[u] = monthToDate[u] + Math.min(...values);
    high[u] = monthToDate[u] + Math.max(...values);
  }
  const costs = weeks.length > 0 ? weeks.map((p) => p.cost) : [0];
  return {
    asOf,
    hoursHeld,
    hoursRemaining: (end - asOf) / HOUR,
    weeks: weeks.length,
    monthToDate,
    projected: total(point),
    low,
    high,
    remainingCost: { point: point.cost, low: Math.min(...costs), high: Math.max(...costs) },
  };
}

/**
 * What a forecast reads: the month, the hours counted (`[start, limit)`), and from when: the
 * 4 weeks before the earliest of the accounts' own `asOf` (their last hour held + 1 h, within
 * the month), or the month's start when that is earlier. Each account's `asOf` is known from
 * the warehouse's account-hours before anything is billed.
 */
export interface ForecastPlan {
  month: string;
  start: number;
  end: number;
  /** The hours before this one are counted: the month's end, or `asOf` when earlier. */
  limit: number;
  /** The first hour read. */
  readFrom: number;
  /** Each account held in the 4 weeks before the month or in it (before `limit`) and its own `asOf`. */
  accounts: Map<number, number>;
}

/** Plans a forecast (see `ForecastPlan`): the month checked, and the accounts' last hours read. */
export async function forecastPlan(
  connection: DuckDBConnection,
  request: Pick<ForecastRequest, "month" | "asOf">,
): Promise<ForecastPlan> {
  const { start, end } = monthPeriod(request.month, "month");
  if (request.asOf !== undefined && (!Number.isSafeInteger(request.asOf) || request.asOf % HOUR !== 0)) {
    throw new UsageError(`bad asOf: ${String(request.asOf)} (epoch seconds at the start of an hour)`);
  }
  const limit = Math.min(request.asOf ?? end, end);
  const earliest = Math.min(start, limit) - 4 * WEEK;
  const accounts = new Map<number, number>();
  if (limit > earliest) {
    const reader = await connection.runAndReadAll(
      "SELECT account_id::DOUBLE AS id, max(hour_epoch)::DOUBLE AS last FROM account_hours WHERE hour_epoch >= $from AND hour_epoch < $to GROUP BY account_id",
      { from: BigInt(earliest), to: BigInt(limit) },
    );
    for (const row of reader.getRowObjectsJS())
      accounts.set(Number(row.id), Math.min(limit, end, Math.max(start, Number(row.last) + HOUR)));
  }
  const readFrom = Math.max(earliest, Math.min(start, ...[...accounts.values()].map((asOf) => asOf - 4 * WEEK)));
  return { month: request.month.trim(), start, end, limit, readFrom, accounts };
}

/**
 * The month to date to bill from the forecast's own pass (`UsagePassRequest.billed`): the
 * hours from the month's start, cut where prices change as `bill` cuts them (`priceCuts`) for
 * the accounts held up to `limit`; undefined without prices.
 */
export function billedMonth(plan: ForecastPlan, prices: PriceList | undefined): UsagePassRequest["billed"] {
  if (!prices || plan.limit <= plan.start) return undefined;
  const current = [...plan.accounts].filter(([, asOf]) => asOf === plan.limit).map(([id]) => id);
  return {
    start: plan.start,
    splitAt: priceCuts(prices, {
      start: plan.start,
      end: plan.limit,
      accountId: current.length === 1 ? current[0] : undefined,
    }),
  };
}

/**
 * The amount due of each account's hours held, `[start, asOf)` with its own `asOf`: the
 * invoice `bill` gives. Accounts held up to `limit` (usually all: they are synced together)
 * are priced from the pass's own bill of the month (`billed`); the others from one bill of
 * the accounts held to the same `asOf` (one account: billed alone).
 */
async function monthToDateInvoices(
  connection: DuckDBConnection,
  plan: ForecastPlan,
  billed: BilledAccounts | undefined,
  prices: PriceList,
  options: BillingOptions,
  resolved: ResolvedBillingOptions,
): Promise<Map<number, Exact>> {
  const { start, limit } = plan;
  const out = new Map<number, Exact>();
  if (billed) {
    for (const line of billed.lines) {
      if (line.level !== "account" || plan.accounts.get(line.accountId) !== limit) continue;
      out.set(
        line.accountId,
        invoiceOf(line as AccountLine, prices, resolved.units, { start, end: limit, parts: billed.parts }).amountDue,
      );
    }
  }
  const byAsOf = new Map<number, number[]>();
  for (const [accountId, asOf] of plan.accounts)
    if (asOf > start && !out.has(accountId)) byAsOf.set(asOf, [...(byAsOf.get(asOf) ?? []), accountId]);
  for (const [asOf, ids] of byAsOf) {
    // one account alone is billed alone; several, from one bill of every account (an account without data owes 0)
    const period = ids.length > 1 ? { start, end: asOf } : { start, end: asOf, accountId: ids[0] };
    // impossible values count as 0 here, as in every figure of the warehouse read before the month ends
    const { report } = await bill({
      source: { connection },
      period,
      prices,
      rules: options,
      produce: { levels: ["account"] },
      skipBad: true,
      allowEmpty: true,
    });
    const invoices = new Map(report.invoices!.map((inv) => [inv.accountId, inv]));
    for (const accountId of ids) out.set(accountId, invoices.get(accountId)?.amountDue ?? Exact.ZERO);
  }
  return out;
}

/** The pieces of a forecast that one pass over the warehouse gives: the hourly figures of the accounts and the environment, and the month billed. */
export interface ForecastReading {
  table: UsageTable;
  billed: BilledAccounts | undefined;
}

/** A table of the environment's and the accounts' hours a forecast of `plan` reads. */
export function forecastTable(plan: ForecastPlan, options: ResolvedBillingOptions): UsageTable {
  return new UsageTable(plan.readFrom, plan.limit, ["environment", "account"], options.names);
}

/**
 * The forecast of a plan from what its pass read (see `forecast`): each entity's month to date
 * and projections, then the amounts with a price list.
 */
export async function forecastOfReading(
  connection: DuckDBConnection,
  plan: ForecastPlan,
  reading: ForecastReading,
  prices: PriceList | undefined,
  options: BillingOptions,
): Promise<Forecast> {
  const { start, end, limit } = plan;
  const resolved = resolveOptions(options);
  const { table } = reading;
  const entries: EntityForecast[] = [];
  const ordered = [...table.entities].sort((a, b) => (a.accountId ?? -1) - (b.accountId ?? -1));
  // the accounts' amounts added up per currency, the list's first (a customer may bill in its own)
  const totals = new Map<string, ForecastCurrencyAmounts>();
  if (prices) {
    const zero = { monthToDate: Exact.ZERO, projected: Exact.ZERO, low: Exact.ZERO, high: Exact.ZERO };
    totals.set(prices.currency, { currency: prices.currency, decimals: prices.decimals, accountIds: [], ...zero });
  }
  const held = ordered.map((entity) => ({ entity, f: forecastOf(table, entity, start, end, limit) }));
  const monthToDate = prices
    ? await monthToDateInvoices(connection, plan, reading.billed, prices, options, resolved)
    : new Map<number, Exact>();
  for (const { entity, f } of held) {
    const { remainingCost, ...figures } = f;
    const entry: EntityForecast = {
      level: entity.level === "environment" ? "environment" : "account",
      accountId: entity.accountId,
      name: entity.name,
      ...figures,
    };
    if (prices && entity.level === "account" && entity.accountId !== null) {
      const { currency, decimals } = currencyOf(prices, entity.accountId);
      const sofar = monthToDate.get(entity.accountId) ?? Exact.ZERO;
      const plus = (cost: number) => sofar.add(Exact.fromNumber(cost).round(decimals));
      entry.amount = {
        monthToDate: sofar,
        projected: plus(remainingCost.point),
        low: plus(remainingCost.low),
        high: plus(remainingCost.high),
      };
      entry.currency = currency;
      entry.decimals = decimals;
      const zero = { monthToDate: Exact.ZERO, projected: Exact.ZERO, low: Exact.ZERO, high: Exact.ZERO };
      const total = totals.get(currency) ?? { currency, decimals, accountIds: [], ...zero };
      totals.set(currency, {
        currency,
        decimals,
        accountIds: [...total.accountIds, entity.accountId],
        monthToDate: total.monthToDate.add(entry.amount.monthToDate),
        projected: total.projected.add(entry.amount.projected),
        low: total.low.add(entry.amount.low),
        high: total.high.add(entry.amount.high),
      });
    }
    entries.push(entry);
  }
  const environment = entries.find((e) => e.level === "environment");
  // the list's currency stays listed (0) when no account bills in it but another currency does
  const amounts = [...totals.values()].filter((t, i) => i === 0 || t.accountIds.length > 0);
  if (amounts.length > 1 && amounts[0]!.accountIds.length === 0) amounts.shift();
  if (environment && amounts.length === 1) {
    const { monthToDate, projected, low, high, currency, decimals } = amounts[0]!;
    Object.assign(environment, { amount: { monthToDate, projected, low, high }, currency, decimals });
  }
  return {
    month: plan.month,
    start,
    end,
    method: FORECAST_METHOD,
    cuRule: cuRuleSentence(options.cuRollup, options.units),
    ...(prices ? { currency: prices.currency, decimals: prices.decimals, amounts } : {}),
    entries,
  };
}

/**
 * Reads the hours `plan` projects from into `table` (made by `forecastTable`), and bills the
 * month to date: the accounts' hours grouped in DuckDB (no machine is needed), through the
 * engine when they cannot be. `grouping` runs the grouped read (`alerts` keeps DuckDB's cap
 * around it).
 */
export async function readForecastHours(
  connection: DuckDBConnection,
  plan: ForecastPlan,
  table: UsageTable,
  prices: PriceList | undefined,
  options: ResolvedBillingOptions,
  grouping: <T>(read: () => Promise<T>) => Promise<T> = (read) => read(),
): Promise<BilledAccounts | undefined> {
  const costs = prices ? new HourCosts(prices, options.units, plan.readFrom, plan.limit) : undefined;
  const pass = {
    start: plan.readFrom,
    end: plan.limit,
    billed: billedMonth(plan, prices),
    options,
    onHour: feedingTable(table, costs),
  };
  const grouped = await grouping(() => groupedAccountHours(connection, pass));
  return grouped ? grouped.billed : await usagePass(connection, { ...pass, levelsAt: () => table.levels });
}

/**
 * The month-end forecast of every account (and of the environment) over a warehouse: the
 * quantities and amount due so far, and projected to the month's end with a range
 * (`FORECAST_METHOD`). Reads the month and the 4 weeks before each account's last hour through
 * the billing engine, once (the month to date's invoices from the same pass).
 */
export async function forecast(connection: DuckDBConnection, request: ForecastRequest): Promise<Forecast> {
  const plan = await forecastPlan(connection, request);
  const last = await latestHour(connection, request.nowEpoch);
  const lag = last === undefined || request.nowEpoch === undefined ? undefined : lagOf(last, request.nowEpoch);
  if (![...plan.accounts.values()].some((asOf) => asOf > plan.start)) {
    // nothing of the month held: a projection would be the weeks before repeated, or zeros, presented as this month's
    throw new NoHoursHeldError(
      plan.month,
      last === undefined
        ? "the warehouse holds no hour"
        : lag
          ? lagText(lag)
          : `the warehouse holds hours up to ${isoUtc(last)}`,
    );
  }
  const options = await withStoredNames(connection, request.options);
  const resolved = resolveOptions(options);
  const table = forecastTable(plan, resolved);
  const billed =
    plan.accounts.size > 0 ? await readForecastHours(connection, plan, table, request.prices, resolved) : undefined;
  const f = await forecastOfReading(connection, plan, { table, billed }, request.prices, options);
  return lag ? { ...f, lag } : f;
}
