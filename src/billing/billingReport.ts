import type { Period } from "../base/period.js";
import type { LoadReport } from "../load/loadReport.js";
import type { BilledPeriod } from "./billWarehouse.js";
import type { ResolvedBillingOptions } from "./billingOptions.js";
import { qualityWarnings, type DataQuality, type Warning } from "./dataQuality.js";
import type { AccountLine, BillingLine, PeriodPart } from "./lines.js";
import type { LineMoney } from "./money.js";
import { invoiceOf, type Invoice } from "./invoice.js";
import { showback } from "./showback.js";
import type { PriceList } from "./prices.js";
import { Exact } from "./exact.js";
import { inputFingerprints, type InputFingerprint } from "./inputFingerprints.js";

/** Everything a billing report shows for a period, computed once and rendered by every export. */
export interface BillingReport {
  /** The period billed: `[start, end)`, epoch seconds, and its account when one was billed alone. */
  params: Period;
  options: ResolvedBillingOptions;
  /**
   * Period lines, in hierarchy order (environment first when there is no account id), with a
   * `gateway` line after the machines of each cloud space whose gateway has NU or PIU.
   */
  lines: BillingLine[];
  /** Where a price changes within the period: the period lines of each part between the changes (see `BilledPeriod.parts`). */
  parts?: PeriodPart[];
  /**
   * The money of each line, same order as `lines` (absent without a price list): an account's
   * invoice amounts, the showback shares of its cloud spaces, machines and gateways (adding up
   * to the account's lines to the cent), and for the environment the sums over the accounts.
   */
  money?: (LineMoney | undefined)[];
  /** The invoice of each account, in account order (absent without a price list). */
  invoices?: Invoice[];
  /**
   * The grand total: Σ of the accounts' amounts due (absent without a price list, and when the
   * accounts are billed in more than one currency: two currencies are never added; see `amountsDue`).
   */
  amountDue?: Exact;
  /** Σ of the accounts' amounts due per currency, in the order the accounts first bill in it (absent without a price list). */
  amountsDue?: CurrencyTotal[];
  prices?: PriceList;
  quality: DataQuality;
  warnings: Warning[];
  /** When the report was computed, epoch milliseconds. */
  generatedAtMs: number;
  /** The load report of the inputs, when known. */
  load?: LoadReport;
  /** The units file, when one was given. */
  unitsFile?: string;
  /** The inputs of the load report with their SHA-256 (directories are named as such); empty unless fingerprints were asked for. */
  inputs: InputFingerprint[];
  /** A fingerprint of every loaded file's content (see `ContentFingerprint`); undefined when the files were not hashed. */
  data?: { files: number; hash: string };
  /**
   * Set by `accountReport`: the report is this account's statement and holds nothing of
   * another account (no inputs or counts of the whole load); renderers leave those parts out.
   */
  statementOf?: number;
}

/** The amounts due of the accounts billed in one currency, added up. */
export interface CurrencyTotal {
  currency: string;
  decimals: number;
  /** The accounts billed in it, ascending. */
  accountIds: number[];
  amount: Exact;
}

/** The invoices' amounts due added up per currency (never across two). */
export function totalsPerCurrency(invoices: readonly Invoice[]): CurrencyTotal[] {
  const out = new Map<string, CurrencyTotal>();
  for (const inv of invoices) {
    let total = out.get(inv.currency);
    if (!total)
      out.set(
        inv.currency,
        (total = { currency: inv.currency, decimals: inv.decimals, accountIds: [], amount: Exact.ZERO }),
      );
    total.accountIds.push(inv.accountId);
    total.amount = total.amount.add(inv.amountDue);
  }
  return [...out.values()];
}

/** What a report adds to a billed period: money, and what its About part names. */
export interface ReportExtras {
  /** A price list: adds money to every line but the environment's (the period must have been billed cut at its price changes: see `bill`). */
  prices?: PriceList;
  /** The units file given, for the About part of reports. */
  unitsFile?: string;
  /** Hash every input file (zips, database files) for `inputs`. Default false (`inputs` is then empty). */
  fingerprints?: boolean;
}

/**
 * The billing report of a period billed (from a warehouse, or from files as they stream), with
 * the period and rules it was billed with: invoices and showback money when a price list is
 * given, and warnings. `bill` makes it; the period is never given twice.
 */
export async function reportOf(billed: BilledPeriod, extras: ReportExtras = {}): Promise<BillingReport> {
  const { prices } = extras;
  const { period, options } = billed;
  const priced = { start: period.start, end: period.end, parts: billed.parts };
  const invoices = prices
    ? billed.lines
        .filter((l): l is AccountLine => l.level === "account")
        .map((l) => invoiceOf(l, prices, options.units, priced))
    : undefined;
  const amountsDue = invoices ? totalsPerCurrency(invoices) : undefined;
  const { lines, money } = showback(
    billed.lines,
    invoices,
    options.per === "month" ? options.units.hoursPerMonth : 1,
    priced,
  );
  return {
    params: period,
    options,
    lines,
    parts: billed.parts,
    money: prices ? money : undefined,
    invoices,
    amountDue: amountsDue && amountsDue.length <= 1 ? (amountsDue[0]?.amount ?? Exact.ZERO) : undefined,
    amountsDue,
    prices,
    quality: billed.quality,
    warnings: qualityWarnings(billed.quality, period),
    generatedAtMs: Date.now(),
    load: billed.load,
    unitsFile: extras.unitsFile,
    inputs: extras.fingerprints ? await inputFingerprints(billed.load?.inputs ?? []) : [],
    data: billed.data,
  };
}
