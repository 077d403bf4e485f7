import { Exact } from "./exact.js";
import { priceAt, pricesFor, type PriceBasis, type PriceList } from "./prices.js";
import { nuUnit, type Units } from "./units.js";

export { nuUnit };
import type { UnitName } from "./unitNames.js";

/** One charged unit: quantity in the unit the price is per, the unit price and the exact amount. */
export interface Charge {
  unit: UnitName;
  /** What the unit price is per: `hour`, `month` or `TB` (NU's volume, whatever its unit: TiB by default, see `nuUnit`). */
  basis: PriceBasis;
  /** Quantity in the unit of the price: unit-hours, unit-months (unit-hours / hoursPerMonth), or TiB (NU). */
  pricingQuantity: number;
  /** `CU-hour`, `SU-month` or `TB`: what the unit price is per (see `pricingUnitOf`). */
  pricingUnit: string;
  /** The unit price as written in the price list. */
  unitPrice: string;
  /** Unit-hours × price (÷ hoursPerMonth for monthly prices), exact: FOCUS's hourly cost; invoices round per line. */
  amount: Exact;
}

/** One amount of a report line: an invoice line's (account), or the line's share of it (showback). */
export interface LineCharge {
  unit: UnitName;
  /** The invoice line's price period `[start, end)`, epoch seconds (for the environment, undefined: every period of the unit). */
  start?: number;
  end?: number;
  amount: Exact;
}

/** The money of one report line: its amount per invoice line (rounded), and their sum. */
export interface LineMoney {
  /** One per invoice line (a unit and price period), in invoice order (for the environment, one per unit). */
  charges: LineCharge[];
  /** Σ of `charges`: the amount due of an account; a cloud space's or machine's share of it; the grand total for the environment. */
  amount: Exact;
}

/** The unit a price is per, as reports write it: `CU-hour`, `SU-month`, or the NU volume unit (`TiB`, see `nuUnit`). */
export function pricingUnitOf(unit: UnitName, basis: PriceBasis, units: Units): string {
  return basis === "TB" ? nuUnit(units) : `${unit}-${basis}`;
}

/** Unit-hours (or TiB of NU) in the unit of a price basis: ÷ hoursPerMonth for monthly prices. */
export function pricingQuantityOf(unitHours: number, basis: PriceBasis, units: Units): number {
  return basis === "month" ? unitHours / units.hoursPerMonth : unitHours;
}

/**
 * The charge of `unitHours` of one unit (NU: TiB) for an account (its overrides apply) at the
 * price in force at `hourEpoch` (needed when the list's prices change), or `undefined` when the unit has no price. The amount is exact: unit-hours × unit-hour price,
 * unit-hours / hoursPerMonth × unit-month price, TiB × price per TiB.
 */
export function chargeOf(
  unit: UnitName,
  unitHours: number,
  accountId: number | null,
  list: PriceList,
  units: Units,
  hourEpoch?: number,
): Charge | undefined {
  const price = hourEpoch === undefined ? pricesFor(list, accountId)[unit] : priceAt(list, accountId, unit, hourEpoch);
  if (!price) return undefined;
  const hours = Exact.fromNumber(unitHours);
  const monthly = price.per === "month";
  return {
    unit,
    basis: price.per,
    pricingQuantity: pricingQuantityOf(unitHours, price.per, units),
    pricingUnit: pricingUnitOf(unit, price.per, units),
    unitPrice: price.text,
    amount: monthly ? hours.mul(price.price).div(Exact.fromNumber(units.hoursPerMonth)) : hours.mul(price.price),
  };
}

/** Σ of the charges: a LineMoney. */
export function lineMoneyOf(charges: LineCharge[]): LineMoney {
  return { charges, amount: charges.reduce((a, c) => a.add(c.amount), Exact.ZERO) };
}

/** A line's amount of one unit: Σ over its price periods; undefined when the unit is not charged. */
export function unitAmountOf(money: LineMoney | undefined, unit: UnitName): Exact | undefined {
  const own = money?.charges.filter((c) => c.unit === unit) ?? [];
  return own.length === 0 ? undefined : own.reduce((a, c) => a.add(c.amount), Exact.ZERO);
}
