import { describe, expect, it } from "vitest";
import { ANOMALY_RULE, scorePoints, type Point, type Scoring } from "../../src/forecast/anomalyScores.js";
import { SortedWindow } from "../../src/forecast/robust.js";
import { plainMedian, plainScore } from "../helpers/plainScore.js";

// A series of hours flat over what a scan scores (a machine's CU, SU and TU most hours) is scored
// without sliding its window: these tests hold its points to the rule written plainly.

const HOUR = 3600;
const WEEK = 7 * 24 * HOUR;
const HOURS = 22 * 24;
/** The last day of 22 scored, against the 7 days before each hour (at least 48 hours), CU's floor. */
const SCORING: Scoring = {
  from: 21 * 24 * HOUR,
  to: HOURS * HOUR,
  window: ANOMALY_RULE.hourBaseline * HOUR,
  minimum: ANOMALY_RULE.hourMinimum,
  floor: 0.01,
};

/** The rule written plainly: each hour of `[from, to)` against the hours held in the window before it, and the same hour of up to 4 weeks before. */
function plainPoints(t: number[], v: number[], s: Scoring): Point[] {
  const out: Point[] = [];
  for (let i = 0; i < t.length; i++) {
    if (t[i]! < s.from || t[i]! >= s.to) continue;
    const baseline = v.filter((_, j) => t[j]! >= t[i]! - s.window && t[j]! < t[i]!);
    if (baseline.length < s.minimum) continue;
    const scored = plainScore(v[i]!, baseline, ANOMALY_RULE.relativeFloor, s.floor);
    const sameSlot = [1, 2, 3, 4].map((k) => t.indexOf(t[i]! - k * WEEK)).filter((j) => j >= 0);
    let score = scored.score;
    if (sameSlot.length > 0) {
      const weekly = (v[i]! - plainMedian(sameSlot.map((j) => v[j]!))) / scored.scale;
      if (Math.abs(weekly) < Math.abs(score)) score = Math.sign(score) === Math.sign(weekly) ? weekly : 0;
    }
    out.push({ t: t[i]!, value: v[i]!, median: scored.median, score });
  }
  return out;
}

/** The hours held (`held`) of a series of values (`value`), as slots. */
function series(value: (h: number) => number, held: (h: number) => boolean = () => true) {
  const hours = Array.from({ length: HOURS }, (_, h) => h).filter(held);
  const t = hours.map((h) => h * HOUR);
  const v = hours.map(value);
  return { t, v, slots: { t: Float64Array.from(t), value: Float64Array.from(v), n: t.length } };
}

const CASES: [string, ReturnType<typeof series>][] = [
  ["a machine's CU, 2 every hour", series(() => 2)],
  ["flat, then 40 times in the last 6 hours", series((h) => (h >= HOURS - 6 ? 80 : 2))],
  [
    "flat, 30 hours missing, the first week at 5 (the same hour of earlier weeks not flat)",
    series(
      (h) => (h < 168 ? 5 : 2),
      (h) => h < 300 || h >= 330,
    ),
  ],
  [
    "a machine new 30 hours before the day scored (its first 18 hours short of 48 before them)",
    series(
      () => 2,
      (h) => h >= 21 * 24 - 30,
    ),
  ],
  ["a price 10% up 20 hours before the end (a step not flagged)", series((h) => (h >= HOURS - 20 ? 0.11 : 0.1))],
  ["zero every hour", series(() => 0)],
  ["1e308 every hour (twice it is not finite)", series(() => 1e308)],
];

describe("scorePoints of a flat series of hours", () => {
  it.each(CASES)("%s: the points of the rule written plainly, to the bit", (_, { t, v, slots }) => {
    expect(scorePoints(slots, SCORING, new SortedWindow())).toEqual(plainPoints(t, v, SCORING));
  });

  it("finds what is not flat and scores nothing more than the rule does", () => {
    const points = (k: number) => scorePoints(CASES[k]![1].slots, SCORING, new SortedWindow());
    // flat: 24 hours scored, each at its baseline's median, 0
    expect(points(0)).toHaveLength(24);
    expect(points(0).every((p) => p.median === 2 && p.score === 0)).toBe(true);
    // the last 6 hours: 80 against a median of 2, (80 − 2) / max(1.4826 × MAD 0, 0.05 × 2, 0.01) = 780
    expect(
      points(1)
        .slice(-6)
        .map((p) => p.score),
    ).toEqual(Array(6).fill(780));
    // new 30 hours before: the day's hours 0–17 have 30–47 hours before them, only 18–23 are scored
    expect(points(3).map((p) => p.t / HOUR - 21 * 24)).toEqual([18, 19, 20, 21, 22, 23]);
  });
});
