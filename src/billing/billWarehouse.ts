import type { DuckDBConnection } from "@duckdb/node-api";
import type { LoadReport } from "../load/loadReport.js";
import { billedImpossibleValues } from "./billedImpossibleValues.js";
import { qualityOf, syncedUntilOf, type DataQuality } from "./dataQuality.js";
import { dataFingerprint } from "./inputFingerprints.js";
import { periodOf } from "../base/period.js";
import { billingPass, levelsFor, resolveOptions, type BillingLine, type BillingOptions, type BillingParams, type Level, type PeriodPart, type ResolvedBillingOptions } from "./lines.js";
import { checkKnownInWarehouse } from "../base/unknownIds.js";

/**
 * A period billed, wherever from (a warehouse, or files as they stream): everything a
 * billing report is made of before money.
 */
export interface BilledPeriod {
  /** The period billed, `[start, end)` in epoch seconds, and its account when one was billed alone. */
  period: BillingParams;
  /** The options it was billed with (units, CU rollup, per hour or month), defaults applied. */
  options: ResolvedBillingOptions;
  /** The period lines of `levelsFor(params)`, in report order. */
  lines: BillingLine[];
  /** With `options.splitAt` cutting the period: the lines of each part, in order (their sums are `lines`, exactly). */
  parts?: PeriodPart[];
  /** Missing hours, unbilled types, empty records, billed impossible values, skipped files, duplicates. */
  quality: DataQuality;
  /** What loading found, when known. */
  load?: LoadReport;
  /** The fingerprint of the loaded files' content (see `ContentFingerprint`); undefined when not computed. */
  data?: { files: number; hash: string };
}

/**
 * Bills `[start, end)` (one account, or every account) from a warehouse: one pass over its
 * rows, in windows of whole days, through the billing engine. `load`: what loading the warehouse found
 * (its skipped files and duplicates go into the data quality); `levels`: the levels whose
 * lines are wanted (default `levelsFor(params)`). An account the warehouse has never seen is a
 * UsageError (UNKNOWN_ID), not a bill of 0.
 */
export async function billWarehouse(
  connection: DuckDBConnection, params: BillingParams, options: BillingOptions = {}, load?: LoadReport, levels: readonly Level[] = levelsFor(params),
): Promise<BilledPeriod> {
  const resolved = resolveOptions(options);
  const { lines, parts, seen } = await billingPass(connection, params, options, levels);
  if (params.accountId !== undefined && lines.length === 0) await checkKnownInWarehouse(connection, "account", params.accountId);
  const quality = qualityOf(seen, params, load, await billedImpossibleValues(connection, params, resolved.units), await syncedUntilOf(connection));
  return { period: periodOf(params), options: resolved, lines, parts, quality, load, data: await dataFingerprint(connection) };
}
