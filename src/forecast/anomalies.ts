import type { DuckDBConnection } from "@duckdb/node-api";
import { resolveOptions, type BillingOptions } from "../billing/billingOptions.js";
import type { Level } from "../billing/levels.js";
import type { Names } from "../billing/names.js";
import { currencyOf, type PriceList } from "../billing/prices.js";
import { UsageError } from "../base/errors.js";
import { isoUtc } from "../base/time.js";
import {
  ANOMALY_RULE,
  anomalyFloor,
  daySlots,
  HourSeries,
  runsOf,
  scorePoints,
  type Point,
  type Scoring,
  type Slots,
  type DaySlots,
} from "./anomalyScores.js";
import { namesOf, type NamedEntity } from "./entityLabel.js";
import { machineChanges, type MachineChange } from "./machineChanges.js";
import { SortedWindow } from "./robust.js";
import { withStoredNames } from "./storedNames.js";
import { usagePass } from "./usagePass.js";
import {
  feedingTable,
  HourCosts,
  METRICS,
  metricUnit,
  UsageTable,
  type EntityUsage,
  type Metric,
} from "./usageTable.js";

export { ANOMALY_RULE } from "./anomalyScores.js";
export type { MachineChange } from "./machineChanges.js";

const HOUR = 3600;
const DAY = 24 * HOUR;

/** The levels anomalies are looked for at. */
export type AnomalyLevel = Exclude<Level, "environment">;
export const ANOMALY_LEVELS: readonly AnomalyLevel[] = ["account", "cloudspace", "machine"];

/** What to look for anomalies in. */
export interface AnomalyRequest {
  /** The hours looked at, `[start, end)` epoch seconds; their baselines are read from the 14 days before. */
  start: number;
  end: number;
  /** One account; default every account. */
  accountId?: number;
  /** Default account, cloud space and machine. */
  levels?: readonly AnomalyLevel[];
  /** A price list: adds cost to CU, SU, TU, NU, each account's in the currency it is billed in. */
  prices?: PriceList;
  /** Default `ANOMALY_RULE.threshold` (robust scores beyond ± this). */
  threshold?: number;
  options?: BillingOptions;
}

/** A run of consecutive anomalous hours or days of one figure of one entity, all on one side of its baseline. */
export interface Anomaly extends NamedEntity {
  /** Stable across runs while the run starts at the same hour: `anomaly:machine:7:120:4392:NU:hour:2026-10-20T03:00:00Z`. */
  id: string;
  level: AnomalyLevel;
  metric: Metric;
  /** What `value` and `baseline` are counted in: `CU-hours`, `SU-hours`, `TU-hours`, `TiB` (NU), the currency (cost). */
  unit: string;
  /**
   * Cost only: the currency of its account (a customer may bill in its own), as `unit` says; an
   * account's figures, its cloud spaces' and machines' are all in it, and never added to another's.
   */
  currency?: string;
  granularity: "hour" | "day";
  direction: "up" | "down";
  /** Since when: the first anomalous hour (or day), epoch seconds; `until` is the end of the last one. */
  since: number;
  until: number;
  /** The figure at the run's strongest point: per hour (a day: its average hour). */
  value: number;
  /** The median of that point's baseline, same unit. */
  baseline: number;
  /** value / baseline (null when the baseline is 0). */
  ratio: number | null;
  /** The strongest robust score of the run. */
  score: number;
  /** Hours (or days) in the run. */
  points: number;
}

/** Anomalies and machine changes of a period. */
export interface AnomalyReport {
  start: number;
  end: number;
  threshold: number;
  anomalies: Anomaly[];
  changes: MachineChange[];
  /** Points (entity × figure × hour or day) scored, and how many were beyond the threshold: the false-positive rate's denominator and numerator on clean data. */
  scored: number;
  flagged: number;
}

/** The hours of a table a scan reads, `[from, to)` (table hours): those of `[anomalyReadStart(start), end)` it has. */
function hoursRead(table: UsageTable, scan: Pick<AnomalyScan, "start" | "end">): { from: number; to: number } {
  const from = Math.max(0, Math.ceil((anomalyReadStart(scan.start) - table.start) / HOUR));
  return { from, to: Math.max(from, Math.min(table.hours, Math.ceil((scan.end - table.start) / HOUR))) };
}

/** How the anomalies of a table are looked for. */
export interface AnomalyScan {
  /** The hours looked at, `[start, end)`. */
  start: number;
  end: number;
  threshold: number;
  levels: readonly AnomalyLevel[];
  /** A price list: cost is scored too, each account's in the currency it is billed in. */
  prices: PriceList | undefined;
  names: Names | undefined;
  /**
   * Only the runs that reach past this hour (their `until` after it), as alerts need them:
   * a series is scored from the point that would reach past it, and from `start` only when
   * that point is anomalous (a run may have begun before it); `scored` and `flagged` then
   * count the points scored. Default: every run of `[start, end)`.
   */
  reachingPast?: number;
}

/** The report's parts found in one table (see `anomaliesOf`); tables of several accounts add up (`mergeReports`). */
export type ScanResult = Omit<AnomalyReport, "start" | "end" | "threshold">;

/** One figure of an entity as a series scored: its hours, or its days (`days`: the same, compared like with like). */
interface Series {
  granularity: "hour" | "day";
  step: number;
  slots: Slots;
  days: DaySlots | undefined;
  scoring: Scoring;
}

/** The two series of one figure of an entity, its hours and its days, scored with the absolute floor `floor`. */
function seriesOf(hours: Slots, scan: AnomalyScan, floor: number, reuse?: DaySlots): Series[] {
  const days = daySlots(hours, reuse);
  const { start, end } = scan;
  const rule = ANOMALY_RULE;
  return [
    {
      granularity: "hour",
      step: HOUR,
      slots: hours,
      days: undefined,
      scoring: { from: start, to: end, window: rule.hourBaseline * HOUR, minimum: rule.hourMinimum, floor },
    },
    {
      granularity: "day",
      step: DAY,
      slots: days,
      days,
      scoring: {
        from: start - (start % DAY),
        to: end,
        window: rule.dayBaseline * DAY,
        minimum: rule.dayMinimum,
        floor,
      },
    },
  ];
}

/** The points of a series a scan scores: all those of its period, or (`reachingPast`) those that may be in a run reaching past it. */
function pointsOf(series: Series, scan: AnomalyScan, window: SortedWindow): Point[] {
  const { slots, scoring, days, step } = series;
  if (scan.reachingPast === undefined) return scorePoints(slots, scoring, window, days);
  // a point reaches past the hour when its end does; one before those is in a reaching run only if the first of them is anomalous
  const from = Math.max(scoring.from, scan.reachingPast - step + 1);
  const points = scorePoints(slots, { ...scoring, from }, window, days);
  if (points.length > 0 && Math.abs(points[0]!.score) > scan.threshold)
    return scorePoints(slots, scoring, window, days);
  return points;
}

/**
 * The anomalies and machine changes of the entities of a table (see `anomalies`): each
 * figure of each entity of `scan.levels` scored hour by hour and day by day; cost in the
 * currency of the entity's account, never with another's.
 */
export function anomaliesOf(table: UsageTable, scan: AnomalyScan): ScanResult {
  const metrics = METRICS.filter((m) => m !== "cost" || scan.prices !== undefined);
  const found: Anomaly[] = [];
  const window = new SortedWindow(ANOMALY_RULE.hourBaseline + 1);
  let scored = 0;
  let flagged = 0;
  // what a scan reads of a table (one that holds more, a backtest's, gives the same as one of just that)
  const read = hoursRead(table, scan);
  const series = new HourSeries();
  let days: DaySlots | undefined;
  for (const entity of table.entities) {
    if (entity.level === "environment" || !scan.levels.includes(entity.level) || entity.accountId === null) continue;
    // the money of an account, its cloud spaces and machines is in the currency the account is billed in
    const money = scan.prices === undefined ? undefined : currencyOf(scan.prices, entity.accountId);
    series.of(table, entity, read);
    for (const metric of metrics) {
      const hours = series.metric(METRICS.indexOf(metric));
      for (const one of seriesOf(hours, scan, anomalyFloor(metric, money?.decimals ?? 2), days)) {
        days = one.days ?? days;
        const points = pointsOf(one, scan, window);
        scored += points.length;
        const { runs, flagged: beyond } = runsOf(points, scan.threshold);
        flagged += beyond;
        for (const run of runs) {
          const anomaly = anomalyOf(entity, metric, one, run, scan.names, money?.currency);
          if (scan.reachingPast === undefined || anomaly.until > scan.reachingPast) found.push(anomaly);
        }
      }
    }
  }
  return { anomalies: found, changes: machineChanges(table, scan, read), scored, flagged };
}

/** The reports of several tables (the accounts of a warehouse read apart) as one, in the order `anomalies` gives. */
export function mergeReports(results: readonly ScanResult[]): ScanResult {
  const anomalies = results
    .flatMap((r) => r.anomalies)
    .sort((a, b) => a.since - b.since || a.accountId - b.accountId || a.id.localeCompare(b.id));
  const changes = results.flatMap((r) => r.changes).sort((a, b) => a.at - b.at || a.machineId - b.machineId);
  return {
    anomalies,
    changes,
    scored: results.reduce((n, r) => n + r.scored, 0),
    flagged: results.reduce((n, r) => n + r.flagged, 0),
  };
}

/** The hours a search for anomalies of `[start, end)` reads: the 14 days before the day `start` is in, to `end`. */
export function anomalyReadStart(start: number): number {
  return start - (start % DAY) - ANOMALY_RULE.dayBaseline * DAY;
}

/** The levels a table for anomalies of `levels` holds: those, and the accounts (machine changes are against their account's hours). */
export function anomalyTableLevels(levels: readonly AnomalyLevel[]): Level[] {
  return levels.includes("account") ? [...levels] : [...levels, "account"];
}

/** Checks a request's period, threshold and levels; the threshold and levels with their defaults. */
export function checkAnomalyRequest(request: Pick<AnomalyRequest, "start" | "end" | "threshold" | "levels">): {
  threshold: number;
  levels: readonly AnomalyLevel[];
} {
  const { start, end } = request;
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || end <= start)
    throw new UsageError(`bad period ${String(start)}..${String(end)} (epoch seconds, end after start)`);
  const threshold = request.threshold ?? ANOMALY_RULE.threshold;
  if (!(threshold > 0)) throw new UsageError(`bad threshold ${String(threshold)} (a number above 0)`);
  return { threshold, levels: request.levels ?? ANOMALY_LEVELS };
}

/**
 * Hours and days whose CU, SU, TU, NU (and cost, with prices) leave the entity's own recent
 * baseline by more than `threshold` robust units (median and MAD, `ANOMALY_RULE`), for every
 * machine, cloud space and account, as runs with their size and since when; and machines new
 * or vanished in the period.
 */
export async function anomalies(connection: DuckDBConnection, request: AnomalyRequest): Promise<AnomalyReport> {
  const { start, end } = request;
  const { threshold, levels } = checkAnomalyRequest(request);
  const options = resolveOptions(await withStoredNames(connection, request.options));
  const readStart = anomalyReadStart(start);
  const table = new UsageTable(readStart, end, anomalyTableLevels(levels), options.names);
  const costs = request.prices ? new HourCosts(request.prices, options.units, readStart, end) : undefined;
  await usagePass(connection, {
    start: readStart,
    end,
    ...(request.accountId !== undefined ? { accountId: request.accountId } : {}),
    options,
    levelsAt: () => table.levels,
    onHour: feedingTable(table, costs),
  });
  const found = mergeReports([
    anomaliesOf(table, { start, end, threshold, levels, prices: request.prices, names: options.names }),
  ]);
  return { start, end, threshold, ...found };
}

/** The anomaly of a run of a series; `currency`: that of the entity's account (with prices). */
function anomalyOf(
  entity: EntityUsage,
  metric: Metric,
  { granularity, step }: Series,
  run: readonly Point[],
  names: Names | undefined,
  currency: string | undefined,
): Anomaly {
  const peak = run.reduce((a, p) => (Math.abs(p.score) > Math.abs(a.score) ? p : a));
  const since = run[0]!.t;
  return {
    id: `anomaly:${entity.key}:${metric}:${granularity}:${isoUtc(since)}`,
    level: entity.level as AnomalyLevel,
    accountId: entity.accountId!,
    cloudspaceId: entity.cloudspaceId,
    machineId: entity.machineId,
    ...namesOf(entity, names),
    metric,
    unit: metricUnit(metric, currency),
    ...(metric === "cost" ? { currency } : {}),
    granularity,
    direction: peak.score > 0 ? "up" : "down",
    since,
    until: run.at(-1)!.t + step,
    value: peak.value,
    baseline: peak.median,
    ratio: peak.median === 0 ? null : peak.value / peak.median,
    score: peak.score,
    points: run.length,
  };
}
