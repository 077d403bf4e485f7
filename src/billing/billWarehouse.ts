import type { DuckDBConnection } from "@duckdb/node-api";
import type { LoadReport } from "../load/loadReport.js";
import { billedImpossibleValues } from "./billedImpossibleValues.js";
import { lostHoursOf, qualityOf, syncedUntilOf, type DataQuality } from "./dataQuality.js";
import { dataFingerprint } from "./inputFingerprints.js";
import { periodOnly, type Period } from "../base/period.js";
import { resolveOptions, type BillingOptions, type ResolvedBillingOptions } from "./billingOptions.js";
import { billingPass } from "./billingPass.js";
import { levelsFor, type Level } from "./levels.js";
import type { BillingLine, PeriodPart } from "./lines.js";
import type { WarehouseRoadName } from "./warehouseRoads.js";
import { checkKnownInWarehouse } from "../base/unknownIds.js";

/**
 * A period billed, wherever from (a warehouse, or files as they stream): everything a
 * billing report is made of before money.
 */
export interface BilledPeriod {
  /** The period billed, `[start, end)` in epoch seconds, and its account when one was billed alone. */
  period: Period;
  /** The options it was billed with (units, CU rollup, per hour or month), defaults applied. */
  options: ResolvedBillingOptions;
  /** The period lines of the levels billed, in report order. */
  lines: BillingLine[];
  /** With cuts (where prices change): the lines of each part, in order (their sums are `lines`, exactly). */
  parts?: PeriodPart[];
  /** Missing hours, unbilled types, empty records, billed impossible values, skipped files, duplicates. */
  quality: DataQuality;
  /** What loading found, when known. */
  load?: LoadReport;
  /** The fingerprint of the loaded files' content (see `ContentFingerprint`); undefined when not computed. */
  data?: { files: number; hash: string };
  /** How the facts were read: `files` as they stream, or the warehouse road taken (see `warehouseRoads`). */
  road: "files" | WarehouseRoadName;
}

/** How {@link billWarehouse} bills, besides the rules. */
export interface WarehouseBilling {
  /** What loading the warehouse found (its skipped files and duplicates go into the data quality). */
  load?: LoadReport;
  /** The levels whose lines are wanted; default `levelsFor(period)`. */
  levels?: readonly Level[];
  /** Hours strictly inside the period where it is cut into parts billed apart too (see `cuts.ts`), ascending; default none. */
  cuts?: readonly number[];
  /** The levels of the parts' lines (`parts`); default `levels`. Fewer cost less: a line per entity and part. */
  partLevels?: readonly Level[];
  /** Compute the fingerprint of the loaded files' content (`data`); default true. */
  fingerprint?: boolean;
}

/**
 * Bills `[start, end)` (one account, or every account) from a warehouse: one pass over its
 * rows through the billing engine (see `billingPass`). An account the warehouse has never
 * seen is a UsageError (UNKNOWN_ID), not a bill of 0.
 */
export async function billWarehouse(
  connection: DuckDBConnection,
  period: Period,
  options: BillingOptions = {},
  how: WarehouseBilling = {},
): Promise<BilledPeriod> {
  const resolved = resolveOptions(options);
  const levels = how.levels ?? levelsFor(period);
  const { lines, parts, seen, road } = await billingPass(
    connection,
    period,
    options,
    levels,
    how.cuts ?? [],
    how.partLevels ?? levels,
  );
  if (period.accountId !== undefined && lines.length === 0)
    await checkKnownInWarehouse(connection, "account", period.accountId);
  const quality = qualityOf(
    seen,
    period,
    how.load,
    await billedImpossibleValues(connection, period, resolved.units),
    await syncedUntilOf(connection),
    await lostHoursOf(connection),
  );
  const data = (how.fingerprint ?? true) ? await dataFingerprint(connection) : undefined;
  return { period: periodOnly(period), options: resolved, lines, parts, quality, load: how.load, data, road };
}
