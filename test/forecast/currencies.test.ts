import type { DuckDBConnection } from "@duckdb/node-api";
import { beforeAll, describe, expect, it } from "vitest";
import { alerts, forecast, parseBudgets, parsePrices, top, type BudgetAlert } from "../../src/internal.js";
import { forecastToJson } from "../../src/export/forecastReport.js";
import { topToJson } from "../../src/export/topReport.js";
import { Exact } from "../../src/billing/exact.js";
import { accountHour, HOUR, memoryWarehouse, OCT_1, vm } from "../helpers/warehouse.js";

// Account 7 bills in EUR (the list's: CU 0.01), account 8 in JPY (its own: CU 100), hours 0, 1, 2 of October.
// Account 7: 8 GB / 2 vCPUs → 2 CU per hour → 0.02 EUR an hour; account 8: 2 GB / 1 vCPU → 0.5 CU → 50 JPY an hour.
// As of 03:00 (3 hours held, less than a week: the average hour repeated over the 744 − 3 = 741 hours to go):
// account 7: month to date 3 × 0.02 = 0.06 EUR, month end 0.06 + 741 × 0.02 = 14.88 EUR;
// account 8: month to date 3 × 50 = 150 JPY, month end 150 + 741 × 50 = 37200 JPY. Never 0.06 + 150.
const AS_OF = OCT_1 + 3 * HOUR;
const PRICES = parsePrices(
  { currency: "EUR", prices: { CU: "0.01" }, customers: { "8": { currency: "JPY", prices: { CU: "100" } } } },
  "prices.yaml",
);
let connection: DuckDBConnection;

beforeAll(async () => {
  connection = await memoryWarehouse(
    [0, 1, 2].flatMap((h) => [
      accountHour(7, OCT_1 + h * HOUR, { 11: [vm(1, { mem: 8192, vcpus: 2 })] }),
      accountHour(8, OCT_1 + h * HOUR, { 21: [vm(9, { mem: 2048, vcpus: 1 })] }),
    ]),
  );
});

describe("money of accounts billed in EUR and JPY", () => {
  it("forecast JSON: each account's amount in its currency, the environment's per currency, never added", async () => {
    const f = JSON.parse(forecastToJson(await forecast(connection, { month: "2026-10", prices: PRICES, asOf: AS_OF })));
    const entry = (id: number | null) => f.entries.find((e: { accountId: number | null }) => e.accountId === id);
    expect
      .soft([entry(7).currency, entry(7).amount.monthToDate, entry(7).amount.projected])
      .toEqual(["EUR", "0.06", "14.88"]);
    expect
      .soft([entry(8).currency, entry(8).amount.monthToDate, entry(8).amount.projected])
      .toEqual(["JPY", "150", "37200"]);
    expect(entry(null).amount).toBeUndefined();
    expect(
      f.amounts.map((t: Record<string, unknown>) => [t.currency, t.accountIds, t.monthToDate, t.projected]),
    ).toEqual([
      ["EUR", [7], "0.06", "14.88"],
      ["JPY", [8], "150", "37200"],
    ]);
  });

  it.each([
    // budget, alert id, unit, value, counted-out accounts
    [
      { environment: true, amount: 10, thresholds: [50, 100] },
      "budget:environment:2026-10:amount=10:100:forecast",
      "EUR",
      14.88,
      true,
    ],
    [
      { account: 8, amount: 30000, thresholds: [100] },
      "budget:account:8:2026-10:amount=30000:100:forecast",
      "JPY",
      37200,
      false,
    ],
  ])("budget %j: alert %s in %s, value %d", async (budget, id, unit, value, leftOut) => {
    const report = await alerts(connection, {
      budgets: parseBudgets({ budgets: [budget] }),
      prices: PRICES,
      asOf: AS_OF,
    });
    const alert = report.alerts.find((a): a is BudgetAlert => a.type === "budget")!;
    // a budget of an amount: its figures are money, Exacts
    expect([alert.id, alert.unit, alert.kind, alert.value instanceof Exact, Number(alert.value)]).toEqual([
      id,
      unit,
      "amount",
      true,
      value,
    ]);
    if (leftOut) {
      // the environment's budget is in EUR: account 8's yen are left out, and the alert and the report say so
      expect(alert.leftOut).toEqual([{ currency: "JPY", accountIds: [8] }]);
      expect(alert.message).toContain("not counted: account 8 (billed in JPY)");
      expect(report.warnings?.[0]).toContain("not counted: account 8 (billed in JPY)");
    } else expect(report.warnings).toBeUndefined();
  });

  it("top by cost JSON: each currency ranked apart, each row with its currency", async () => {
    const t = JSON.parse(
      topToJson(
        await top(connection, { start: OCT_1, end: OCT_1 + 3 * HOUR, by: "cost", level: "account", prices: PRICES }),
      ),
    );
    expect(t.currencies).toEqual(["EUR", "JPY"]);
    expect(t.rows.map((r: Record<string, unknown>) => [r.rank, r.accountId, r.currency, r.value])).toEqual([
      [1, 7, "EUR", 0.06],
      [1, 8, "JPY", 150],
    ]);
  });
});
