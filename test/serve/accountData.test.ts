import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { bill, monthPeriod, openWarehouse, parsePrices, type Warehouse } from "../../src/internal.js";
import { accountData } from "../../src/serve/accountData.js";
import { NotFoundError } from "../../src/serve/notFound.js";
import { dashboardFixture, FIXTURE_MONTHS, type DashboardFixture } from "./dashboardFixture.js";

// An account page bills its month cut at every midnight for the account's days alone (its cloud
// spaces and machines summed over the month, not by day). Its figures, money and days must be
// those of the bill whose days hold every level, on data with hours missing, machines resized
// and halted, a price change in the month and accounts billed in two currencies.

/** EUR, CU's price up on 2026-10-15 at 06:00; account 2 a customer of its own billed in JPY. */
const PRICES = parsePrices(
  {
    currency: "EUR",
    prices: { CU: ["0.05", { from: "2026-10-15T06:00Z", price: "0.07" }], SU: { perMonth: "40" } },
    customers: { "2": { currency: "JPY", prices: { CU: "8", SU: { perMonth: "6000" } } } },
  },
  "prices.yaml",
);

let fixture: DashboardFixture;
let store: Warehouse;
beforeAll(async () => {
  fixture = await dashboardFixture();
  vi.spyOn(Date, "now").mockReturnValue(Date.UTC(2026, 11, 3, 12)); // the reports' time, and the clock: both months held
  store = await openWarehouse({ db: fixture.db });
}, 120_000);
afterAll(() => {
  store?.close();
  vi.restoreAllMocks();
  fixture?.remove();
});

describe("the account page's month", () => {
  it("has the figures, money and days of the bill whose days hold every level, in EUR and in JPY", async () => {
    const currencies = new Set<string>();
    for (const month of FIXTURE_MONTHS) {
      for (const accountId of [1, 2, 3]) {
        const data = await accountData(store, { prices: PRICES }, accountId, month);
        const { start } = monthPeriod(month);
        const every = await bill({
          source: store,
          period: { start, end: data.month.heldUntil ?? data.month.end, accountId },
          prices: PRICES,
          produce: { days: true },
          skipBad: true,
          allowEmpty: true,
        });
        expect(data.report.lines).toEqual(every.report.lines); // to the bit
        expect(JSON.stringify(data.report)).toBe(JSON.stringify(every.report)); // the money, invoices, data quality
        expect(data.days).toEqual(
          every.days!.map((d) => ({
            start: d.start,
            quantities: d.lines.find((l) => l.level === "account")!.quantities,
          })),
        );
        // a machine of the page: its figures over the month, as the bill's line
        const machine = every.report.lines.find((l) => l.level === "machine")!;
        const row = data.machines.find((r) => r.level === "machine" && r.machineId === machine.machineId)!;
        expect([row.sampleHours, row.cuAllocated, row.quantities.CU]).toEqual([
          machine.sampleHours,
          machine.cuAllocated,
          machine.quantities.CU,
        ]);
        currencies.add(data.invoice!.currency);
      }
    }
    expect([...currencies].sort()).toEqual(["EUR", "JPY"]);
  });

  it("names the months held and refuses an account the warehouse does not hold", async () => {
    const data = await accountData(store, { prices: PRICES }, 3, undefined);
    expect(data.months.map((m) => m.month)).toEqual(FIXTURE_MONTHS);
    expect(data.month.month).toBe("2026-11");
    // November is held to the 10th (the fixture's last hour: 2026-11-09 23:00): its figures are to date
    expect(data.month.heldUntil).toBe(Date.UTC(2026, 10, 10) / 1000);
    await expect(accountData(store, { prices: PRICES }, 99, undefined)).rejects.toThrow(NotFoundError);
    await expect(accountData(store, { prices: PRICES }, 3, "2026-09")).rejects.toThrow(
      /holds the months 2026-10 to 2026-11/,
    );
  });
});
