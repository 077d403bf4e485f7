import { UsageError } from "../../base/errors.js";
import { Exact } from "../../billing/exact.js";
import type { InvoiceDocument } from "./invoiceDocument.js";
import { currencyDecimals } from "../../billing/prices.js";
import { negatedAmount } from "./documentAmounts.js";

/** The issuer's VAT accounting currency when the statement config does not name one (`issuer.currency`). */
export const DEFAULT_ACCOUNTING_CURRENCY = "EUR";

/**
 * Exchange rates of a statement config (`fxRates: { USD: { "2026-11-02": 0.9215 } }`): per
 * currency and date `YYYY-MM-DD`, what one unit of the currency is worth in the issuer's
 * accounting currency, as written (a decimal text).
 */
export type FxRates = ReadonlyMap<string, ReadonlyMap<string, string>>;

/** The VAT total of a document in the issuer's accounting currency (EN 16931 BT-6 and BT-111). */
export interface AccountingCurrencyTax {
  /** The issuer's VAT accounting currency (BT-6), e.g. `EUR`. */
  currency: string;
  /** What one unit of the document's currency is worth in it, as the config wrote it for the issue date. */
  rate: string;
  /** The document's tax total × rate, rounded half-even at the accounting currency's decimals (negative on a credit note). */
  amount: Exact;
}

function fail(message: string): never {
  throw new UsageError(message, { code: "STATEMENT_CONFIG" });
}

/** The ISO 4217 code of `issuer.currency`, default EUR. */
export function parseAccountingCurrency(value: unknown, where: string): string {
  if (value === undefined) return DEFAULT_ACCOUNTING_CURRENCY;
  const code = typeof value === "string" ? value.trim().toUpperCase() : "";
  if (!/^[A-Z]{3}$/.test(code))
    fail(`${where}: the VAT accounting currency, an ISO 4217 code such as EUR, got ${JSON.stringify(value)}`);
  return code;
}

/** Checks `fxRates: { <currency>: { <YYYY-MM-DD>: <rate> } }`: codes, real dates, positive decimal rates. */
export function parseFxRates(value: unknown, where: string): FxRates {
  const out = new Map<string, Map<string, string>>();
  if (value === undefined) return out;
  const example = 'e.g. { USD: { "2026-11-02": 0.9215 } } (one USD in the accounting currency on that day)';
  if (value === null || typeof value !== "object" || Array.isArray(value))
    fail(`${where}: give rates per currency and date, ${example}`);
  for (const [currency, dates] of Object.entries(value)) {
    if (!/^[A-Z]{3}$/.test(currency)) fail(`${where}.${currency}: not an ISO 4217 currency code`);
    if (dates === null || typeof dates !== "object" || Array.isArray(dates) || dates instanceof Date)
      fail(`${where}.${currency}: give rates per date, ${example}`);
    const rates = new Map<string, string>();
    for (const [date, rate] of Object.entries(dates)) {
      const day = /^\d{4}-\d{2}-\d{2}$/.test(date) && new Date(`${date}T00:00:00Z`).toISOString().slice(0, 10);
      if (day !== date) fail(`${where}.${currency}: "${date}" is not a date YYYY-MM-DD`);
      const text = typeof rate === "number" ? String(rate) : typeof rate === "string" ? rate.trim() : "";
      const exact = Exact.parse(text);
      if (exact === undefined || exact.compare(Exact.ZERO) <= 0)
        fail(`${where}.${currency}.${date}: a rate is a positive decimal number, got ${JSON.stringify(rate)}`);
      rates.set(date, exact.toDecimalString() ?? text);
    }
    out.set(currency, rates);
  }
  return out;
}

/** What the accounting-currency VAT of a document depends on in the statement config. */
export interface AccountingCurrencyConfig {
  /** `issuer.currency`; undefined: EUR. */
  accountingCurrency?: string;
  fxRates?: FxRates;
  source: string;
}

/** True when a document in `currency` with this tax total must give its VAT in the accounting currency too. */
export function needsAccountingCurrency(config: AccountingCurrencyConfig, currency: string, tax: Exact): boolean {
  const accounting = config.accountingCurrency ?? DEFAULT_ACCOUNTING_CURRENCY;
  return currency !== accounting && !tax.isZero();
}

/**
 * The rate missing to give a document's VAT in the accounting currency, as a sentence naming the
 * key to add, or undefined when none is (or none is needed).
 */
export function missingRate(config: AccountingCurrencyConfig, currency: string, issueDate: string): string | undefined {
  const accounting = config.accountingCurrency ?? DEFAULT_ACCOUNTING_CURRENCY;
  if (currency === accounting || config.fxRates?.get(currency)?.has(issueDate)) return undefined;
  return `fxRates.${currency}."${issueDate}" (what one ${currency} is worth in ${accounting} on the issue date: the VAT of an invoice in ${currency} is also given in ${accounting})`;
}

/**
 * The VAT total of an invoice in the issuer's accounting currency, when the invoice is in another
 * currency and tax is due: its tax total × the config's rate for the issue date, rounded half-even
 * at the accounting currency's decimals. Undefined when not needed; a UsageError (code
 * STATEMENT_CONFIG, exit 2) when the rate is missing (checked before numbering: `missingRate`).
 */
export function accountingCurrencyTax(
  config: AccountingCurrencyConfig,
  document: Pick<InvoiceDocument, "currency" | "tax" | "issueDate">,
): AccountingCurrencyTax | undefined {
  if (!needsAccountingCurrency(config, document.currency, document.tax)) return undefined;
  const missing = missingRate(config, document.currency, document.issueDate);
  if (missing !== undefined) fail(`${config.source}: missing ${missing}`);
  const currency = config.accountingCurrency ?? DEFAULT_ACCOUNTING_CURRENCY;
  const rate = config.fxRates!.get(document.currency)!.get(document.issueDate)!;
  const amount = document.tax.mul(Exact.parse(rate)!).fixed(currencyDecimals(currency));
  return { currency, rate, amount };
}

/** The accounting-currency VAT of a credit note cancelling a document in full: the same rate, the amount negated (it cancels the same VAT). */
export function negatedAccountingTax(tax: AccountingCurrencyTax | undefined): AccountingCurrencyTax | undefined {
  if (tax === undefined) return undefined;
  return { ...tax, amount: negatedAmount(tax.amount) };
}
