import { UsageError } from "../base/errors.js";
import { isoUtc, parseTime } from "../base/time.js";
import { Exact } from "./exact.js";
import { readStructured } from "./readStructured.js";
import type { UnitName } from "./unitNames.js";
import { catalogUnits, isVolume } from "./unitCatalog.js";

/** What a price is per: a unit-hour, a unit-month (`units.hoursPerMonth` hours), or a TiB of NU (a volume; the basis is written `TB`, the key `perTB`). */
export type PriceBasis = "hour" | "month" | "TB";

/** The price of one unit: per unit-hour or per unit-month, or per TiB for NU; exact. */
export interface UnitPrice {
  /** What the price is per: one unit-hour, one unit-month (`units.hoursPerMonth` hours), or one TiB transferred (NU). */
  per: PriceBasis;
  /** The price, exactly as written in the price list. */
  price: Exact;
  /** The price as written (a decimal string), for display. */
  text: string;
  /** The hour from which it holds (epoch seconds, inclusive), until the unit's next price; undefined: from the start. */
  from?: number;
}

/** Prices per unit in force at one hour; a unit without a price is not charged. */
export type UnitPrices = Partial<Record<UnitName, UnitPrice>>;

/** Each unit's prices in the order they take effect: each holds from its `from` until the next one's. */
export type DatedPrices = Partial<Record<UnitName, readonly UnitPrice[]>>;

/** A price over a part of a period: `[start, end)`, epoch seconds. */
export interface PricePeriod {
  start: number;
  end: number;
  price: UnitPrice;
}

/** A price list: currency, decimals of presentation, prices, per-account overrides. */
export interface PriceList {
  /** ISO 4217 code, e.g. `EUR`. */
  currency: string;
  /** Decimals amounts are rounded to (half-even) when presented; default from the currency (2 for most). */
  decimals: number;
  /** The prices of every account, each unit's in the order they take effect (one, undated, in a list without dates). */
  prices: DatedPrices;
  /**
   * Per-account overrides, unit by unit: in an hour where an account's own price of a unit is in force it
   * replaces the list's; a unit keeps one basis (hour or month) in a list.
   */
  accounts: ReadonlyMap<number, DatedPrices>;
  /**
   * Customers priced in their own currency (`customers.<id>: { currency: JPY, prices: {...} }`),
   * by customer id (an account id as text while an account is its own customer): all their prices
   * are given in that currency and replace the list's; nothing is ever converted. Absent: none.
   */
  customers?: ReadonlyMap<string, CustomerPrices>;
  /** Who provides the services (FOCUS ProviderName and PublisherName); default `Cloud provider`. */
  provider: string;
  /** Who issues the invoice (FOCUS InvoiceIssuerName); default the provider. */
  invoiceIssuer: string;
  /** The file it came from, for reports. */
  source?: string;
}

/** A customer's own price list in its own currency: every price it pays, none taken from the list's. */
export interface CustomerPrices {
  /** ISO 4217 code, e.g. `JPY`. */
  currency: string;
  /** Decimals its amounts are rounded to (half-even); default from the currency (0 for JPY). */
  decimals: number;
  /** Its prices, each unit's in the order they take effect. */
  prices: DatedPrices;
}

/** ISO 4217 minor units that differ from 2. */
const CURRENCY_DECIMALS: Record<string, number> = {
  BHD: 3,
  BIF: 0,
  CLF: 4,
  CLP: 0,
  DJF: 0,
  GNF: 0,
  IQD: 3,
  ISK: 0,
  JOD: 3,
  JPY: 0,
  KMF: 0,
  KRW: 0,
  KWD: 3,
  LYD: 3,
  OMR: 3,
  PYG: 0,
  RWF: 0,
  TND: 3,
  UGX: 0,
  UYI: 0,
  UYW: 4,
  VND: 0,
  VUV: 0,
  XAF: 0,
  XOF: 0,
  XPF: 0,
};

/** The ISO 4217 number of decimals of a currency: 2 unless the standard says otherwise (JPY 0, KWD 3, ...). */
export function currencyDecimals(currency: string): number {
  return CURRENCY_DECIMALS[currency] ?? 2;
}

const BASIS_KEYS: Record<string, PriceBasis> = { perHour: "hour", perMonth: "month", perTB: "TB" };

function parsePrice(value: unknown, per: PriceBasis, where: string, unit: UnitName): UnitPrice {
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    const keys = Object.keys(value);
    const v = value as Record<string, unknown>;
    const allowed = isVolume(unit) ? ["perTB"] : ["perHour", "perMonth"];
    if (keys.length !== 1 || !allowed.includes(keys[0]!)) {
      const why = isVolume(unit)
        ? "NU is a volume, priced per TiB transferred: give a bare number or { perTB: 0.02 }"
        : "give one of perHour or perMonth, e.g. { perHour: 0.0125 }";
      throw new UsageError(`${where}: ${why} (found ${keys.join(", ") || "nothing"})`);
    }
    return parsePrice(v[keys[0]!], BASIS_KEYS[keys[0]!]!, where, unit);
  }
  if (isVolume(unit)) per = "TB";
  const text = typeof value === "number" ? String(value) : typeof value === "string" ? value.trim() : undefined;
  const price = text === undefined ? undefined : Exact.parse(text);
  if (text === undefined || price === undefined || price.num < 0n) {
    throw new UsageError(`${where}: a price must be a non-negative decimal number, got ${JSON.stringify(value)}`);
  }
  return { per, price, text: price.toDecimalString() ?? text };
}

/** When a dated price takes effect: an ISO date or time on the hour, UTC unless it says otherwise. */
function parseFrom(value: unknown, where: string): number {
  const text =
    value instanceof Date
      ? value.toISOString()
      : typeof value === "string" || typeof value === "number"
        ? value
        : undefined;
  if (text === undefined)
    throw new UsageError(`${where}.from: give a date such as 2026-10-15 (UTC), got ${JSON.stringify(value)}`);
  const from = parseTime(text, `${where}.from`);
  if (from % 3600 !== 0)
    throw new UsageError(`${where}.from: ${isoUtc(from)} is not on the hour (prices change between hours)`);
  return from;
}

/**
 * A unit's dated prices: `[0.0125, { from: "2026-10-15", price: 0.014 }]` (the first may have no
 * date: it holds from the start); each entry is a price as `parsePrice` takes it, or `{ from, price }`,
 * `{ from, perHour }`, `{ from, perMonth }`, `{ from, perTB }`.
 */
function parseTimeline(value: readonly unknown[], per: PriceBasis, where: string, unit: UnitName): UnitPrice[] {
  if (value.length === 0) throw new UsageError(`${where}: an empty list of prices (give at least one)`);
  const out: UnitPrice[] = [];
  value.forEach((entry, k) => {
    const at = `${where}[${k}]`;
    let price: UnitPrice;
    if (entry !== null && typeof entry === "object" && !Array.isArray(entry) && "from" in entry) {
      const { from, ...rest } = entry as Record<string, unknown>;
      const keys = Object.keys(rest);
      const body = keys.length === 1 && keys[0] === "price" ? rest.price : rest;
      price = { ...parsePrice(body, per, at, unit), from: parseFrom(from, at) };
    } else {
      if (k > 0)
        throw new UsageError(
          `${at}: only the first price may hold from the start; give { from: 2026-10-15, price: ... }`,
        );
      price = parsePrice(entry, per, at, unit);
    }
    const previous = out[k - 1];
    if (previous && previous.from !== undefined && price.from! <= previous.from) {
      throw new UsageError(
        `${at}.from: ${isoUtc(price.from!)} is not after the previous price's ${isoUtc(previous.from)} (give prices in the order they take effect)`,
      );
    }
    if (previous && previous.per !== price.per)
      throw new UsageError(
        `${at}: per unit-${price.per} but ${where}[0] is per unit-${previous.per}: give a unit one basis`,
      );
    out.push(price);
  });
  return out;
}

function parseUnitPrices(value: unknown, per: PriceBasis, where: string): DatedPrices {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new UsageError(`${where}: expected prices per unit, e.g. { CU: 0.0125, SU: { perMonth: 40 } }`);
  }
  const out: DatedPrices = {};
  for (const [unit, price] of Object.entries(value)) {
    if (!(catalogUnits() as readonly string[]).includes(unit)) {
      throw new UsageError(`${where}: unknown unit ${unit} (units: ${catalogUnits().join(", ")})`);
    }
    const at = `${where}.${unit}`;
    out[unit as UnitName] = Array.isArray(price)
      ? parseTimeline(price, per, at, unit as UnitName)
      : [parsePrice(price, per, at, unit as UnitName)];
  }
  return out;
}

/**
 * The prices of an `accounts` entry, written as the README does, `{ prices: { CU: 0.04 } }`,
 * or bare, `{ CU: 0.04 }` (accepted too).
 */
function accountPrices(entry: unknown, where: string): unknown {
  if (entry === null || typeof entry !== "object" || Array.isArray(entry) || !("prices" in entry)) return entry;
  const keys = Object.keys(entry);
  if (keys.length > 1) throw new UsageError(`${where}: give { prices: { ... } } alone (found ${keys.join(", ")})`);
  return (entry as { prices: unknown }).prices;
}

/**
 * Checks a parsed price list: `{ currency, decimals?, per?, prices: { CU: 0.0125, SU: { perMonth: 40 }, NU: 20 },
 * accounts?: { "7": { prices: { CU: 0.01 } } }, provider?, invoiceIssuer? }` (an account's prices may also be
 * written bare, `{ "7": { CU: 0.01 } }`). Bare prices are per unit-hour, or per unit-month
 * with `per: month`; NU, a volume, is always priced per TiB transferred. A unit's price may change:
 * `CU: [0.0125, { from: "2026-10-15", price: 0.014 }]` (dates UTC, on the hour; an account's dated
 * prices replace the list's from their first date). Unknown keys and bad values throw a UsageError naming them.
 */
export function parsePrices(value: unknown, source = "prices"): PriceList {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new UsageError(`${source}: a price list is an object { currency, prices, ... }`);
  }
  const v = value as Record<string, unknown>;
  const KEYS = ["currency", "decimals", "per", "prices", "accounts", "customers", "provider", "invoiceIssuer"];
  const unknown = Object.keys(v).filter((k) => !KEYS.includes(k));
  if (unknown.length > 0)
    throw new UsageError(
      `${source}: unknown key${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")} (known: ${KEYS.join(", ")})`,
    );
  for (const key of ["provider", "invoiceIssuer"]) {
    if (v[key] !== undefined && (typeof v[key] !== "string" || v[key] === ""))
      throw new UsageError(`${source}: ${key} must be a non-empty string`);
  }
  const provider = (v.provider as string | undefined) ?? "Cloud provider";
  const invoiceIssuer = (v.invoiceIssuer as string | undefined) ?? provider;
  const currency = typeof v.currency === "string" ? v.currency.trim().toUpperCase() : "";
  if (!/^[A-Z]{3}$/.test(currency))
    throw new UsageError(`${source}: currency must be an ISO 4217 code such as EUR, got ${JSON.stringify(v.currency)}`);
  const decimals = v.decimals === undefined ? currencyDecimals(currency) : v.decimals;
  if (typeof decimals !== "number" || !Number.isInteger(decimals) || decimals < 0 || decimals > 12) {
    throw new UsageError(`${source}: decimals must be a whole number from 0 to 12, got ${JSON.stringify(v.decimals)}`);
  }
  const per = v.per ?? "hour";
  if (per !== "hour" && per !== "month")
    throw new UsageError(`${source}: per must be hour or month, got ${JSON.stringify(v.per)}`);
  if (v.prices === undefined) throw new UsageError(`${source}: no prices (add e.g. prices: { CU: 0.0125 })`);
  const prices = parseUnitPrices(v.prices, per, `${source}: prices`);
  const accounts = new Map<number, DatedPrices>();
  const basis = new Map<UnitName, { per: PriceBasis; where: string }>(
    (Object.entries(prices) as [UnitName, UnitPrice[]][]).map(([unit, p]) => [
      unit,
      { per: p[0]!.per, where: `prices.${unit}` },
    ]),
  );
  if (v.accounts !== undefined) {
    if (v.accounts === null || typeof v.accounts !== "object" || Array.isArray(v.accounts)) {
      throw new UsageError(
        `${source}: accounts must map account ids to prices, e.g. { "7": { prices: { CU: 0.01 } } }`,
      );
    }
    for (const [id, overrides] of Object.entries(v.accounts)) {
      if (!/^\d+$/.test(id)) throw new UsageError(`${source}: accounts: "${id}" is not an account id`);
      const own = parseUnitPrices(
        accountPrices(overrides, `${source}: accounts.${id}`),
        per,
        `${source}: accounts.${id}`,
      );
      for (const [unit, [price]] of Object.entries(own) as [UnitName, UnitPrice[]][]) {
        const first = basis.get(unit);
        if (first && first.per !== price.per) {
          throw new UsageError(
            `${source}: accounts.${id}.${unit} is per unit-${price!.per} but ${first.where} is per unit-${first.per}: give one unit one basis (hour or month) in a price list`,
          );
        }
        if (!first) basis.set(unit, { per: price!.per, where: `accounts.${id}.${unit}` });
      }
      accounts.set(Number(id), own);
    }
  }
  const customers = parseCustomerPrices(v.customers, per, source, basis);
  return {
    currency,
    decimals,
    prices,
    accounts,
    ...(customers.size > 0 ? { customers } : {}),
    provider,
    invoiceIssuer,
    source,
  };
}

/** Reads a price list file (JSON when it ends in `.json`, else YAML) and checks it. */
export async function loadPrices(file: string): Promise<PriceList> {
  return parsePrices(await readStructured(file, { role: "price list" }), file);
}

/** The basis of each priced unit of a list (its own price's, else the first override's). */
export function pricedUnits(list: PriceList): { unit: UnitName; per: PriceBasis }[] {
  const per = new Map<UnitName, PriceBasis>();
  for (const prices of [
    list.prices,
    ...list.accounts.values(),
    ...[...(list.customers?.values() ?? [])].map((c) => c.prices),
  ]) {
    for (const unit of catalogUnits()) {
      const price = prices[unit]?.[0];
      if (price && !per.has(unit)) per.set(unit, price.per);
    }
  }
  return catalogUnits()
    .filter((u) => per.has(u))
    .map((unit) => ({ unit, per: per.get(unit)! }));
}

/** The price of a timeline in force at `hourEpoch` (the last to take effect by then), if any. */
function inForce(timeline: readonly UnitPrice[] | undefined, hourEpoch: number): UnitPrice | undefined {
  let found: UnitPrice | undefined;
  for (const price of timeline ?? []) {
    if (price.from !== undefined && price.from > hourEpoch) break;
    found = price;
  }
  return found;
}

/** The price of a unit in force for an account (its own when one is in force, else the list's) at an hour. */
export function priceAt(
  list: PriceList,
  accountId: number | null,
  unit: UnitName,
  hourEpoch: number,
): UnitPrice | undefined {
  const customer = customerPricesOf(list, accountId);
  if (customer) return inForce(customer.prices[unit], hourEpoch);
  const own = accountId === null ? undefined : list.accounts.get(accountId)?.[unit];
  return inForce(own, hourEpoch) ?? inForce(list.prices[unit], hourEpoch);
}

/** True when some price of the list holds from a date rather than from the start. */
export function hasDatedPrices(list: PriceList): boolean {
  return priceChanges(list, -Infinity, Infinity).length > 0;
}

/**
 * The prices that apply to an account at an hour: each unit's in force then (the account's own
 * when it has one in force). Without an hour the list must have no dated prices.
 */
export function pricesFor(list: PriceList, accountId: number | null, hourEpoch?: number): UnitPrices {
  if (hourEpoch === undefined && hasDatedPrices(list))
    throw new RangeError("this price list changes prices over time: give the hour");
  const out: UnitPrices = {};
  for (const unit of catalogUnits()) {
    const price = priceAt(list, accountId, unit, hourEpoch ?? 0);
    if (price) out[unit] = price;
  }
  return out;
}

/**
 * The hours in `(start, end)` at which some price changes (for `accountId`: the list's and that
 * account's; else every account's too), ascending: billing bills the parts between them apart.
 */
export function priceChanges(list: PriceList, start: number, end: number, accountId?: number): number[] {
  const customer = accountId === undefined ? undefined : customerPricesOf(list, accountId);
  const lists =
    accountId === undefined
      ? [list.prices, ...list.accounts.values(), ...[...(list.customers?.values() ?? [])].map((c) => c.prices)]
      : customer
        ? [customer.prices]
        : [list.prices, list.accounts.get(accountId) ?? {}];
  const at = new Set<number>();
  for (const prices of lists) {
    for (const timeline of Object.values(prices))
      for (const p of timeline ?? []) if (p.from !== undefined && p.from > start && p.from < end) at.add(p.from);
  }
  return [...at].sort((a, b) => a - b);
}

/**
 * The price periods of a unit for an account within `[start, end)`: the parts of the period
 * during which one price is in force, in order (hours without a price are in none).
 */
export function pricePeriods(
  list: PriceList,
  accountId: number | null,
  unit: UnitName,
  start: number,
  end: number,
): PricePeriod[] {
  const cuts = [start, ...priceChanges(list, start, end, accountId ?? undefined), end];
  const out: PricePeriod[] = [];
  for (let k = 0; k + 1 < cuts.length; k++) {
    const price = priceAt(list, accountId, unit, cuts[k]!);
    const last = out[out.length - 1];
    if (!price) continue;
    if (last && last.price === price && last.end === cuts[k]) last.end = cuts[k + 1]!;
    else out.push({ start: cuts[k]!, end: cuts[k + 1]!, price });
  }
  return out;
}

/**
 * The own prices of an account's customer, when the list prices that customer apart. Until
 * accounts are grouped into customers, an account is its own customer: its id as text.
 */
export function customerPricesOf(list: PriceList, accountId: number | null): CustomerPrices | undefined {
  return accountId === null ? undefined : list.customers?.get(String(accountId));
}

/** The currency an account is billed in, with its decimals: its customer's own, else the list's. */
export function currencyOf(list: PriceList, accountId: number | null): { currency: string; decimals: number } {
  const own = customerPricesOf(list, accountId);
  return own
    ? { currency: own.currency, decimals: own.decimals }
    : { currency: list.currency, decimals: list.decimals };
}

/** Every currency a list bills in, the list's first, then the customers' in order of first appearance. */
export function currenciesOf(list: PriceList): string[] {
  return [...new Set([list.currency, ...[...(list.customers?.values() ?? [])].map((c) => c.currency)])];
}

/** The ISO 4217 code of a `currency` key, upper-cased, or a UsageError naming where. */
function currencyCode(value: unknown, where: string): string {
  const currency = typeof value === "string" ? value.trim().toUpperCase() : "";
  if (!/^[A-Z]{3}$/.test(currency))
    throw new UsageError(`${where}: currency must be an ISO 4217 code such as JPY, got ${JSON.stringify(value)}`);
  return currency;
}

/**
 * Checks `customers: { "<id>": { currency: JPY, decimals?, prices: { CU: 2, SU: { perMonth: 6000 } } } }`:
 * each customer's whole price list in its currency. Every unit the list or an account prices must
 * have the customer's price too (a price is never converted, nor taken from another currency's list).
 */
function parseCustomerPrices(
  value: unknown,
  per: PriceBasis,
  source: string,
  basis: Map<UnitName, { per: PriceBasis; where: string }>,
): Map<string, CustomerPrices> {
  const out = new Map<string, CustomerPrices>();
  if (value === undefined) return out;
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new UsageError(
      `${source}: customers must map customer ids to their own prices, e.g. { "7101": { currency: JPY, prices: { CU: 2 } } }`,
    );
  }
  for (const [id, entry] of Object.entries(value)) {
    const where = `${source}: customers.${id}`;
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(id)) throw new UsageError(`${where}: "${id}" is not a customer id`);
    if (entry === null || typeof entry !== "object" || Array.isArray(entry))
      throw new UsageError(`${where}: give { currency: JPY, prices: { ... } }`);
    const e = entry as Record<string, unknown>;
    const unknown = Object.keys(e).filter((k) => !["currency", "decimals", "prices"].includes(k));
    if (unknown.length > 0)
      throw new UsageError(`${where}: unknown key ${unknown.join(", ")} (known: currency, decimals, prices)`);
    const currency = currencyCode(e.currency, where);
    const decimals = e.decimals === undefined ? currencyDecimals(currency) : e.decimals;
    if (typeof decimals !== "number" || !Number.isInteger(decimals) || decimals < 0 || decimals > 12)
      throw new UsageError(`${where}: decimals must be a whole number from 0 to 12, got ${JSON.stringify(e.decimals)}`);
    if (e.prices === undefined) throw new UsageError(`${where}: no prices (give every price in ${currency})`);
    const prices = parseUnitPrices(e.prices, per, `${where}.prices`);
    for (const [unit, timeline] of Object.entries(prices) as [UnitName, UnitPrice[]][]) {
      const first = basis.get(unit);
      if (first && first.per !== timeline[0]!.per)
        throw new UsageError(
          `${where}.prices.${unit} is per unit-${timeline[0]!.per} but ${first.where} is per unit-${first.per}: give one unit one basis (hour or month) in a price list`,
        );
    }
    const lacking = [...basis.keys()].filter((unit) => prices[unit] === undefined);
    if (lacking.length > 0)
      throw new UsageError(
        `${where}: no ${currency} price of ${lacking.join(", ")}: a customer in its own currency gives every price in it (a price is never converted)`,
      );
    out.set(id, { currency, decimals, prices });
  }
  return out;
}
