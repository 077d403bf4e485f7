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
import { scenarioCloudspaceId, scenarioMachineId, type PlantedChange } from "../../src/generate/scenario.js";
import { DAY, HOUR, OCT_1, SEP_1, scenarioWarehouse } from "./scenarioWarehouse.js";

const PRICES = parsePrices(
  { currency: "EUR", prices: { CU: 0.01, SU: { perMonth: 40 }, TU: 0.001, NU: 20 } },
  "test prices",
);
const NOV_1 = Date.UTC(2026, 10, 1) / 1000;
/** September as history, October evaluated: a daily rhythm, quieter weekends, weekday-only machines. */
const STEADY = { start: SEP_1, days: 61, accounts: 2, spaces: 2, machines: 3, seed: 9, weekdayMachines: 1 };

/** What is planted in October, and where `alerts` must find it: entity, figure, direction. */
const PLANTED: {
  change: PlantedChange;
  level: Anomaly["level"];
  id: number;
  metric: Anomaly["metric"];
  direction: Anomaly["direction"];
}[] = [
  // a machine whose traffic jumps ×15 for 4 hours
  {
    change: {
      kind: "traffic",
      accountId: 1,
      machineId: scenarioMachineId(1, 1, 2),
      from: OCT_1 + 10 * DAY + 14 * HOUR,
      hours: 4,
      factor: 15,
    },
    level: "machine",
    id: scenarioMachineId(1, 1, 2),
    metric: "NU",
    direction: "up",
  },
  // a machine whose disk triples, for good
  {
    change: {
      kind: "disk",
      accountId: 2,
      machineId: scenarioMachineId(2, 2, 1),
      from: OCT_1 + 12 * DAY + 9 * HOUR,
      factor: 3,
    },
    level: "machine",
    id: scenarioMachineId(2, 2, 1),
    metric: "SU",
    direction: "up",
  },
  // 6 large machines for a day in a cloud space
  {
    change: {
      kind: "burst",
      accountId: 2,
      cloudspaceId: scenarioCloudspaceId(2, 1),
      firstMachineId: 99001,
      count: 6,
      from: OCT_1 + 16 * DAY,
      hours: 24,
    },
    level: "cloudspace",
    id: scenarioCloudspaceId(2, 1),
    metric: "CU",
    direction: "up",
  },
  // an account's NU collapses to 5% for 12 hours from 03:00
  {
    change: { kind: "account-traffic", accountId: 1, from: OCT_1 + 20 * DAY + 3 * HOUR, hours: 12, factor: 0.05 },
    level: "account",
    id: 1,
    metric: "NU",
    direction: "down",
  },
];

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

const idOf = (a: Anomaly) =>
  a.level === "machine" ? a.machineId : a.level === "cloudspace" ? a.cloudspaceId : a.accountId;

let steady: DuckDBConnection;
let planted: DuckDBConnection;
beforeAll(async () => {
  steady = await scenarioWarehouse(STEADY);
  planted = await scenarioWarehouse({ ...STEADY, planted: PLANTED.map((p) => p.change) });
}, 120_000);
afterAll(() => {
  steady?.closeSync();
  planted?.closeSync();
});

/** The first hour as of which `alerts` raises each planted anomaly (undefined: never in October). */
function detections(runs: readonly { asOf: number; anomalies: Anomaly[] }[]): (number | undefined)[] {
  return PLANTED.map(
    (p) =>
      runs.find((r) =>
        r.anomalies.some(
          (a) =>
            a.level === p.level &&
            idOf(a) === p.id &&
            a.metric === p.metric &&
            a.direction === p.direction &&
            a.since <= p.change.from + DAY &&
            a.until > p.change.from,
        ),
      )?.asOf,
  );
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
        await scenarioWarehouse(STEADY, db, asOf);
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
