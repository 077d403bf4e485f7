import type { DuckDBConnection } from "@duckdb/node-api";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bill,
  forecast,
  forecastToJson,
  parsePrices,
  type CalculateAccount,
  type Forecast,
} from "../../src/internal.js";
import { lagOf, latestHour } from "../../src/forecast/warehouseLag.js";
import { runCli } from "../helpers/runCli.js";
import { DAY, HOUR, OCT_1, SEP_1, scenarioWarehouse } from "../helpers/scenarioWarehouse.js";

const PRICES = parsePrices(
  { currency: "EUR", prices: { CU: 0.01, SU: { perMonth: 40 }, TU: 0.001, NU: 20 } },
  "test prices",
);
const NOV_1 = Date.UTC(2026, 10, 1) / 1000;
/** Two months of two accounts; weekday-only machines (a weekly cycle); two machines per cloud space added on Oct 15. */
const SCENARIO = {
  start: SEP_1,
  days: 61,
  accounts: 2,
  spaces: 2,
  machines: 3,
  seed: 4,
  weekdayMachines: 2,
  addedAt: OCT_1 + 14 * DAY,
  added: 2,
};
const STEADY = { ...SCENARIO, addedAt: undefined, added: undefined };

let changing: DuckDBConnection;
let steady: DuckDBConnection;
let whole: Forecast;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cloudunits-forecast-"));
  changing = await scenarioWarehouse(SCENARIO);
  steady = await scenarioWarehouse(STEADY);
  whole = await forecast(steady, { month: "2026-10", prices: PRICES });
}, 120_000);
afterAll(() => {
  changing?.closeSync();
  steady?.closeSync();
  rmSync(dir, { recursive: true, force: true });
});

const account = (f: Forecast, id: number | null) => f.entries.find((e) => e.accountId === id)!;
const error = (projected: number, actual: number) => Math.abs(projected / actual - 1);

describe("forecast", () => {
  it("counts as month to date exactly what billing bills of the hours held, and the invoice of those hours", async () => {
    const asOf = OCT_1 + 10 * DAY + 5 * HOUR;
    const f = await forecast(changing, { month: "2026-10", prices: PRICES, asOf });
    expect(f.entries.map((e) => e.accountId)).toEqual([null, 1, 2]);
    for (const id of [1, 2]) {
      const e = account(f, id);
      const held = await bill({
        source: { connection: changing },
        period: { start: OCT_1, end: asOf, accountId: id },
        prices: PRICES,
        produce: { calculate: true },
      });
      const { account: billed } = held.calculate as { account: CalculateAccount };
      expect(e.asOf).toBe(asOf);
      expect(e.hoursHeld).toBe(10 * 24 + 5);
      expect(e.hoursRemaining).toBe((NOV_1 - asOf) / HOUR);
      for (const u of ["CU", "SU", "TU", "NU"] as const)
        expect(e.monthToDate[u]).toBeCloseTo(billed.consumption[u]!, 6);
      expect(e.amount!.monthToDate.toFixed(2)).toBe(held.report.invoices![0]!.amountDue.toFixed(2));
      expect(e.amount!.low.toNumber()).toBeLessThanOrEqual(e.amount!.projected.toNumber());
      expect(e.amount!.high.toNumber()).toBeGreaterThanOrEqual(e.amount!.projected.toNumber());
    }
    // the environment's amounts are the sum of its accounts'
    expect(account(f, null).amount!.projected.toFixed(2)).toBe(
      account(f, 1).amount!.projected.add(account(f, 2).amount!.projected).toFixed(2),
    );
  });

  it("projects nothing once the month is held to its end: the projection is the month's bill", async () => {
    for (const e of whole.entries) {
      expect(e.hoursRemaining).toBe(0);
      expect(e.projected).toEqual(e.monthToDate);
      expect(e.amount!.projected.toFixed(2)).toBe(e.amount!.monthToDate.toFixed(2));
    }
  });

  it("projects a steady month with a weekly cycle within 2% from day 5, 10 and 20", async () => {
    for (const day of [5, 10, 20]) {
      const f = await forecast(steady, { month: "2026-10", prices: PRICES, asOf: OCT_1 + (day - 1) * DAY });
      for (const id of [1, 2]) {
        expect(
          error(account(f, id).projected.CU, account(whole, id).monthToDate.CU),
          `day ${day} account ${id} CU`,
        ).toBeLessThan(0.02);
        expect(
          error(account(f, id).amount!.projected.toNumber(), account(whole, id).amount!.monthToDate.toNumber()),
          `day ${day} account ${id} amount`,
        ).toBeLessThan(0.02);
      }
    }
  });

  it("carries machines added mid-month at their new level once a week of them is held", async () => {
    const actual = await forecast(changing, { month: "2026-10", prices: PRICES });
    const before = await forecast(changing, { month: "2026-10", prices: PRICES, asOf: OCT_1 + 9 * DAY });
    const after = await forecast(changing, { month: "2026-10", prices: PRICES, asOf: OCT_1 + 22 * DAY });
    for (const id of [1, 2]) {
      // before they come, nothing foretells them; a week after, the projection holds them
      expect(account(before, id).projected.CU).toBeLessThan(account(actual, id).monthToDate.CU * 0.9);
      expect(error(account(after, id).projected.CU, account(actual, id).monthToDate.CU)).toBeLessThan(0.03);
    }
  });

  it("refuses a bad month and an asOf off the hour", async () => {
    await expect(forecast(steady, { month: "2026-13" })).rejects.toThrow(/bad month: "2026-13"/);
    await expect(forecast(steady, { month: "2026-10", asOf: OCT_1 + 5 })).rejects.toThrow(/bad asOf/);
  });

  it("cloudunits forecast --format json gives the library's figures", { timeout: 120_000 }, async () => {
    const db = join(dir, "steady.duckdb");
    await scenarioWarehouse(STEADY, db);
    const prices = join(dir, "prices.json");
    (await import("node:fs")).writeFileSync(
      prices,
      JSON.stringify({ currency: "EUR", prices: { CU: 0.01, SU: { perMonth: 40 }, TU: 0.001, NU: 20 } }),
    );
    const now = { CLOUDUNITS_TEST_NOW: "2026-11-20T00:00:00Z" }; // the CLI's clock, and the library's nowEpoch
    const run = await runCli(
      ["forecast", "--db", db, "--month", "2026-10", "--prices", prices, "--format", "json"],
      now,
    );
    expect(run.code, run.stderr).toBe(0);
    const nowEpoch = Date.parse(now.CLOUDUNITS_TEST_NOW) / 1000;
    expect(JSON.parse(run.stdout)).toEqual(
      JSON.parse(forecastToJson({ ...whole, lag: lagOf((await latestHour(steady, nowEpoch))!, nowEpoch) })),
    );
    const text = await runCli(["forecast", "--db", db, "--month", "2026-10", "--prices", prices], now);
    expect(text.stdout).toContain("Method: The rest of the month repeats the last 7 days");
    // it shows CU, so it says by which rule (docs/formulas.md: every output that shows CU)
    expect(text.stdout).toContain(
      "\nCU rule: aggregate (each level's CU per hour is max(Σmem/1024/4, Σvcpus/2) of its own totals)\n",
    );
    expect(JSON.parse(run.stdout).cuRule).toMatch(/^CU rule: aggregate /);
    expect(text.stdout).toContain(`account 1: as of 2026-11-01T00:00:00Z, 744 h of the month held, 0 h to go`);
    const amount = account(whole, 1).amount!;
    // the amount due is the month to date's invoice; the month end is labelled a forecast, never "amount due"
    expect(text.stdout).toContain(
      `amount due so far  ${amount.monthToDate.toFixed(2)} EUR; forecast for the month end ${amount.projected.toFixed(2)} (`,
    );
  });
});
