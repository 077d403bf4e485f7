import type { DuckDBConnection } from "@duckdb/node-api";
import type { BillingOptions, Level } from "../billing/lines.js";
import type { PriceList } from "../billing/prices.js";
import { UsageError } from "../base/errors.js";
import { isoUtc } from "../base/time.js";
import { median, robustScore } from "./robust.js";
import { withStoredNames } from "./storedNames.js";
import { METRICS, usageSeries, type EntitySeries, type Metric } from "./usageSeries.js";

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
  /** ...and at least these (a move smaller than threshold × this is never one): CU, TU unit-hours, SU, NU TB, cost. */
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
export interface Anomaly {
  /** Stable across runs while the run starts at the same hour: `anomaly:machine:7:120:4392:NU:hour:2026-10-20T03:00:00Z`. */
  id: string;
  level: AnomalyLevel;
  accountId: number;
  cloudspaceId: number | null;
  machineId: number | null;
  name: string;
  metric: Metric;
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
  name: string;
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

/**
 * The scored points of one figure: each time slot against the slots of the `window` before it;
 * when the same slot of earlier weeks is held, the score is the smaller (in size) of that and
 * the score against their median, so what recurs every week (weekends) is no anomaly.
 */
function scorePoints(slots: readonly { t: number; value: number }[], from: number, to: number, window: number, minimum: number, metric: Metric): Point[] {
  const out: Point[] = [];
  const at = new Map(slots.map((s) => [s.t, s.value]));
  const values = Float64Array.from(slots, (s) => s.value);
  let first = 0;
  for (let i = 0; i < slots.length; i++) {
    const { t, value } = slots[i]!;
    while (slots[first]!.t < t - window) first++;
    if (t < from || t >= to || i - first < minimum) continue;
    const baseline = values.subarray(first, i);
    const scored = robustScore(value, baseline, ANOMALY_RULE.relativeFloor, ANOMALY_RULE.absoluteFloor[metric]);
    const sameSlot = [1, 2, 3, 4].map((k) => at.get(t - k * WEEK)).filter((v): v is number => v !== undefined);
    let score = scored.score;
    if (sameSlot.length > 0) {
      const weekly = (value - median(sameSlot)) / scored.scale;
      if (Math.abs(weekly) < Math.abs(score)) score = Math.sign(score) === Math.sign(weekly) ? weekly : 0;
    }
    out.push({ t, value, median: scored.median, score });
  }
  return out;
}

/** An entity's daily figures: each UTC day's average hour over the hours it has (days with enough hours). */
function dailySlots(entity: EntitySeries, metric: Metric): { t: number; value: number }[] {
  const days = new Map<number, { sum: number; n: number }>();
  for (const [t, f] of entity.hours) {
    const day = t - (t % DAY);
    const d = days.get(day) ?? { sum: 0, n: 0 };
    d.sum += f[metric];
    d.n++;
    days.set(day, d);
  }
  return [...days].filter(([, d]) => d.n >= ANOMALY_RULE.dayMinimumHours).sort((a, b) => a[0] - b[0]).map(([t, d]) => ({ t, value: d.sum / d.n }));
}

const idOf = (e: EntitySeries) => [e.level, e.accountId, e.cloudspaceId, e.machineId].filter((v) => v !== null).join(":");

/**
 * Hours and days whose CU, SU, TU, NU (and cost, with prices) leave the entity's own recent
 * baseline by more than `threshold` robust units (median and MAD, `ANOMALY_RULE`), for every
 * machine, cloud space and account, as runs with their size and since when; and machines new
 * or vanished in the period.
 */
export async function anomalies(connection: DuckDBConnection, request: AnomalyRequest): Promise<AnomalyReport> {
  const { start, end } = request;
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || end <= start) throw new UsageError(`bad period ${String(start)}..${String(end)} (epoch seconds, end after start)`);
  const threshold = request.threshold ?? ANOMALY_RULE.threshold;
  if (!(threshold > 0)) throw new UsageError(`bad threshold ${String(threshold)} (a number above 0)`);
  const levels = request.levels ?? ANOMALY_LEVELS;
  const readStart = start - start % DAY - ANOMALY_RULE.dayBaseline * DAY;
  const read: Level[] = levels.includes("account") ? [...levels] : [...levels, "account"];
  const series = await usageSeries(
    connection, { start: readStart, end, ...(request.accountId !== undefined ? { accountId: request.accountId } : {}) }, read, await withStoredNames(connection, request.options), request.prices,
  );
  const metrics = METRICS.filter((m) => m !== "cost" || request.prices !== undefined);
  const found: Anomaly[] = [];
  let scored = 0;
  let flagged = 0;
  for (const entity of series.values()) {
    if (entity.level === "environment" || !levels.includes(entity.level) || entity.accountId === null) continue;
    const hours = [...entity.hours.keys()].sort((a, b) => a - b);
    for (const metric of metrics) {
      const hourSlots = hours.map((t) => ({ t, value: entity.hours.get(t)![metric] }));
      const runs = [
        { granularity: "hour" as const, step: HOUR, points: scorePoints(hourSlots, start, end, ANOMALY_RULE.hourBaseline * HOUR, ANOMALY_RULE.hourMinimum, metric) },
        { granularity: "day" as const, step: DAY, points: scorePoints(dailySlots(entity, metric), start - start % DAY, end, ANOMALY_RULE.dayBaseline * DAY, ANOMALY_RULE.dayMinimum, metric) },
      ];
      for (const { granularity, step, points } of runs) {
        scored += points.length;
        let run: Point[] = [];
        const close = () => {
          if (run.length > 0) found.push(anomalyOf(entity, metric, granularity, step, run));
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
      }
    }
  }
  found.sort((a, b) => a.since - b.since || a.accountId - b.accountId || a.id.localeCompare(b.id));
  return { start, end, threshold, anomalies: found, changes: machineChanges(series, start, end), scored, flagged };
}

function anomalyOf(entity: EntitySeries, metric: Metric, granularity: "hour" | "day", step: number, run: readonly Point[]): Anomaly {
  const peak = run.reduce((a, p) => (Math.abs(p.score) > Math.abs(a.score) ? p : a));
  const since = run[0]!.t;
  return {
    id: `anomaly:${idOf(entity)}:${metric}:${granularity}:${isoUtc(since)}`,
    level: entity.level as AnomalyLevel, accountId: entity.accountId!, cloudspaceId: entity.cloudspaceId, machineId: entity.machineId, name: entity.name,
    metric, granularity, direction: peak.score > 0 ? "up" : "down", since, until: run.at(-1)!.t + step,
    value: peak.value, baseline: peak.median, ratio: peak.median === 0 ? null : peak.value / peak.median, score: peak.score, points: run.length,
  };
}

/** Machines first seen in `[start, end)` after their account's first hour read, and those last seen before their account's last hour. */
function machineChanges(series: Map<string, EntitySeries>, start: number, end: number): MachineChange[] {
  const accountSpan = new Map<number, { first: number; last: number }>();
  for (const e of series.values()) {
    if (e.level !== "account" || e.accountId === null) continue;
    const hours = [...e.hours.keys()];
    accountSpan.set(e.accountId, { first: Math.min(...hours), last: Math.max(...hours) });
  }
  const changes: MachineChange[] = [];
  for (const e of series.values()) {
    if (e.level !== "machine" || e.accountId === null || e.cloudspaceId === null || e.machineId === null) continue;
    const span = accountSpan.get(e.accountId);
    if (!span) continue;
    const hours = [...e.hours.keys()];
    const first = Math.min(...hours);
    const gone = Math.max(...hours) + HOUR;
    const base = { accountId: e.accountId, cloudspaceId: e.cloudspaceId, machineId: e.machineId, name: e.name };
    if (first >= start && first < end && first > span.first) changes.push({ id: `machine-new:${idOf(e).slice(8)}:${isoUtc(first)}`, kind: "new", ...base, at: first });
    if (gone >= start && gone < end && gone <= span.last) changes.push({ id: `machine-vanished:${idOf(e).slice(8)}:${isoUtc(gone)}`, kind: "vanished", ...base, at: gone });
  }
  return changes.sort((a, b) => a.at - b.at || a.machineId - b.machineId);
}
