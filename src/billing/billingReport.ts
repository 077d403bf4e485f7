import type { DuckDBConnection } from "@duckdb/node-api";
import type { LoadReport } from "../load/loadReport.js";
import { billWarehouse, type BilledPeriod } from "./billWarehouse.js";
import { qualityWarnings, type DataQuality, type Warning } from "./dataQuality.js";
import { resolveOptions, type AccountLine, type BillingLine, type PeriodPart, type BillingOptions, type BillingParams, type ResolvedBillingOptions } from "./lines.js";
import type { LineMoney } from "./money.js";
import { invoiceOf, type Invoice } from "./invoice.js";
import { showback } from "./showback.js";
import { priceChanges, type PriceList } from "./prices.js";
import { Exact } from "./exact.js";
import { UsageError } from "../base/errors.js";
import { isoUtc } from "../base/time.js";
import { inputFingerprints, type InputFingerprint } from "./inputFingerprints.js";

/** Everything a billing report shows for a period, computed once and rendered by every export. */
export interface BillingReport {
  params: BillingParams;
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
  /** The grand total: Σ of the accounts' amounts due (absent without a price list). */
  amountDue?: Exact;
  prices?: PriceList;
  quality: DataQuality;
  warnings: Warning[];
  /** When the report was computed, epoch milliseconds. */
  generatedAtMs: number;
  /** The load report of the inputs, when known. */
  load?: LoadReport;
  /** The units file, when one was given. */
  unitsFile?: string;
  /** The inputs of the load report with their SHA-256 (directories are named as such). */
  inputs: InputFingerprint[];
  /** A fingerprint of every loaded file's content (see `ContentFingerprint`); undefined when the files were not hashed. */
  data?: { files: number; hash: string };
  /**
   * Set by `accountReport`: the report is this account's statement and holds nothing of
   * another account (no inputs or counts of the whole load); renderers leave those parts out.
   */
  statementOf?: number;
}

/** Inputs of a report beyond the period and the options. */
export interface ReportExtras {
  /** A price list: adds money to every line but the environment's. */
  prices?: PriceList;
  /** The load report of the inputs (skipped files, duplicates, inputs). */
  load?: LoadReport;
  /** The units file given, for the About part of reports. */
  unitsFile?: string;
}

/**
 * A billing report of `[start, end)` from a warehouse: the period lines (with an account id:
 * the account, its cloud spaces and machines; without: the environment, then every account
 * and below), money when a price list is given, data quality and its warnings.
 */
export async function billingReport(
  connection: DuckDBConnection, params: BillingParams, options: BillingOptions = {}, extras: ReportExtras = {},
): Promise<BillingReport> {
  const splitAt = extras.prices ? priceChanges(extras.prices, params.start, params.end, params.accountId) : [];
  return reportOf(await billWarehouse(connection, params, { ...options, splitAt }, extras.load), params, options, extras);
}

/**
 * The billing report of a period billed (from a warehouse, or from files as they stream):
 * invoices and showback money when a price list is given, warnings, and the fingerprints of
 * the inputs: `reportOf(billed, { prices })`. `params` and `options` default to the billed period's own; when given they must
 * be those it was billed with (period, account, units, CU rollup, per), else a UsageError
 * (code `PERIOD_MISMATCH`) is thrown rather than label one period's figures as another's.
 * `options` may add names.
 */
export async function reportOf(billed: BilledPeriod, extras?: ReportExtras): Promise<BillingReport>;
export async function reportOf(billed: BilledPeriod, params?: BillingParams, options?: BillingOptions, extras?: ReportExtras): Promise<BillingReport>;
export async function reportOf(
  billed: BilledPeriod, paramsOrExtras?: BillingParams | ReportExtras, options: BillingOptions = billed.options, extras: ReportExtras = {},
): Promise<BillingReport> {
  if (paramsOrExtras !== undefined && !("start" in paramsOrExtras)) return reportOf(billed, billed.period, billed.options, paramsOrExtras);
  const params = paramsOrExtras ?? billed.period;
  const resolved = resolveOptions(options);
  checkSamePeriod(billed, params, resolved);
  const prices = extras.prices;
  const load = billed.load ?? extras.load;
  const period = { start: params.start, end: params.end, parts: billed.parts };
  const invoices = prices ? billed.lines.filter((l): l is AccountLine => l.level === "account").map((l) => invoiceOf(l, prices, resolved.units, period)) : undefined;
  const { lines, money } = showback(billed.lines, invoices, resolved.per === "month" ? resolved.units.hoursPerMonth : 1, period);
  return {
    params: billed.period, options: resolved, lines, parts: billed.parts,
    money: prices ? money : undefined, invoices,
    amountDue: invoices?.reduce((a, inv) => a.add(inv.amountDue), Exact.ZERO),
    prices, quality: billed.quality, warnings: qualityWarnings(billed.quality, params), generatedAtMs: Date.now(), load, unitsFile: extras.unitsFile,
    inputs: await inputFingerprints(load?.inputs ?? []),
    data: billed.data,
  };
}

/** The period and rules a report is asked for against those its figures were billed with: a UsageError naming what differs. */
function checkSamePeriod(billed: BilledPeriod, params: BillingParams, options: ResolvedBillingOptions): void {
  const what = (p: BillingParams) => `${isoUtc(p.start)} to ${isoUtc(p.end)}${p.accountId === undefined ? ", every account" : `, account ${p.accountId}`}`;
  if (params.start !== billed.period.start || params.end !== billed.period.end || params.accountId !== billed.period.accountId) {
    throw new UsageError(
      `the report's period (${what(params)}) is not the one billed (${what(billed.period)}): ` +
        "its figures would be labelled with the wrong period; give the billed period (billed.period), or leave it out",
      { code: "PERIOD_MISMATCH" },
    );
  }
  const differs: string[] = (["per", "cuRollup"] as const).filter((k) => options[k] !== billed.options[k]);
  if (JSON.stringify(options.units) !== JSON.stringify(billed.options.units)) differs.push("units");
  if (differs.length > 0) {
    throw new UsageError(
      `the report's ${differs.join(", ")} differ from those the period was billed with: give the billed options (billed.options), or leave them out`,
      { code: "PERIOD_MISMATCH" },
    );
  }
}
