import { UsageError } from "../errors.js";
import { Exact } from "./exact.js";
import { readStructured } from "./readStructured.js";
import { UNIT_NAMES, type UnitName } from "./unitNames.js";

/** What a price is per: a unit-hour, a unit-month (`units.hoursPerMonth` hours), or a TB (NU, a volume). */
export type PriceBasis = "hour" | "month" | "TB";

/** The price of one unit: per unit-hour or per unit-month, or per TB for NU; exact. */
export interface UnitPrice {
  /** What the price is per: one unit-hour, one unit-month (`units.hoursPerMonth` hours), or one TB transferred (NU). */
  per: PriceBasis;
  /** The price, exactly as written in the price list. */
  price: Exact;
  /** The price as written (a decimal string), for display. */
  text: string;
}

/** Prices per unit; a unit without a price is not charged. */
export type UnitPrices = Partial<Record<UnitName, UnitPrice>>;

/** A price list: currency, decimals of presentation, prices, per-account overrides. */
export interface PriceList {
  /** ISO 4217 code, e.g. `EUR`. */
  currency: string;
  /** Decimals amounts are rounded to (half-even) when presented; default from the currency (2 for most). */
  decimals: number;
  /** The prices of every account. */
  prices: UnitPrices;
  /** Per-account overrides, merged unit by unit over `prices`; a unit keeps one basis (hour or month) in a list. */
  accounts: ReadonlyMap<number, UnitPrices>;
  /** Who provides the services (FOCUS ProviderName and PublisherName); default `Cloud provider`. */
  provider: string;
  /** Who issues the invoice (FOCUS InvoiceIssuerName); default the provider. */
  invoiceIssuer: string;
  /** The file it came from, for reports. */
  source?: string;
}

/** ISO 4217 minor units that differ from 2. */
const CURRENCY_DECIMALS: Record<string, number> = {
  BHD: 3, BIF: 0, CLF: 4, CLP: 0, DJF: 0, GNF: 0, IQD: 3, ISK: 0, JOD: 3, JPY: 0, KMF: 0, KRW: 0, KWD: 3, LYD: 3,
  OMR: 3, PYG: 0, RWF: 0, TND: 3, UGX: 0, UYI: 0, UYW: 4, VND: 0, VUV: 0, XAF: 0, XOF: 0, XPF: 0,
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
    const allowed = unit === "NU" ? ["perTB"] : ["perHour", "perMonth"];
    if (keys.length !== 1 || !allowed.includes(keys[0]!)) {
      const why = unit === "NU" ? "NU is a volume, priced per TB transferred: give a bare number or { perTB: 0.02 }" : "give one of perHour or perMonth, e.g. { perHour: 0.0125 }";
      throw new UsageError(`${where}: ${why} (found ${keys.join(", ") || "nothing"})`);
    }
    return parsePrice(v[keys[0]!], BASIS_KEYS[keys[0]!]!, where, unit);
  }
  if (unit === "NU") per = "TB";
  const text = typeof value === "number" ? String(value) : typeof value === "string" ? value.trim() : undefined;
  const price = text === undefined ? undefined : Exact.parse(text);
  if (text === undefined || price === undefined || price.num < 0n) {
    throw new UsageError(`${where}: a price must be a non-negative decimal number, got ${JSON.stringify(value)}`);
  }
  return { per, price, text: price.toDecimalString() ?? text };
}

function parseUnitPrices(value: unknown, per: PriceBasis, where: string): UnitPrices {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new UsageError(`${where}: expected prices per unit, e.g. { CU: 0.0125, SU: { perMonth: 40 } }`);
  }
  const out: UnitPrices = {};
  for (const [unit, price] of Object.entries(value)) {
    if (!(UNIT_NAMES as readonly string[]).includes(unit)) {
      throw new UsageError(`${where}: unknown unit ${unit} (units: ${UNIT_NAMES.join(", ")})`);
    }
    out[unit as UnitName] = parsePrice(price, per, `${where}.${unit}`, unit as UnitName);
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
 * with `per: month`; NU, a volume, is always priced per TB transferred. Unknown keys and bad values throw a UsageError naming them.
 */
export function parsePrices(value: unknown, source = "prices"): PriceList {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new UsageError(`${source}: a price list is an object { currency, prices, ... }`);
  }
  const v = value as Record<string, unknown>;
  const KEYS = ["currency", "decimals", "per", "prices", "accounts", "provider", "invoiceIssuer"];
  const unknown = Object.keys(v).filter((k) => !KEYS.includes(k));
  if (unknown.length > 0) throw new UsageError(`${source}: unknown key${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")} (known: ${KEYS.join(", ")})`);
  for (const key of ["provider", "invoiceIssuer"]) {
    if (v[key] !== undefined && (typeof v[key] !== "string" || v[key] === "")) throw new UsageError(`${source}: ${key} must be a non-empty string`);
  }
  const provider = (v.provider as string | undefined) ?? "Cloud provider";
  const invoiceIssuer = (v.invoiceIssuer as string | undefined) ?? provider;
  const currency = typeof v.currency === "string" ? v.currency.trim().toUpperCase() : "";
  if (!/^[A-Z]{3}$/.test(currency)) throw new UsageError(`${source}: currency must be an ISO 4217 code such as EUR, got ${JSON.stringify(v.currency)}`);
  const decimals = v.decimals === undefined ? currencyDecimals(currency) : v.decimals;
  if (typeof decimals !== "number" || !Number.isInteger(decimals) || decimals < 0 || decimals > 12) {
    throw new UsageError(`${source}: decimals must be a whole number from 0 to 12, got ${JSON.stringify(v.decimals)}`);
  }
  const per = v.per ?? "hour";
  if (per !== "hour" && per !== "month") throw new UsageError(`${source}: per must be hour or month, got ${JSON.stringify(v.per)}`);
  if (v.prices === undefined) throw new UsageError(`${source}: no prices (add e.g. prices: { CU: 0.0125 })`);
  const prices = parseUnitPrices(v.prices, per, `${source}: prices`);
  const accounts = new Map<number, UnitPrices>();
  const basis = new Map<UnitName, { per: PriceBasis; where: string }>(
    (Object.entries(prices) as [UnitName, UnitPrice][]).map(([unit, p]) => [unit, { per: p.per, where: `prices.${unit}` }]),
  );
  if (v.accounts !== undefined) {
    if (v.accounts === null || typeof v.accounts !== "object" || Array.isArray(v.accounts)) {
      throw new UsageError(`${source}: accounts must map account ids to prices, e.g. { "7": { prices: { CU: 0.01 } } }`);
    }
    for (const [id, overrides] of Object.entries(v.accounts)) {
      if (!/^\d+$/.test(id)) throw new UsageError(`${source}: accounts: "${id}" is not an account id`);
      const own = parseUnitPrices(accountPrices(overrides, `${source}: accounts.${id}`), per, `${source}: accounts.${id}`);
      for (const [unit, price] of Object.entries(own) as [UnitName, UnitPrice][]) {
        const first = basis.get(unit);
        if (first && first.per !== price.per) {
          throw new UsageError(
            `${source}: accounts.${id}.${unit} is per unit-${price.per} but ${first.where} is per unit-${first.per}: give one unit one basis (hour or month) in a price list`,
          );
        }
        if (!first) basis.set(unit, { per: price.per, where: `accounts.${id}.${unit}` });
      }
      accounts.set(Number(id), own);
    }
  }
  return { currency, decimals, prices, accounts, provider, invoiceIssuer, source };
}

/** Reads a price list file (JSON when it ends in `.json`, else YAML) and checks it. */
export async function loadPrices(file: string): Promise<PriceList> {
  return parsePrices(await readStructured(file), file);
}

/** The basis of each priced unit of a list (its own price's, else the first override's). */
export function pricedUnits(list: PriceList): { unit: UnitName; per: PriceBasis }[] {
  const per = new Map<UnitName, PriceBasis>();
  for (const prices of [list.prices, ...list.accounts.values()]) {
    for (const unit of UNIT_NAMES) {
      const price = prices[unit];
      if (price && !per.has(unit)) per.set(unit, price.per);
    }
  }
  return UNIT_NAMES.filter((u) => per.has(u)).map((unit) => ({ unit, per: per.get(unit)! }));
}

/** The prices that apply to an account: the list's prices with the account's overrides. */
export function pricesFor(list: PriceList, accountId: number | null): UnitPrices {
  const overrides = accountId === null ? undefined : list.accounts.get(accountId);
  if (!overrides) return list.prices;
  let cache = merged.get(list);
  if (!cache) merged.set(list, (cache = new Map()));
  let prices = cache.get(accountId!);
  if (!prices) cache.set(accountId!, (prices = { ...list.prices, ...overrides }));
  return prices;
}

const merged = new WeakMap<PriceList, Map<number, UnitPrices>>();
