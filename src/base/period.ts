import type { DuckDBType } from "@duckdb/node-api";
import { duckdbApi } from "./duckdb.js";
import { UsageError } from "./errors.js";
import { checkEpochSeconds } from "./time.js";

/**
 * A period of hours: the hours starting at `start` or later and before `end` (epoch seconds,
 * `[start, end)`), of one account or of every account. The one place that says which hours a
 * period holds: files are selected by `inPeriod`, warehouse rows by `periodSql`, alike.
 */
export interface Period {
  /** First second of the period (inclusive), epoch seconds. */
  start: number;
  /** End of the period (exclusive), epoch seconds. */
  end: number;
  /** One account; omitted: every account. */
  accountId?: number;
}

/** True when the account-hour (`accountId`, `hourEpoch`) is in `period`: start ≤ hourEpoch < end, of its account if it names one. */
export function inPeriod(period: Partial<Period>, accountId: number, hourEpoch: number): boolean {
  const { start = -Infinity, end = Infinity } = period;
  return (period.accountId === undefined || accountId === period.accountId) && hourEpoch >= start && hourEpoch < end;
}

/**
 * `inPeriod` in SQL, over the `hour_epoch` and `account_id` columns (of `alias` when given), with
 * the parameters `$start`, `$end` and `$account` (bind `paramValues` as `paramTypes`).
 */
export function periodSql(alias?: string): string {
  const c = alias === undefined ? "" : `${alias}.`;
  return `${c}hour_epoch >= $start AND ${c}hour_epoch < $end AND ($account IS NULL OR ${c}account_id = $account)`;
}

/**
 * Throws a UsageError for a period a user cannot have meant: times not whole epoch seconds, end
 * not after start, a bad account id. Checked once where a period enters the library (`bill`, the
 * store's methods, the data-quality queries of `check`), not again by each step under it.
 */
export function checkPeriod(period: Period): void {
  for (const key of ["start", "end"] as const) checkEpochSeconds(period[key], key);
  if (period.end <= period.start)
    throw new UsageError(
      `the period is empty: end ${period.end} is not after start ${period.start} (the period is [start, end))`,
    );
  if (period.accountId !== undefined && !Number.isSafeInteger(period.accountId)) {
    throw new UsageError(`bad account id: ${String(period.accountId)} (a whole number)`);
  }
}

/** The period's own fields alone (`start`, `end`, and `accountId` when given), whatever else `period` holds: what a billed period says it is. */
export function periodOnly(period: Period): Period {
  return period.accountId === undefined
    ? { start: period.start, end: period.end }
    : { start: period.start, end: period.end, accountId: period.accountId };
}

/**
 * The DuckDB types of the query parameters of a period (BigInt values would bind as HUGEINT).
 * For a query on a connection: DuckDB is loaded by then (see `duckdbApi`).
 */
export function paramTypes(): Record<string, DuckDBType> {
  const { BIGINT } = duckdbApi();
  return { start: BIGINT, end: BIGINT, account: BIGINT };
}

/** The query parameters of a period (see `periodSql`). */
export function paramValues(params: Period): Record<string, bigint | null> {
  return {
    start: BigInt(params.start),
    end: BigInt(params.end),
    account: params.accountId === undefined ? null : BigInt(params.accountId),
  };
}

/**
 * Consecutive steps of time (the `i`-th from `starts[i]`, ascending, `width` seconds long,
 * holding `rows[i]` rows) gathered into runs `[from, to)` read by one query each: a run takes
 * the next step while its rows stay within `limit`, and a step holding more is a run alone.
 * A run spans the steps without rows between its own (they were not listed).
 */
export function runsWithin(
  starts: ArrayLike<number>,
  rows: ArrayLike<number>,
  width: number,
  limit: number,
): [number, number][] {
  const runs: [number, number][] = [];
  let held = 0;
  for (let i = 0; i < starts.length; i++) {
    const last = runs.at(-1);
    if (last !== undefined && held + rows[i]! <= limit) {
      last[1] = starts[i]! + width;
      held += rows[i]!;
    } else {
      runs.push([starts[i]!, starts[i]! + width]);
      held = rows[i]!;
    }
  }
  return runs;
}

/** A range of whole hours, `[startEpoch, endEpoch)`, hour-aligned epoch seconds. */
export interface HourRange {
  startEpoch: number;
  endEpoch: number;
}

/** `hours` (epoch seconds, ascending) as the ranges of consecutive hours. */
export function hourRanges(hours: readonly number[]): HourRange[] {
  const ranges: HourRange[] = [];
  for (const h of hours) {
    const last = ranges.at(-1);
    if (last && last.endEpoch === h) last.endEpoch = h + 3600;
    else ranges.push({ startEpoch: h, endEpoch: h + 3600 });
  }
  return ranges;
}
