import type { Period } from "../base/period.js";
import { priceChanges, type PriceList } from "./prices.js";

/*
 * Where a billed period is cut into parts, each summed apart as well as the whole: where a
 * price changes (an invoice line per unit and price period) and, for a bill by day, at every
 * UTC midnight. `bill` is the one caller that decides the cuts: a caller of the library
 * never works them out, and an invoice is never priced without its price periods.
 */

/** The hours strictly inside `period` (of its account, when it names one) where a price of `prices` changes: ascending, each once. */
export function priceCuts(prices: PriceList | undefined, period: Period): number[] {
  return prices === undefined ? [] : priceChanges(prices, period.start, period.end, period.accountId);
}

const DAY_SECONDS = 86_400;

/** The UTC midnights strictly inside `period`. */
export function dayCuts(period: Period): number[] {
  const cuts: number[] = [];
  for (let t = Math.floor(period.start / DAY_SECONDS) * DAY_SECONDS + DAY_SECONDS; t < period.end; t += DAY_SECONDS)
    cuts.push(t);
  return cuts;
}

/** The cuts strictly inside the period, ascending, each once. */
export function cutsWithin(cuts: readonly number[] | undefined, period: Period): number[] {
  return [...new Set(cuts ?? [])].filter((t) => t > period.start && t < period.end).sort((a, b) => a - b);
}
