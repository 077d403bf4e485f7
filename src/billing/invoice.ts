import { Exact } from "./exact.js";
import type { DuckDBConnection } from "@duckdb/node-api";
import { periodLines, resolveOptions, type BillingLine, type BillingOptions, type BillingParams, type Quantities } from "./lines.js";
import { nameOf } from "./names.js";
import { pricingQuantityOf, pricingUnitOf } from "./money.js";
import { pricesFor, type PriceBasis, type PriceList } from "./prices.js";
import type { Units } from "./units.js";
import { UNIT_NAMES, type UnitName } from "./unitNames.js";

/** One line of an account's invoice: a priced unit. */
export interface InvoiceLine {
  unit: UnitName;
  /** What the unit price is per: `hour`, `month` or `TB` (NU). */
  basis: PriceBasis;
  /** The account's quantity in the unit of the price: unit-hours, unit-months or TB, as shown. */
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
 * An account's invoice (docs/formulas.md): one line per priced unit, and the amount due = Σ of the
 * rounded line amounts. `JSON.stringify` gives amounts as decimal strings with the
 * currency's decimals (`"12.30"`).
 */
export interface Invoice {
  accountId: number;
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

/**
 * The invoice of an account from its period line: for each unit with a price for the
 * account (overrides apply), quantity in the price's unit × unit price, rounded half-even
 * at the currency's decimals; the amount due is the sum of those rounded amounts. A unit
 * priced 0 is a line of 0. The quantity is taken as the decimal it prints as, so the
 * reader's quantity × unit price gives the amount.
 */
export function invoiceOf(account: BillingLine, list: PriceList, units: Units): Invoice {
  if (account.level !== "account" || account.accountId === null) throw new RangeError("an invoice is of an account line");
  const prices = pricesFor(list, account.accountId);
  const lines: InvoiceLine[] = [];
  let exactAmount = Exact.ZERO;
  for (const unit of UNIT_NAMES) {
    const price = prices[unit];
    if (!price) continue;
    const quantity = pricingQuantityOf(account.unitHours[unit] ?? 0, price.per, units);
    const exact = Exact.fromNumber(quantity).mul(price.price);
    exactAmount = exactAmount.add(exact);
    const priceUnit = pricingUnitOf(unit, price.per, units);
    lines.push({
      unit, basis: price.per, quantity, quantityUnit: price.per === "TB" ? priceUnit : `${priceUnit}s`,
      unitPrice: price.text, priceUnit, amount: exact.round(list.decimals),
    });
  }
  const amountDue = lines.reduce((a, l) => a.add(l.amount), Exact.ZERO);
  const invoice: Invoice = {
    accountId: account.accountId, name: account.name, currency: list.currency, decimals: list.decimals, lines, amountDue, exactAmount,
    toJSON: () => ({
      accountId: invoice.accountId, name: invoice.name, currency: invoice.currency,
      lines: lines.map((l) => ({ unit: l.unit, quantity: l.quantity, quantityUnit: l.quantityUnit, unitPrice: l.unitPrice, priceUnit: l.priceUnit, amount: l.amount.toFixed(list.decimals) })),
      amountDue: amountDue.toFixed(list.decimals),
    }),
  };
  return invoice;
}

/**
 * The invoice of one account over `[start, end)` under a price list: its period line from
 * the warehouse, then `invoiceOf`. An account without samples in the period gets lines of 0.
 */
export async function accountInvoice(
  connection: DuckDBConnection, params: BillingParams & { accountId: number }, list: PriceList, options: BillingOptions = {},
): Promise<Invoice> {
  const resolved = resolveOptions(options);
  const [line] = await periodLines(connection, params, options, ["account"]);
  const zero = Object.fromEntries(UNIT_NAMES.map((u) => [u, 0])) as Quantities;
  return invoiceOf(line ?? {
    level: "account", accountId: params.accountId, cloudspaceId: null, machineId: null, hourEpoch: null,
    name: nameOf(resolved.names, "account", params.accountId), sampleHours: 0, quantities: zero, unitHours: zero,
    cuSumOfMachines: 0, gatewayPiuHours: 0, cuAllocated: 0, cuAllocatedHours: 0, ownNicNu: 0,
  }, list, resolved.units);
}
