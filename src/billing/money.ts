import { Exact } from "./exact.js";
import type { BillingLine } from "./lines.js";
import { pricesFor, type PriceList } from "./prices.js";
import type { Units } from "./units.js";
import { UNIT_NAMES, type UnitName } from "./unitNames.js";

/** One charged unit of a line: quantity in the pricing unit, unit price and exact amount. */
export interface Charge {
  unit: UnitName;
  /** Quantity in `pricingUnit`: unit-hours, or unit-months (unit-hours / hoursPerMonth). */
  pricingQuantity: number;
  /** `CU-hour` or `CU-month`: what the unit price is per. */
  pricingUnit: string;
  /** The unit price as written in the price list. */
  unitPrice: string;
  /** unit-hours × price (÷ hoursPerMonth for monthly prices), exact; round only to present. */
  amount: Exact;
}

/** The money of one line: its charges, and totals both ways. */
export interface LineMoney {
  charges: Charge[];
  /** Σ exact amounts. */
  total: Exact;
  /** Σ exact amounts rounded half-even at the currency's decimals: the figure to invoice. */
  roundedTotal: Exact;
  /** Σ of the charges' amounts each rounded half-even; differs from roundedTotal now and then. */
  sumOfRoundedCharges: Exact;
}

/**
 * The money of a billing line under a price list: for each priced unit the line has, the
 * amount = unit-hours × unit-hour price, or unit-hours / hoursPerMonth × unit-month price,
 * exactly (the unit-hours taken as the decimal they print as). The account's overrides
 * apply. Nothing is rounded here except the two presented totals.
 */
export function lineMoney(line: BillingLine, list: PriceList, units: Units): LineMoney {
  const charges: Charge[] = [];
  for (const unit of UNIT_NAMES) {
    const unitHours = line.unitHours[unit];
    const charge = unitHours === null ? undefined : chargeOf(unit, unitHours, line.accountId, list, units);
    if (charge) charges.push(charge);
  }
  return totals(charges.map((c) => c.amount), list.decimals, charges);
}

/**
 * The charge of `unitHours` of one unit for an account (its overrides apply), or
 * `undefined` when the unit has no price. The amount is exact (see `lineMoney`).
 */
export function chargeOf(unit: UnitName, unitHours: number, accountId: number | null, list: PriceList, units: Units): Charge | undefined {
  const price = pricesFor(list, accountId)[unit];
  if (!price) return undefined;
  const hours = Exact.fromNumber(unitHours);
  const monthly = price.per === "month";
  return {
    unit,
    pricingQuantity: monthly ? unitHours / units.hoursPerMonth : unitHours,
    pricingUnit: `${unit}-${price.per}`,
    unitPrice: price.text,
    amount: monthly ? hours.mul(price.price).div(Exact.fromNumber(units.hoursPerMonth)) : hours.mul(price.price),
  };
}

function totals(amounts: Exact[], decimals: number, charges: Charge[]): LineMoney {
  const total = amounts.reduce((a, b) => a.add(b), Exact.ZERO);
  const sumOfRoundedCharges = amounts.reduce((a, b) => a.add(b.round(decimals)), Exact.ZERO);
  return { charges, total, roundedTotal: total.round(decimals), sumOfRoundedCharges };
}

/** The totals of several lines (e.g. every account of an invoice run): Σ exact, rounded, and Σ of the rounded line totals. */
export function sumMoney(lines: readonly LineMoney[], decimals: number): { total: Exact; roundedTotal: Exact; sumOfRoundedLines: Exact } {
  const total = lines.reduce((a, l) => a.add(l.total), Exact.ZERO);
  return { total, roundedTotal: total.round(decimals), sumOfRoundedLines: lines.reduce((a, l) => a.add(l.roundedTotal), Exact.ZERO) };
}
