import type { DuckDBConnection } from "@duckdb/node-api";
import type { LoadReport } from "../store/types.js";
import { billedImpossibleValues } from "./billedImpossibleValues.js";
import { qualityOf, qualityWarnings, type DataQuality, type Warning } from "./dataQuality.js";
import { billingPass, resolveOptions, type BillingLine, type BillingOptions, type BillingParams, type ResolvedBillingOptions } from "./lines.js";
import type { LineMoney } from "./money.js";
import { invoiceOf, type Invoice } from "./invoice.js";
import { showback } from "./showback.js";
import type { PriceList } from "./prices.js";
import { Exact } from "./exact.js";
import { dataFingerprint, inputFingerprints, type InputFingerprint } from "./inputFingerprints.js";

/** Everything a billing report shows for a period, computed once and rendered by every export. */
export interface BillingReport {
  params: BillingParams;
  options: ResolvedBillingOptions;
  /**
   * Period lines, in hierarchy order (environment first when there is no account id), with a
   * `gateway` line after the machines of each cloud space whose gateway has NU or PIU.
   */
  lines: BillingLine[];
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
  /** A fingerprint of every loaded file's content (see `dataFingerprint`). */
  data: { files: number; hash: string };
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
 * A billing report of `[start, end)`: the period lines (with an account id: the account,
 * its cloud spaces and machines; without: the environment, then every account and below),
 * money when a price list is given, data quality and its warnings.
 */
export async function billingReport(
  connection: DuckDBConnection, params: BillingParams, options: BillingOptions = {}, extras: ReportExtras = {},
): Promise<BillingReport> {
  const resolved = resolveOptions(options);
  const { lines, seen } = await billingPass(connection, params, options);
  const quality = qualityOf(seen, params, extras.load, await billedImpossibleValues(connection, params, resolved.units));
  return reportOf(params, resolved, lines, quality, extras, await dataFingerprint(connection));
}

/**
 * A billing report from its parts, wherever they were computed (a warehouse, or files billed
 * as they stream): the period lines of `levelsFor(params)`, the data quality, and the
 * fingerprint of the data.
 */
export async function reportOf(
  params: BillingParams, options: ResolvedBillingOptions, period: BillingLine[], quality: DataQuality, extras: ReportExtras,
  data: { files: number; hash: string },
): Promise<BillingReport> {
  const prices = extras.prices;
  const invoices = prices ? period.filter((l) => l.level === "account").map((l) => invoiceOf(l, prices, options.units)) : undefined;
  const { lines, money } = showback(period, invoices, options.per === "month" ? options.units.hoursPerMonth : 1);
  return {
    params, options, lines,
    money: prices ? money : undefined, invoices,
    amountDue: invoices?.reduce((a, inv) => a.add(inv.amountDue), Exact.ZERO),
    prices, quality, warnings: qualityWarnings(quality, params), generatedAtMs: Date.now(), load: extras.load, unitsFile: extras.unitsFile,
    inputs: await inputFingerprints(extras.load?.inputs ?? []),
    data,
  };
}
