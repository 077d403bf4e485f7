import { METRICS, type UsageTable, type EntityUsage, type Metric } from "./usageTable.js";
import { lowerBound, robustScore, smallMedian, type RobustScore, type SortedWindow } from "./robust.js";

// How one figure of one entity is scored, hour by hour and day by day, against its own recent
// baseline (docs/budgets.md, Anomalies); what is scored and reported is anomalies.ts's.

const HOUR = 3600;
const DAY = 24 * HOUR;
const WEEK = 7 * DAY;

/** The rule's constants (docs/budgets.md, Anomalies). */
export const ANOMALY_RULE = {
  /** A point is anomalous when |value − median| > threshold × scale of its baseline. */
  threshold: 6,
  /** The scale is 1.4826 × MAD, at least this share of the median... */
  relativeFloor: 0.05,
  /**
   * ...and at least these (a move smaller than threshold × this is never one): CU, TU unit-hours, SU, NU TiB, cost
   * in a currency of 2 decimals (a hundredth of a cent; a currency of other decimals: a hundredth of its smallest unit, `anomalyFloor`).
   */
  absoluteFloor: { CU: 0.01, SU: 0.001, TU: 0.01, NU: 1e-6, cost: 1e-4 } as Record<Metric, number>,
  /** An hour's baseline: the entity's hours held in the 7 days before it, at least 48 of them. */
  hourBaseline: 7 * 24,
  hourMinimum: 48,
  /** A day's baseline: the entity's days in the 14 days before it, at least 5; a day counts with 6 hours or more. */
  dayBaseline: 14,
  dayMinimum: 5,
  dayMinimumHours: 6,
} as const;

/**
 * The absolute floor of a figure's scale (`ANOMALY_RULE.absoluteFloor`); cost's in the currency
 * of the entity's account, by its decimals: 0.0001 EUR (2 decimals), 0.01 JPY (0 decimals).
 */
export function anomalyFloor(metric: Metric, decimals: number): number {
  const floor = ANOMALY_RULE.absoluteFloor[metric];
  return metric === "cost" ? floor * 10 ** (2 - decimals) : floor;
}

export interface Point {
  t: number;
  value: number;
  median: number;
  score: number;
}

/** One figure of an entity at its times held (hours, or days), ascending. */
export interface Slots {
  t: Float64Array;
  value: Float64Array;
  n: number;
}

/** Where a series is scored: `[from, to)`, the window and minimum of its baseline, and its absolute floor (`anomalyFloor`). */
export interface Scoring {
  from: number;
  to: number;
  window: number;
  minimum: number;
  floor: number;
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
export function scorePoints(slots: Slots, s: Scoring, window: SortedWindow, days?: DaySlots): Point[] {
  const out: Point[] = [];
  const { t: times, value: values } = slots;
  const relativeFloor = ANOMALY_RULE.relativeFloor;
  // the window holds values[lo .. hi): the baseline of slot i is [first, i), its first slot not
  // before t − window; the slots before `from` are not scored, so the first scored is looked for
  const start = lowerBound(times, slots.n, s.from);
  let first = start < slots.n ? lowerBound(times, start, times[start]! - s.window) : 0;
  if (days === undefined && flat(values, first, lowerBound(times, slots.n, s.to)))
    return flatPoints(slots, s, start, first);
  let lo = 0;
  let hi = 0;
  window.clear();
  const sameSlot: number[] = [];
  for (let i = start; i < slots.n; i++) {
    const t = times[i]!;
    while (times[first]! < t - s.window) first++;
    if (t >= s.to) break;
    if (i - first < s.minimum) continue;
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
    const scored = window.score(value, relativeFloor, s.floor);
    sameSlot.length = 0;
    for (let k = 1; k <= 4; k++) {
      const v = slotAt(slots, t - k * WEEK);
      if (v !== undefined) sameSlot.push(v);
    }
    out.push({ t, value, median: scored.median, score: weeklyScore(value, scored, sameSlot) });
  }
  return out;
}

/**
 * True when slots `[from, to)` hold one finite value (of one sign, when 0), which is the median of
 * any number of itself ((v + v) / 2 is v): a machine's CU, SU and TU most hours.
 */
function flat(values: Float64Array, from: number, to: number): boolean {
  if (from >= to) return false;
  const v = values[from]!;
  if (!Number.isFinite(v) || (v + v) / 2 !== v) return false;
  for (let i = from + 1; i < to; i++) if (values[i] !== v || (v === 0 && 1 / values[i]! !== 1 / v)) return false;
  return true;
}

/**
 * `scorePoints` of an hours' series flat from the baseline of its first point scored (`start`, its
 * baseline from `first`) to its last: each point is its baseline's median, its MAD 0, its score 0
 * (the scale is at least the floor; the same slot of earlier weeks never makes a score of 0 smaller),
 * the points those a window slid over them scores, without sliding it.
 */
function flatPoints(slots: Slots, s: Scoring, start: number, first: number): Point[] {
  const out: Point[] = [];
  const { t: times, value: values } = slots;
  for (let i = start; i < slots.n; i++) {
    const t = times[i]!;
    while (times[first]! < t - s.window) first++;
    if (t >= s.to) break;
    if (i - first < s.minimum) continue;
    out.push({ t, value: values[i]!, median: values[i]!, score: 0 });
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
  const scored = robustScore(value, baseline, ANOMALY_RULE.relativeFloor, s.floor);
  const sameSlot: number[] = [];
  for (let k = 1; k <= 4; k++) {
    const at = lowerBound(days.t, days.n, t - k * WEEK);
    if (at < days.n && days.t[at] === t - k * WEEK && (days.mask[at]! & hours) === hours)
      sameSlot.push(dayOver(days, at, hours));
  }
  return { t, value, median: scored.median, score: weeklyScore(value, scored, sameSlot) };
}

/**
 * An entity's hourly figures, one metric at a time: the hours `[read.from, read.to)` it has a
 * line in, ascending (found once per entity, `of`), and a metric's figures in them (`metric`),
 * in buffers used again from series to series.
 */
export class HourSeries {
  private readonly slots: Slots = { t: new Float64Array(0), value: new Float64Array(0), n: 0 };
  private at = new Int32Array(0);
  private entity: EntityUsage | undefined;

  /** Takes the hours of `entity` held in the table's hours `[read.from, read.to)`. */
  of(table: UsageTable, entity: EntityUsage, read: { from: number; to: number }): this {
    const size = read.to - read.from;
    if (this.at.length < size) {
      this.at = new Int32Array(size);
      this.slots.t = new Float64Array(size);
      this.slots.value = new Float64Array(size);
    }
    let n = 0;
    for (let h = read.from; h < read.to; h++) {
      if (!table.held(entity, h)) continue;
      this.slots.t[n] = table.start + h * HOUR;
      this.at[n++] = h;
    }
    this.slots.n = n;
    this.entity = entity;
    return this;
  }

  /** Metric `m`'s figures (its position in `METRICS`) at the entity's hours: valid until the next call. */
  metric(m: number): Slots {
    const { value, n } = this.slots;
    const values = this.entity!.values;
    const width = METRICS.length;
    for (let i = 0; i < n; i++) value[i] = values[width * this.at[i]! + m]!;
    return this.slots;
  }
}

/** An entity's days of one metric: each day's hours held (bits of hours of the day) and where they start among its hours. */
export interface DaySlots extends Slots {
  mask: Int32Array;
  first: Int32Array;
  hours: Slots;
}

/**
 * An entity's daily figures of one metric: each UTC day's average hour over the hours it has
 * (days with enough hours); in the buffers of `reuse` when they are large enough (it is then no longer valid).
 */
export function daySlots(hours: Slots, reuse?: DaySlots): DaySlots {
  const size = Math.floor(hours.n / ANOMALY_RULE.dayMinimumHours) + 1;
  const room = reuse !== undefined && reuse.t.length >= size;
  const t = room ? reuse.t : new Float64Array(size);
  const value = room ? reuse.value : new Float64Array(size);
  const mask = room ? reuse.mask : new Int32Array(size);
  const first = room ? reuse.first : new Int32Array(size);
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

/** The runs of anomalous points of a series: consecutive points beyond the threshold on one side. */
export function runsOf(points: readonly Point[], threshold: number): { runs: Point[][]; flagged: number } {
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
