import type { DuckDBConnection } from "@duckdb/node-api";
import { resolveOptions, type BillingOptions } from "../billing/billingOptions.js";
import type { Level } from "../billing/levels.js";
import { nameOf, type Names } from "../billing/names.js";
import type { PriceList } from "../billing/prices.js";
import { UsageError } from "../base/errors.js";
import { isoUtc } from "../base/time.js";
import type { NamedEntity } from "./entityLabel.js";
import { lowerBound, robustScore, smallMedian, SortedWindow, type RobustScore } from "./robust.js";
import { withStoredNames } from "./storedNames.js";
import { usagePass } from "./usagePass.js";
import {
  HourCosts,
  hourFigures,
  METRICS,
  metricUnit,
  UsageTable,
  type EntityUsage,
  type Metric,
} from "./usageTable.js";

const HOUR = 3600;
const DAY = 24 * HOUR;
const WEEK = 7 * DAY;

/** The levels anomalies are looked for at. */
export type AnomalyLevel = Exclude<Level, "environment">;
export const ANOMALY_LEVELS: readonly AnomalyLevel[] = ["account", "cloudspace", "machine"];

/** The rule's constants (docs/anomalies.md). */
export const ANOMALY_RULE = {
  /** A point is anomalous when |value − median| > threshold × scale of its baseline. */
  threshold: 6,
  /** The scale is 1.4826 × MAD, at least this share of the median... */
  relativeFloor: 0.05,
  /** ...and at least these (a move smaller than threshold × this is never one): CU, TU unit-hours, SU, NU TiB, cost. */
  absoluteFloor: { CU: 0.01, SU: 0.001, TU: 0.01, NU: 1e-6, cost: 1e-4 } as Record<Metric, number>,
  /** An hour's baseline: the entity's hours held in the 7 days before it, at least 48 of them. */
  hourBaseline: 7 * 24,
  hourMinimum: 48,
  /** A day's baseline: the entity's days in the 14 days before it, at least 5; a day counts with 6 hours or more. */
  dayBaseline: 14,
  dayMinimum: 5,
  dayMinimumHours: 6,
} as const;

/** What to look for anomalies in. */
export interface AnomalyRequest {
  /** The hours looked at, `[start, end)` epoch seconds; their baselines are read from the 14 days before. */
  start: number;
  end: number;
  /** One account; default every account. */
  accountId?: number;
  /** Default account, cloud space and machine. */
  levels?: readonly AnomalyLevel[];
  /** A price list: adds cost to CU, SU, TU, NU. */
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

/** A machine that appeared or disappeared while its account's files went on. */
export interface MachineChange {
  /** `machine-new:7:120:4392:2026-10-20T03:00:00Z`. */
  id: string;
  kind: "new" | "vanished";
  accountId: number;
  cloudspaceId: number;
  machineId: number;
  /** The machine's name; `accountName` and `cloudspaceName` those of its account and cloud space (`""` when unknown). */
  name: string;
  accountName: string;
  cloudspaceName: string;
  /** new: its first hour; vanished: the hour after its last one (epoch seconds). */
  at: number;
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

interface Point {
  t: number;
  value: number;
  median: number;
  score: number;
}

/** One figure of an entity at its times held (hours, or days), ascending. */
interface Slots {
  t: Float64Array;
  value: Float64Array;
  n: number;
}

/** Where a series is scored: `[from, to)`, and the window and minimum of its baseline. */
interface Scoring {
  from: number;
  to: number;
  window: number;
  minimum: number;
  metric: Metric;
}

/** The value of the slot at time `t`, if held (binary search: slots ascend). */
function slotAt(slots: Slots, t: number): number | undefined {
  const at = lowerBound(slots.t, slots.n, t);
  return at < slots.n && slots.t[at] === t ? slots.value[at] : undefined;
}

/**
 * The scored points of one figure in `[from, to)`: each slot against the slots of the
 * `window` before it (at least `minimum` of them), kept sorted as the window slides; when the
 * same slot of earlier weeks is held, the score is the smaller (in size) of that and the
 * score against their median, so what recurs every week (weekends) is no anomaly. Days
 * (`days` given) are compared like with like: a day not held whole (the day still running),
 * or one whose baseline holds such a day, against the same hours of the days before it.
 */
function scorePoints(slots: Slots, s: Scoring, window: SortedWindow, days?: DaySlots): Point[] {
  const out: Point[] = [];
  const { t: times, value: values } = slots;
  const relativeFloor = ANOMALY_RULE.relativeFloor;
  const absoluteFloor = ANOMALY_RULE.absoluteFloor[s.metric];
  // the window holds values[lo .. hi): the baseline of slot i is [first, i)
  let first = 0;
  let lo = 0;
  let hi = 0;
  window.clear();
  const sameSlot: number[] = [];
  for (let i = 0; i < slots.n; i++) {
    const t = times[i]!;
    while (times[first]! < t - s.window) first++;
    if (t < s.from || t >= s.to || i - first < s.minimum) continue;
    if (days !== undefined && !wholeDays(days, first, i)) {
      const point = sameHoursScore(days, first, i, s);
      if (point) out.push(point);
      continue;
    }
    if (first >= hi) {
      window.fill(values.subarray(first, i));
      lo = first;
      hi = i;
    } else {
      for (; lo < first; lo++) window.remove(values[lo]!);
      for (; hi < i; hi++) window.insert(values[hi]!);
    }
    const value = values[i]!;
    const scored = window.score(value, relativeFloor, absoluteFloor);
    sameSlot.length = 0;
    for (let k = 1; k <= 4; k++) {
      const v = slotAt(slots, t - k * WEEK);
      if (v !== undefined) sameSlot.push(v);
    }
    out.push({ t, value, median: scored.median, score: weeklyScore(value, scored, sameSlot) });
  }
  return out;
}

/** The score of a value against its baseline (`scored`), or, smaller in size, against the median of the same slot of earlier weeks (`sameSlot`, sorted in place). */
function weeklyScore(value: number, scored: RobustScore, sameSlot: number[]): number {
  let score = scored.score;
  if (sameSlot.length > 0) {
    const weekly = (value - smallMedian(sameSlot)) / scored.scale;
    if (Math.abs(weekly) < Math.abs(score)) score = Math.sign(score) === Math.sign(weekly) ? weekly : 0;
  }
  return score;
}

/** Every hour of the day, one bit each (hour 0 the lowest). */
const WHOLE_DAY = 2 ** 24 - 1;

/** True when days `[first, i]` are all held whole (24 hours): a day's score then slides its window of whole days. */
function wholeDays(days: DaySlots, first: number, i: number): boolean {
  for (let j = first; j <= i; j++) if (days.mask[j] !== WHOLE_DAY) return false;
  return true;
}

/** The average hour of day `j` over the hours of `hours` (bits of hours of the day), all held that day. */
function dayOver(days: DaySlots, j: number, hours: number): number {
  const { t, value, n } = days.hours;
  const day = days.t[j]!;
  let sum = 0;
  let count = 0;
  for (let k = days.first[j]!; k < n && t[k]! < day + DAY; k++) {
    if ((hours & (1 << ((t[k]! - day) / HOUR))) === 0) continue;
    sum += value[k]!;
    count++;
  }
  return sum / count;
}

/**
 * Day `i` scored like with like: its average hour against the average of the same hours of
 * each day of its baseline `[first, i)` that holds them all (at least the minimum of such
 * days), and of the same weekday of earlier weeks; so the day still running, 9 hours held,
 * is compared with the 9 same hours of the days before, never with whole days.
 */
function sameHoursScore(days: DaySlots, first: number, i: number, s: Scoring): Point | undefined {
  const hours = days.mask[i]!;
  const baseline: number[] = [];
  for (let j = first; j < i; j++) if ((days.mask[j]! & hours) === hours) baseline.push(dayOver(days, j, hours));
  if (baseline.length < s.minimum) return undefined;
  const t = days.t[i]!;
  const value = days.value[i]!;
  const scored = robustScore(value, baseline, ANOMALY_RULE.relativeFloor, ANOMALY_RULE.absoluteFloor[s.metric]);
  const sameSlot: number[] = [];
  for (let k = 1; k <= 4; k++) {
    const at = lowerBound(days.t, days.n, t - k * WEEK);
    if (at < days.n && days.t[at] === t - k * WEEK && (days.mask[at]! & hours) === hours)
      sameSlot.push(dayOver(days, at, hours));
  }
  return { t, value, median: scored.median, score: weeklyScore(value, scored, sameSlot) };
}

/** The hours of a table a scan reads, `[from, to)` (table hours): those of `[anomalyReadStart(start), end)` it has. */
function hoursRead(table: UsageTable, scan: Pick<AnomalyScan, "start" | "end">): { from: number; to: number } {
  const from = Math.max(0, Math.ceil((anomalyReadStart(scan.start) - table.start) / HOUR));
  return { from, to: Math.max(from, Math.min(table.hours, Math.ceil((scan.end - table.start) / HOUR))) };
}

/** An entity's hourly figures of one metric: the hours `[read.from, read.to)` it has a line in, ascending. */
function hourSlots(table: UsageTable, entity: EntityUsage, m: number, read: { from: number; to: number }): Slots {
  const t = new Float64Array(read.to - read.from);
  const value = new Float64Array(read.to - read.from);
  let n = 0;
  for (let h = read.from; h < read.to; h++) {
    if (!table.held(entity, h)) continue;
    t[n] = table.start + h * HOUR;
    value[n++] = table.value(entity, m, h);
  }
  return { t, value, n };
}

/** An entity's days of one metric: each day's hours held (bits of hours of the day) and where they start among its hours. */
interface DaySlots extends Slots {
  mask: Int32Array;
  first: Int32Array;
  hours: Slots;
}

/** An entity's daily figures of one metric: each UTC day's average hour over the hours it has (days with enough hours). */
function daySlots(hours: Slots): DaySlots {
  const size = Math.floor(hours.n / ANOMALY_RULE.dayMinimumHours) + 1;
  const t = new Float64Array(size);
  const value = new Float64Array(size);
  const mask = new Int32Array(size);
  const first = new Int32Array(size);
  let n = 0;
  for (let i = 0; i < hours.n;) {
    const day = hours.t[i]! - (hours.t[i]! % DAY);
    const from = i;
    let sum = 0;
    let held = 0;
    for (; i < hours.n && hours.t[i]! < day + DAY; i++) {
      sum += hours.value[i]!;
      held |= 1 << ((hours.t[i]! - day) / HOUR);
    }
    if (i - from < ANOMALY_RULE.dayMinimumHours) continue;
    t[n] = day;
    value[n] = sum / (i - from);
    mask[n] = held;
    first[n++] = from;
  }
  return { t, value, n, mask, first, hours };
}

const idOf = (e: EntityUsage) =>
  [e.level, e.accountId, e.cloudspaceId, e.machineId].filter((v) => v !== null).join(":");

/** How the anomalies of a table are looked for. */
export interface AnomalyScan {
  /** The hours looked at, `[start, end)`. */
  start: number;
  end: number;
  threshold: number;
  levels: readonly AnomalyLevel[];
  /** The price list's currency, with prices (then cost is scored too). */
  currency: string | undefined;
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

/** The runs of anomalous points of a series: consecutive points beyond the threshold on one side. */
function runsOf(points: readonly Point[], threshold: number): { runs: Point[][]; flagged: number } {
  const runs: Point[][] = [];
  let flagged = 0;
  let run: Point[] = [];
  const close = () => {
    if (run.length > 0) runs.push(run);
    run = [];
  };
  for (const p of points) {
    if (Math.abs(p.score) <= threshold) {
      close();
      continue;
    }
    flagged++;
    if (run.length > 0 && Math.sign(run[0]!.score) !== Math.sign(p.score)) close();
    run.push(p);
  }
  close();
  return { runs, flagged };
}

/**
 * The anomalies and machine changes of the entities of a table (see `anomalies`): each
 * figure of each entity of `scan.levels` scored hour by hour and day by day.
 */
export function anomaliesOf(table: UsageTable, scan: AnomalyScan): ScanResult {
  const metrics = METRICS.filter((m) => m !== "cost" || scan.currency !== undefined);
  const found: Anomaly[] = [];
  const window = new SortedWindow(ANOMALY_RULE.hourBaseline + 1);
  let scored = 0;
  let flagged = 0;
  const dayStart = scan.start - (scan.start % DAY);
  // what a scan reads of a table (one that holds more, a backtest's, gives the same as one of just that)
  const read = hoursRead(table, scan);
  for (const entity of table.entities) {
    if (entity.level === "environment" || !scan.levels.includes(entity.level) || entity.accountId === null) continue;
    for (const metric of metrics) {
      const hours = hourSlots(table, entity, METRICS.indexOf(metric), read);
      const days = daySlots(hours);
      const series = [
        {
          granularity: "hour" as const,
          step: HOUR,
          slots: hours,
          days: undefined,
          scoring: {
            from: scan.start,
            to: scan.end,
            window: ANOMALY_RULE.hourBaseline * HOUR,
            minimum: ANOMALY_RULE.hourMinimum,
            metric,
          },
        },
        {
          granularity: "day" as const,
          step: DAY,
          slots: days,
          days,
          scoring: {
            from: dayStart,
            to: scan.end,
            window: ANOMALY_RULE.dayBaseline * DAY,
            minimum: ANOMALY_RULE.dayMinimum,
            metric,
          },
        },
      ];
      for (const { granularity, step, slots, days: like, scoring } of series) {
        let points: Point[];
        if (scan.reachingPast === undefined) points = scorePoints(slots, scoring, window, like);
        else {
          // a point reaches past the hour when its end does; one before those is in a reaching run only if the first of them is anomalous
          points = scorePoints(
            slots,
            { ...scoring, from: Math.max(scoring.from, scan.reachingPast - step + 1) },
            window,
            like,
          );
          if (points.length > 0 && Math.abs(points[0]!.score) > scan.threshold)
            points = scorePoints(slots, scoring, window, like);
        }
        scored += points.length;
        const { runs, flagged: beyond } = runsOf(points, scan.threshold);
        flagged += beyond;
        for (const run of runs) {
          const anomaly = anomalyOf(entity, metric, granularity, step, run, scan);
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
  let scratch: Float64Array = new Float64Array(0);
  await usagePass(connection, {
    start: readStart,
    end,
    ...(request.accountId !== undefined ? { accountId: request.accountId } : {}),
    options,
    levelsAt: () => table.levels,
    onHour: (lines) => table.add(lines, (scratch = hourFigures(lines, costs, scratch))),
  });
  const found = mergeReports([
    anomaliesOf(table, { start, end, threshold, levels, currency: request.prices?.currency, names: options.names }),
  ]);
  return { start, end, threshold, ...found };
}

function anomalyOf(
  entity: EntityUsage,
  metric: Metric,
  granularity: "hour" | "day",
  step: number,
  run: readonly Point[],
  scan: AnomalyScan,
): Anomaly {
  const peak = run.reduce((a, p) => (Math.abs(p.score) > Math.abs(a.score) ? p : a));
  const since = run[0]!.t;
  return {
    id: `anomaly:${idOf(entity)}:${metric}:${granularity}:${isoUtc(since)}`,
    level: entity.level as AnomalyLevel,
    accountId: entity.accountId!,
    cloudspaceId: entity.cloudspaceId,
    machineId: entity.machineId,
    ...namesOf(entity, scan.names),
    metric,
    unit: metricUnit(metric, scan.currency),
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

/** An entity's name and those of the account and cloud space it is in. */
function namesOf(
  entity: EntityUsage,
  names: Names | undefined,
): { name: string; accountName: string; cloudspaceName: string | null } {
  return {
    name: entity.name,
    accountName: nameOf(names, "account", entity.accountId!),
    cloudspaceName: entity.cloudspaceId === null ? null : nameOf(names, "cloudspace", entity.cloudspaceId),
  };
}

/** The first hour an entity has a line in the hours read, and the hour after its last (undefined when it has none). */
function spanOf(
  table: UsageTable,
  entity: EntityUsage,
  read: { from: number; to: number },
): { first: number; gone: number } | undefined {
  let first = -1;
  let last = -1;
  for (let h = read.from; h < read.to; h++) {
    if (!table.held(entity, h)) continue;
    if (first < 0) first = h;
    last = h;
  }
  return first < 0 ? undefined : { first: table.start + first * HOUR, gone: table.start + (last + 1) * HOUR };
}

/** Machines first seen in `[start, end)` after their account's first hour read, and those last seen before their account's last hour. */
function machineChanges(table: UsageTable, scan: AnomalyScan, read: { from: number; to: number }): MachineChange[] {
  const { start, end } = scan;
  const accountSpan = new Map<number, { first: number; gone: number }>();
  for (const e of table.entities) {
    const span = e.level === "account" && e.accountId !== null ? spanOf(table, e, read) : undefined;
    if (span) accountSpan.set(e.accountId!, span);
  }
  const changes: MachineChange[] = [];
  for (const e of table.entities) {
    if (e.level !== "machine" || e.accountId === null || e.cloudspaceId === null || e.machineId === null) continue;
    const account = accountSpan.get(e.accountId);
    const span = spanOf(table, e, read);
    if (!account || !span) continue;
    const { first, gone } = span;
    const named = namesOf(e, scan.names);
    const base = {
      accountId: e.accountId,
      cloudspaceId: e.cloudspaceId,
      machineId: e.machineId,
      name: named.name,
      accountName: named.accountName,
      cloudspaceName: named.cloudspaceName!,
    };
    if (first >= start && first < end && first > account.first)
      changes.push({ id: `machine-new:${idOf(e).slice(8)}:${isoUtc(first)}`, kind: "new", ...base, at: first });
    if (gone >= start && gone < end && gone <= account.gone - HOUR)
      changes.push({ id: `machine-vanished:${idOf(e).slice(8)}:${isoUtc(gone)}`, kind: "vanished", ...base, at: gone });
  }
  return changes.sort((a, b) => a.at - b.at || a.machineId - b.machineId);
}
