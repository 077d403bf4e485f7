import type { DuckDBConnection } from "@duckdb/node-api";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { alerts, parsePrices, type Anomaly } from "../../src/internal.js";
import { resolveOptions } from "../../src/billing/billingOptions.js";
import { alertsScan } from "../../src/forecast/alerts.js";
import { ANOMALY_LEVELS, ANOMALY_RULE, anomaliesOf, anomalyTableLevels } from "../../src/forecast/anomalies.js";
import { withStoredNames } from "../../src/forecast/storedNames.js";
import { usagePass } from "../../src/forecast/usagePass.js";
import { HourCosts, hourFigures, UsageTable } from "../../src/forecast/usageTable.js";
import { isoUtc } from "../../src/base/time.js";
import { runCli } from "../helpers/runCli.js";
import {
  DAY,
  findsPlanted,
  HOUR,
  MONTH_PRICES,
  NOV_1,
  OCT_1,
  PLANTED,
  scenarioWarehouse,
  SEP_1,
  STEADY_MONTH,
} from "../helpers/scenarioWarehouse.js";

// September as history, October evaluated: a daily rhythm, quieter weekends, weekday-only machines,
// and the anomalies planted in October where `alerts` must find them (test/helpers/generatedMonth.mjs).
const PRICES = parsePrices(MONTH_PRICES, "test prices");

/** Every hour's lines of a warehouse, `[start, end)`, as `alerts` reads them: one pass for a backtest of many hours. */
async function usageOf(connection: DuckDBConnection, start: number, end: number): Promise<UsageTable> {
  const options = resolveOptions(await withStoredNames(connection, undefined));
  const table = new UsageTable(start, end, anomalyTableLevels(ANOMALY_LEVELS), options.names);
  const costs = new HourCosts(PRICES, options.units, start, end);
  let scratch: Float64Array = new Float64Array(0);
  await usagePass(connection, {
    start,
    end,
    options,
    levelsAt: () => table.levels,
    onHour: (lines) => table.add(lines, (scratch = hourFigures(lines, costs, scratch))),
  });
  return table;
}

/** The anomalies `alerts` raises as of each hour of October (the hour after the last one held). */
function octoberAlerts(table: UsageTable): { asOf: number; anomalies: Anomaly[] }[] {
  const out: { asOf: number; anomalies: Anomaly[] }[] = [];
  for (let asOf = OCT_1 + HOUR; asOf <= NOV_1; asOf += HOUR) {
    out.push({
      asOf,
      anomalies: anomaliesOf(table, alertsScan(asOf, 24, ANOMALY_RULE.threshold, PRICES, undefined)).anomalies,
    });
  }
  return out;
}

let steady: DuckDBConnection;
let planted: DuckDBConnection;
beforeAll(async () => {
  steady = await scenarioWarehouse(STEADY_MONTH);
  planted = await scenarioWarehouse({ ...STEADY_MONTH, planted: PLANTED.map((p) => p.change) });
}, 120_000);
afterAll(() => {
  steady?.closeSync();
  planted?.closeSync();
});

/** The first hour as of which `alerts` raises each planted anomaly (undefined: never in October). */
function detections(runs: readonly { asOf: number; anomalies: Anomaly[] }[]): (number | undefined)[] {
  return PLANTED.map((p) => runs.find((r) => r.anomalies.some((a) => findsPlanted(a, p)))?.asOf);
}

describe("alerts' anomalies, backtested at every hour of a month", () => {
  it("raises none at any hour of a steady month, the day still running included", { timeout: 120_000 }, async () => {
    const runs = octoberAlerts(await usageOf(steady, SEP_1, NOV_1));
    expect(runs.length).toBe(31 * 24);
    // before, the day still running (its first 6 to 11 hours, the quiet ones) was compared with whole days: 2,368 anomalies, 137 of the 744 runs exited 7
    expect(
      runs
        .filter((r) => r.anomalies.length > 0)
        .map((r) => `${new Date(r.asOf * 1000).toISOString()}: ${r.anomalies.map((a) => a.id).join(", ")}`),
    ).toEqual([]);
  });

  it(
    "still finds every planted anomaly, within hours of its start, and keeps raising it while it reaches into the window",
    { timeout: 120_000 },
    async () => {
      const runs = octoberAlerts(await usageOf(planted, SEP_1, NOV_1));
      const found = detections(runs);
      const delays = found.map((asOf, k) => (asOf === undefined ? undefined : (asOf - PLANTED[k]!.change.from) / HOUR));
      // the jump, the disk and the burst as of their first hour; the collapse from 03:00 as soon as the day is scored (6 hours held), against the same hours of the days before
      expect(delays).toEqual([1, 1, 1, 3]);
      // the NU collapse from 03:00 is found while it lasts, by the day still running against the same hours of the days before
      const collapse = PLANTED[3]!.change;
      const during = runs.find((r) => r.asOf === collapse.from + 9 * HOUR)!;
      expect(
        during.anomalies.some(
          (a) => a.level === "account" && a.accountId === 1 && a.metric === "NU" && a.direction === "down",
        ),
      ).toBe(true);
    },
  );

  it("is what `alerts` itself raises as of those hours", { timeout: 120_000 }, async () => {
    const table = await usageOf(planted, SEP_1, NOV_1);
    for (const asOf of [OCT_1 + 20 * DAY + 9 * HOUR, OCT_1 + 22 * DAY + 9 * HOUR]) {
      const report = await alerts(planted, { budgets: [], prices: PRICES, asOf });
      const backtest = anomaliesOf(table, alertsScan(asOf, 24, ANOMALY_RULE.threshold, PRICES, undefined)).anomalies;
      expect(
        report.alerts
          .filter((a) => a.type === "anomaly")
          .map((a) => a.id)
          .sort(),
      ).toEqual(backtest.map((a) => a.id).sort());
    }
  });

  it(
    "gives cron nothing to mail from a steady warehouse at 09:00, 9 hours of the day held: `alerts` lists no anomaly and exits 0",
    { timeout: 180_000 },
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "cloudunits-backtest-"));
      try {
        const db = join(dir, "w.duckdb");
        const asOf = OCT_1 + 21 * DAY + 9 * HOUR;
        await scenarioWarehouse(STEADY_MONTH, db, asOf);
        const budgets = join(dir, "budgets.yaml");
        writeFileSync(budgets, "budgets:\n  - environment: true\n    unit: CU\n    quantity: 1000000000\n");
        // run a quarter of an hour after the hour, as the README's cron line does
        const run = await runCli(["alerts", "--db", db, "--budgets", budgets, "--format", "json"], {
          CLOUDUNITS_TEST_NOW: isoUtc(asOf + 15 * 60),
        });
        const printed = JSON.parse(run.stdout) as { asOf: string; alerts: { id: string }[] };
        expect(printed.asOf).toBe("2026-10-22T09:00:00Z");
        // before: 14 anomalies of the day running (NU and cost "down", about half their baselines), exit 7 every morning
        expect(printed.alerts.map((a) => a.id)).toEqual([]);
        expect(run.code, run.stderr).toBe(0);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
