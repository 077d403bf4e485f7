import type { DuckDBConnection } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anomalies, parsePrices } from "../../src/internal.js";
import { robustScore } from "../../src/forecast/robust.js";
import {
  DAY,
  findsPlanted,
  MONTH_PRICES,
  NOV_1,
  OCT_1,
  PLANTED,
  scenarioWarehouse,
  STEADY_MONTH,
} from "../helpers/scenarioWarehouse.js";

// A month after a month of history, with a daily rhythm, a weekly cycle of traffic and weekday-only
// machines, and the anomalies planted in it (test/helpers/generatedMonth.mjs).
const PRICES = parsePrices(MONTH_PRICES, "test prices");

let clean: DuckDBConnection;
let planted: DuckDBConnection;
beforeAll(async () => {
  clean = await scenarioWarehouse(STEADY_MONTH);
  planted = await scenarioWarehouse({ ...STEADY_MONTH, planted: PLANTED.map((p) => p.change) });
}, 120_000);
afterAll(() => {
  clean?.closeSync();
  planted?.closeSync();
});

describe("robustScore", () => {
  it.each([
    // value, baseline, score: (value − median) / max(1.4826 × MAD, 5% of the median, the absolute floor)
    [10, [1, 2, 3, 4, 5], (10 - 3) / 1.4826],
    [3, [1, 2, 3, 4, 5], 0],
    [13, [10, 10, 10, 10], 3 / 0.5], // a flat baseline: 5% of the median
    [0.5, [0, 0, 0], 0.5 / 0.01], // all zero: the absolute floor
  ])("scores %d against %j as %d", (value, baseline, score) => {
    expect(robustScore(value, baseline, 0.05, 0.01).score).toBeCloseTo(score, 9);
  });
});

describe("anomalies", () => {
  it("finds every planted anomaly, with its size and since when", { timeout: 120_000 }, async () => {
    const report = await anomalies(planted, { start: OCT_1, end: NOV_1, prices: PRICES });
    for (const p of PLANTED) {
      const hit = report.anomalies.find((a) => findsPlanted(a, p));
      expect(hit, `${p.change.kind} of ${p.level} ${p.id} ${p.metric}`).toBeDefined();
      if (hit!.granularity === "hour") expect(hit!.since).toBe(p.change.from);
    }
    const spike = report.anomalies.find(
      (a) => a.machineId === PLANTED[0]!.id && a.metric === "NU" && a.granularity === "hour",
    )!;
    expect(spike.points).toBe(4);
    expect(spike.ratio).toBeGreaterThan(8);
    // the burst's machines are called out as new, then as vanished
    expect(
      report.changes
        .filter((c) => c.machineId >= 99001)
        .map((c) => c.kind)
        .sort(),
    ).toEqual([...Array(6).fill("new"), ...Array(6).fill("vanished")]);
    expect(report.changes.find((c) => c.machineId === 99001 && c.kind === "new")!.at).toBe(OCT_1 + 16 * DAY);
  });

  it(
    "flags almost nothing on the same data without planted changes (under 0.1% of the scored points)",
    { timeout: 120_000 },
    async () => {
      const report = await anomalies(clean, { start: OCT_1, end: NOV_1, prices: PRICES });
      expect(report.scored).toBeGreaterThan(10_000);
      expect(report.flagged / report.scored).toBeLessThan(0.001);
    },
  );

  it("gives the same ids when run again", { timeout: 120_000 }, async () => {
    const a = await anomalies(planted, { start: OCT_1 + 9 * DAY, end: OCT_1 + 12 * DAY });
    const b = await anomalies(planted, { start: OCT_1 + 9 * DAY, end: OCT_1 + 12 * DAY });
    expect(a.anomalies.map((x) => x.id)).toEqual(b.anomalies.map((x) => x.id));
    expect(a.anomalies.map((x) => x.id)).toContain(`anomaly:machine:1:101:10102:NU:hour:2026-10-11T14:00:00Z`);
  });
});
