import type { DuckDBConnection } from "@duckdb/node-api";
import { EmptyPeriodError } from "../base/errors.js";
import { checkPeriod, periodOnly, type Period } from "../base/period.js";
import type { ReadProgress } from "../input/types.js";
import type { LoadReport } from "../load/loadReport.js";
import type { BilledPeriod } from "../billing/billWarehouse.js";
import { refuseImpossible } from "../billing/billedImpossibleValues.js";
import { reportOf, type BillingReport } from "../billing/billingReport.js";
import { resolveOptions, type BillingOptions } from "../billing/billingOptions.js";
import { calculateOf, type CalculateResult } from "../billing/calculate.js";
import { dayCuts, priceCuts } from "../billing/cuts.js";
import type { HourlyStream } from "../billing/hourlyStream.js";
import { calculateLevels, levelsFor, type Level } from "../billing/levels.js";
import type { BillingLine } from "../billing/lines.js";
import type { PriceList } from "../billing/prices.js";
import type { WarehouseRoadName } from "../billing/warehouseRoads.js";
import { overlayNames } from "../billing/names.js";
import { heldSpan } from "./heldSpan.js";
import { isFiles, sourceRoad, warehouseOf, type SourceRoad } from "./sourceRoad.js";

/**
 * An open warehouse to bill from: a `Store` of `open()`, or any `{ connection, load }` over the
 * tables of the warehouse schema (`load`: what loading it found, for the data quality).
 */
export interface WarehouseSource {
  readonly connection: DuckDBConnection;
  readonly load?: LoadReport;
}

/** Where a bill's hours come from: input files (zips and directories), or an open warehouse. */
export type BillSource = readonly string[] | WarehouseSource;

/** What a bill holds besides its report. Every part is optional: ask only for what is shown. */
export interface BillProduce {
  /**
   * The levels whose lines the report holds. Default: with an account id, the account, its
   * cloud spaces and machines; without, every level (with `calculate`: the environment alone).
   */
  levels?: readonly Level[];
  /** The `billing/calculate` shape of the lines (`bill.calculate`). Default false. */
  calculate?: boolean;
  /**
   * The hourly lines (`bill.hourly`), for the outputs that list every hour (the hourly CSV, the
   * Hourly sheet, FOCUS). From files, they are read again by hour when the lines are asked for
   * (nothing is loaded into a database). Default false.
   */
  hourly?: boolean;
  /** The lines of each UTC day with data (`bill.days`), from the same engine. Default false. */
  days?: boolean;
  /**
   * The levels of the days' lines (with `days`), when fewer than the report's (`levels`): a
   * day's line of each machine costs as much as the period's. Default: the report's levels.
   */
  dayLevels?: readonly Level[];
  /**
   * The SHA-256 of each input file (`report.inputs`) and the fingerprint of the content billed
   * (`report.data`), as the XLSX About sheet shows them. Default false: hashing every byte costs
   * about a third of the decoding.
   */
  fingerprints?: boolean;
}

/** How input files are read (ignored for a warehouse). */
export interface BillReading {
  /** Read every input file as packed Cap'n Proto (`--packed`). Default false: only `*.packed` files. */
  packed?: boolean;
  /** Worker threads decoding the files; 0: this thread. Default: one per core (at most 8) for inputs large enough to repay their start. */
  workers?: number;
  /** Progress of reading the inputs, for a progress bar. */
  onProgress?: (progress: ReadProgress) => void;
}

/** A request for a bill: where from, which period, at which prices, by which rules, and what to produce. */
export interface BillRequest {
  source: BillSource;
  /** `[start, end)` in epoch seconds; with `accountId`, that account alone (detailed per cloud space and machine). */
  period: Period;
  /**
   * A price list: invoices (`report.invoices`), showback money (`report.money`) and the total
   * (`report.amountDue`). Where a price changes within the period, the bill is cut there by
   * itself, an invoice line per unit and price period.
   */
  prices?: PriceList;
  /** Units, CU rollup, names, the units shown, per hour or month. Default: the published rules. */
  rules?: BillingOptions;
  /** What to produce besides the report's period lines. */
  produce?: BillProduce;
  /**
   * Go on without bad files and conflicting account-hours (listed in the data quality), and
   * count impossible values in billed fields as 0 (listed too). Default false: a BadInputError
   * names every bad file, an ImpossibleValuesError every impossible value.
   */
  skipBad?: boolean;
  /**
   * Bill a period in which the source holds no hour (of the account asked) as zeros, with an
   * EMPTY_PERIOD warning. Default false: an EmptyPeriodError (exit 3) names the hours the source
   * does hold, as a stalled sync or a mistyped month must not read as "nothing to bill" (unless
   * bad files of the period were skipped with `skipBad`: the bill lists them).
   */
  allowEmpty?: boolean;
  /** How input files are read. */
  reading?: BillReading;
  /** The units file the rules' units came from, named on the XLSX About sheet. */
  unitsFile?: string;
}

/** The lines of one UTC day of a period (one with data). */
export interface BilledDay {
  /** The day's first second (its midnight, or the period's start), epoch seconds. */
  start: number;
  lines: BillingLine[];
}

/** How a bill read its hours: from files as they stream (read again by hour for the hourly lines), or from the warehouse given, by which road. */
export interface BillRoad {
  source: SourceRoad;
  /** The warehouse road (see `warehouseRoads`); absent for files as they stream. */
  warehouse?: WarehouseRoadName;
}

/** A bill: its report, and what else was asked for. */
export interface Bill {
  /** The period lines, money with a price list, the data quality and its warnings. */
  report: BillingReport;
  /** The `billing/calculate` shape, with `produce.calculate`. */
  calculate?: CalculateResult;
  /** The hourly lines of the report, with `produce.hourly` (read from the source when iterated: from a warehouse, while it is open). */
  hourly?: HourlyStream;
  /** The lines of each UTC day with data, with `produce.days`. */
  days?: BilledDay[];
  road: BillRoad;
  /** Releases what the bill holds (nothing since the hourly lines of files are read from the files: kept for callers that close every bill; idempotent). */
  close(): void;
}

/**
 * Bills a period: the one billing call of the library and of every command. It takes a source
 * (input files, or an open warehouse), a period, prices, rules and what to produce, and decides
 * the rest itself: where the period is cut (each price change, for an invoice line per price
 * period; midnights for `days`), how the hours are read (files decoded as they stream, on
 * worker threads when that pays, and read again by hour when every hour is listed; a
 * warehouse's grouped facts, stored facts or rows: see `sourceRoad`,
 * `warehouseRoads`), and the levels billed. Every road gives the same figures, to the bit.
 *
 * An account the source has never seen is a UsageError (UNKNOWN_ID); a period the source holds no
 * hour of (of the account asked) an EmptyPeriodError, unless `allowEmpty`; an impossible value in a
 * billed field an ImpossibleValuesError, unless `skipBad`.
 *
 * ```ts
 * const { report } = await bill({ source: ["october.zip"], period: { ...monthPeriod("2026-10"), accountId: 7 }, prices });
 * for (const invoice of report.invoices ?? []) console.log(invoice.amountDue.toFixed(invoice.decimals));
 * ```
 */
export async function bill(request: BillRequest): Promise<Bill> {
  checkPeriod(request.period);
  const period = periodOnly(request.period);
  const produce = request.produce ?? {};
  const checked = resolveOptions(request.rules);
  const levels = produce.levels ?? (produce.calculate ? calculateLevels(period) : levelsFor(period));
  const { source } = request;
  const road = sourceRoad(source, produce);
  // from a warehouse: the names `sync` stored, under those of the rules (a names file)
  const stored = isFiles(source)
    ? undefined
    : await (await import("../store/entityNames.js")).readEntityNames(source.connection);
  const rules = stored === undefined ? checked : { ...checked, names: overlayNames(stored, checked.names) };
  // the parts' lines: the days' levels, unless the parts are the price periods the report is made of
  const billedWith = async (cuts: readonly number[], partLevels = levels): Promise<BilledPeriod> => {
    // each road loads its own modules only: the start of a command is a share of a short bill
    if (!isFiles(source))
      return (await import("../billing/billWarehouse.js")).billWarehouse(source.connection, period, rules, {
        load: source.load,
        levels,
        cuts,
        partLevels,
        fingerprint: produce.fingerprints ?? false,
      });
    const { billInputs } = await import("../billing/billInputs.js"); // the decoding pipeline loads only for files
    return billInputs(source, period, {
      ...rules,
      levels,
      cuts,
      partLevels,
      skipBad: request.skipBad,
      fingerprint: produce.fingerprints ?? false,
      ...request.reading,
    });
  };
  const prices = priceCuts(request.prices, period);
  const days = produce.days ? dayCuts(period) : [];
  // one pass cut at midnights gives the days and, without a price change, the report; a second pass only where prices change too
  const dayLevels = produce.dayLevels ?? levels;
  const billed = await (prices.length > 0 || days.length === 0 ? billedWith(prices) : billedWith(days, dayLevels));
  if (!request.skipBad) refuseImpossible(billed.quality.impossibleValues);
  if (billed.quality.emptyPeriod) {
    billed.quality.held = await heldSpan(source, period.accountId, request.reading?.packed);
    // files skipped as bad (`skipBad`) are listed with the bill of zeros, exit 0, as any skipped file is
    if (!request.allowEmpty && billed.quality.skipped.length === 0)
      throw new EmptyPeriodError(
        period,
        billed.quality.held,
        period.accountId === undefined ? "" : ` for account ${period.accountId}`,
      );
  }
  const byDay = !produce.days
    ? undefined
    : days.length === 0
      ? { ...billed, parts: undefined }
      : prices.length > 0
        ? await billedWith(days, dayLevels)
        : billed;
  const report = await reportOf(prices.length > 0 ? billed : { ...billed, parts: undefined }, {
    prices: request.prices,
    unitsFile: request.unitsFile,
    fingerprints: produce.fingerprints,
  });
  return {
    report,
    calculate: produce.calculate ? calculateOf(report.lines, report.params, report.options) : undefined,
    hourly: produce.hourly ? await hourlyOf(source, report, request) : undefined,
    days: byDay && daysOf(byDay, dayLevels),
    road: { source: road, warehouse: billed.road === "files" ? undefined : billed.road },
    close: () => {},
  };
}

/** The hourly lines of a bill's report: from its warehouse, or from its files read again by hour. */
async function hourlyOf(source: BillSource, report: BillingReport, request: BillRequest): Promise<HourlyStream> {
  const warehouse = warehouseOf(source);
  if (warehouse !== undefined)
    return (await import("../billing/hourlyStream.js")).warehouseHourly(warehouse.connection, report);
  const { hourlyFiles } = await import("../billing/hourlyFiles.js"); // the decoding pipeline loads only for files
  return hourlyFiles(source as readonly string[], report, {
    skipBad: request.skipBad,
    packed: request.reading?.packed,
  });
}

/** The days of a period billed cut at midnights (or of one day, not cut): each with lines (of `levels`). */
function daysOf(billed: BilledPeriod, levels: readonly Level[]): BilledDay[] {
  const whole = { start: billed.period.start, end: billed.period.end, lines: billed.lines };
  return (
    billed.parts ?? [{ ...whole, lines: whole.lines.filter((l) => (levels as readonly string[]).includes(l.level)) }]
  )
    .filter((part) => part.lines.length > 0)
    .map((part) => ({ start: part.start, lines: part.lines }));
}
