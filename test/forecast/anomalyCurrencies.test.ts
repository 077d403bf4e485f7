import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isoUtc } from "../../src/base/time.js";
import { scenarioMachineId } from "../../src/generate/scenario.js";
import { runCli } from "../helpers/runCli.js";
import { DAY, HOUR, OCT_1, scenarioWarehouse, STEADY_MONTH } from "../helpers/scenarioWarehouse.js";

// The generated month of the anomaly tests (test/helpers/generatedMonth.mjs). Account 1 bills in
// EUR (the list's), account 2 in JPY (its own customer list). Only SU is priced, so a machine's
// cost in an hour is its SU-hours × the SU price: 0.1 EUR for account 1, 10 JPY for account 2.
// Each account has a machine whose disk triples for good on October 13: machine 10102 (EUR) from
// 03:00, machine 20201 (JPY) from 09:00. As of 10:00 both runs reach into the last 24 hours: SU ×3
// and cost ×3 (a flat disk: its cost is its SU × one price).
const PRICES = [
  "currency: EUR",
  "prices:",
  "  SU: 0.1",
  "customers:",
  '  "2":',
  "    currency: JPY",
  "    prices:",
  "      SU: 10",
  "",
].join("\n");
const EUR_MACHINE = scenarioMachineId(1, 1, 2);
const JPY_MACHINE = scenarioMachineId(2, 2, 1);
const OCT_13 = OCT_1 + 12 * DAY;
const AS_OF = OCT_13 + 10 * HOUR;

interface AlertJson {
  type: string;
  level: string;
  accountId: number;
  machineId: number | null;
  metric: string;
  granularity: string;
  unit: string;
  currency?: string;
  value: number;
  baseline: number;
  ratio: number;
  since: string;
  message: string;
}

let dir: string;
let db: string;
let prices: string;
let budgets: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cloudunits-anomaly-currencies-"));
  db = join(dir, "w.duckdb");
  prices = join(dir, "prices.yaml");
  budgets = join(dir, "budgets.yaml");
  writeFileSync(prices, PRICES);
  writeFileSync(budgets, "budgets:\n  - environment: true\n    unit: CU\n    quantity: 1000000000\n");
  await scenarioWarehouse(
    {
      ...STEADY_MONTH,
      planted: [
        { kind: "disk", accountId: 1, machineId: EUR_MACHINE, from: OCT_13 + 3 * HOUR, factor: 3 },
        { kind: "disk", accountId: 2, machineId: JPY_MACHINE, from: OCT_13 + 9 * HOUR, factor: 3 },
      ],
    },
    db,
    AS_OF,
  );
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("cost anomalies of accounts billed in EUR and JPY", () => {
  it(
    "`alerts` gives each cost anomaly in its account's currency, in its JSON and its words",
    { timeout: 120_000 },
    async () => {
      const run = await runCli(["alerts", "--db", db, "--budgets", budgets, "--prices", prices, "--format", "json"], {
        CLOUDUNITS_TEST_NOW: isoUtc(AS_OF + 15 * 60),
      });
      expect(run.code, run.stderr).toBe(7);
      const anomalies = (JSON.parse(run.stdout) as { alerts: AlertJson[] }).alerts.filter((a) => a.type === "anomaly");
      const hourly = (machineId: number, metric: string) =>
        anomalies.find((a) => a.machineId === machineId && a.metric === metric && a.granularity === "hour")!;
      for (const [machineId, currency, price, since] of [
        [EUR_MACHINE, "EUR", 0.1, "2026-10-13T03:00:00Z"],
        [JPY_MACHINE, "JPY", 10, "2026-10-13T09:00:00Z"],
      ] as const) {
        const su = hourly(machineId, "SU");
        const cost = hourly(machineId, "cost");
        expect([cost.unit, cost.currency, cost.since, su.since]).toEqual([currency, currency, since, since]);
        // the disk tripled: SU and cost 3 × their baselines; its cost is its SU-hours × the SU price
        expect([su.ratio, cost.ratio]).toEqual([3, 3]);
        expect(cost.value).toBeCloseTo(su.value * price, 9);
        expect(cost.baseline).toBeCloseTo(su.baseline * price, 9);
        expect(cost.message).toMatch(
          new RegExp(`cost up to [\\d.,]+ ${currency} in an hour, 3\\.00× its baseline of [\\d.,]+ ${currency}`),
        );
      }
      // every figure of money is in the currency of the account it belongs to: account 2's never in EUR
      expect(
        anomalies
          .filter((a) => a.metric === "cost")
          .map((a) => [a.accountId, a.unit, a.currency, / (EUR|JPY) /.exec(a.message)?.[1]])
          .filter(([accountId, ...said]) => said.some((c) => c !== (accountId === 2 ? "JPY" : "EUR"))),
      ).toEqual([]);
      expect(anomalies.filter((a) => a.metric !== "cost" && a.currency !== undefined)).toEqual([]);
    },
  );

  it("`forecast` adds the month's money up per currency, never the two", { timeout: 120_000 }, async () => {
    const run = await runCli(["forecast", "--db", db, "--month", "2026-10", "--prices", prices, "--format", "json"], {
      CLOUDUNITS_TEST_NOW: isoUtc(AS_OF + 15 * 60),
    });
    expect(run.code, run.stderr).toBe(0);
    const f = JSON.parse(run.stdout) as {
      amounts: { currency: string; accountIds: number[] }[];
      entries: { accountId: number | null; currency?: string; amount?: unknown }[];
    };
    expect(f.amounts.map((a) => [a.currency, a.accountIds])).toEqual([
      ["EUR", [1]],
      ["JPY", [2]],
    ]);
    expect(f.entries.map((e) => [e.accountId, e.currency, e.amount === undefined])).toEqual([
      [null, undefined, true],
      [1, "EUR", false],
      [2, "JPY", false],
    ]);
  });
});
