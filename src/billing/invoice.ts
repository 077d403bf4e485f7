import { Exact } from "./exact.js";
import type { AccountLine, PeriodPart } from "./lines.js";
import { pricingQuantityOf, pricingUnitOf } from "./money.js";
import { PeriodParts } from "./periodParts.js";
import { currencyOf, pricePeriods, type PriceBasis, type PriceList } from "./prices.js";
import { isoUtc } from "../base/time.js";
import type { Units } from "./units.js";
import type { UnitName } from "./unitNames.js";
import { catalogUnits } from "./unitCatalog.js";

/** One line of an account's invoice: a priced unit over a price period. */
export interface InvoiceLine {
  unit: UnitName;
  /** The price period: the hours `[start, end)` (epoch seconds) of the billed period in which `unitPrice` is in force. */
  start: number;
  end: number;
  /** What the unit price is per: `hour`, `month` or `TB` (NU's volume, whatever its unit: TiB by default, see `nuUnit`). */
  basis: PriceBasis;
  /** The account's quantity of the price period in the unit of the price: unit-hours, unit-months or TiB (NU), as shown. */
  quantity: number;
  /** The unit of `quantity`: `CU-hours`, `SU-months`, `TiB`. */
  quantityUnit: string;
  /** The unit price as written in the price list (the account's override when it has one). */
  unitPrice: string;
  /** What the unit price is per: `CU-hour`, `SU-month`, `TiB`. */
  priceUnit: string;
  /** quantity × unit price, rounded half-even at the currency's decimals. */
  amount: Exact;
}

/**
 * An account's invoice (docs/formulas.md): one line per priced unit and price period, and the amount
 * due = Σ of the rounded line amounts. `JSON.stringify` gives amounts as decimal strings with the
 * currency's decimals (`"12.30"`).
 */
export interface Invoice {
  accountId: number;
  /** The billed period `[start, end)`, epoch seconds. */
  start: number;
  end: number;
  /** From the names file, `""` when unknown. */
  name: string;
  currency: string;
  /** Decimals of the currency: amounts are rounded to these. */
  decimals: number;
  lines: InvoiceLine[];
  /** Σ of the lines' rounded amounts: the one payable figure. */
  amountDue: Exact;
  /** Σ of the lines' unrounded amounts: information only, never a total to pay. */
  exactAmount: Exact;
  toJSON(): object;
}

/** A billed period: `[start, end)`, and with prices changing within it, the lines of its parts (`BilledPeriod.parts`). */
export interface PricedPeriod {
  start: number;
  end: number;
  parts?: readonly PeriodPart[];
}

/**
 * The invoice of an account over a period from its period line: for each unit with a price
 * for the account (its own prices in force replace the list's) and each price period (the
 * hours of one price, see `pricePeriods`), the quantity of those hours in the price's unit ×
 * unit price, rounded half-even at the currency's decimals; the amount due is the sum of those
 * rounded amounts. A unit priced 0 is a line of 0. The quantity is taken as the decimal it
 * prints as, so the reader's quantity × unit price gives the amount. When a price changes
 * within the period, `period.parts` gives the quantities of each price period.
 */
export function invoiceOf(account: AccountLine, list: PriceList, units: Units, period: PricedPeriod): Invoice {
  if (account.level !== "account") throw new RangeError("an invoice is of an account line");
  const parts = new PeriodParts(period, period.parts);
  // in the currency of the account's customer when the list prices it apart, else the list's
  const { currency, decimals } = currencyOf(list, account.accountId);
  const lines: InvoiceLine[] = [];
  let exactAmount = Exact.ZERO;
  for (const unit of catalogUnits()) {
    for (const { start, end, price } of pricePeriods(list, account.accountId, unit, period.start, period.end)) {
      const unitHours = parts.over(account, start, end, (l) => l.unitHours[unit] ?? 0);
      const quantity = pricingQuantityOf(unitHours, price.per, units);
      const exact = Exact.fromNumber(quantity).mul(price.price);
      exactAmount = exactAmount.add(exact);
      const priceUnit = pricingUnitOf(unit, price.per, units);
      lines.push({
        unit,
        start,
        end,
        basis: price.per,
        quantity,
        quantityUnit: price.per === "TB" ? priceUnit : `${priceUnit}s`,
        unitPrice: price.text,
        priceUnit,
        amount: exact.round(decimals),
      });
    }
  }
  const amountDue = lines.reduce((a, l) => a.add(l.amount), Exact.ZERO);
  const invoice: Invoice = {
    accountId: account.accountId,
    start: period.start,
    end: period.end,
    name: account.name,
    currency,
    decimals,
    lines,
    amountDue,
    exactAmount,
    toJSON: () => ({
      accountId: invoice.accountId,
      name: invoice.name,
      currency: invoice.currency,
      start: isoUtc(period.start),
      end: isoUtc(period.end),
      lines: lines.map((l) => ({
        unit: l.unit,
        start: isoUtc(l.start),
        end: isoUtc(l.end),
        quantity: l.quantity,
        quantityUnit: l.quantityUnit,
        unitPrice: l.unitPrice,
        priceUnit: l.priceUnit,
        amount: l.amount.toFixed(decimals),
      })),
      amountDue: amountDue.toFixed(decimals),
    }),
  };
  return invoice;
}
