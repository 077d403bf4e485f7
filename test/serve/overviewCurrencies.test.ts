import { describe, expect, it } from "vitest";
import { parsePrices } from "../../src/internal.js";
import { overviewData } from "../../src/serve/overviewData.js";
import { overviewPage } from "../../src/serve/pages/overviewPage.js";
import type { Warehouse } from "../../src/store/types.js";
import { accountHour, HOUR, memoryWarehouse, OCT_1, vm } from "../helpers/warehouse.js";

// Account 7 bills in EUR (CU 0.01), account 8 in JPY (CU 100), hours 0, 1, 2 of October:
// account 7: 2 CU × 3 h × 0.01 = 0.06 EUR; account 8: 0.5 CU × 3 h × 100 = 150 JPY. No card adds them.
describe("the dashboard's overview of accounts billed in EUR and JPY", () => {
  it("shows one amount-due card per currency, naming its accounts, and no total of both", async () => {
    const connection = await memoryWarehouse(
      [0, 1, 2].flatMap((h) => [
        accountHour(7, OCT_1 + h * HOUR, { 11: [vm(1, { mem: 8192, vcpus: 2 })] }),
        accountHour(8, OCT_1 + h * HOUR, { 21: [vm(9, { mem: 2048, vcpus: 1 })] }),
      ]),
    );
    const prices = parsePrices(
      { currency: "EUR", prices: { CU: "0.01" }, customers: { "8": { currency: "JPY", prices: { CU: "100" } } } },
      "prices.yaml",
    );
    const store = { connection, close: () => connection.closeSync() } as unknown as Warehouse;
    // the month ended: November 2nd
    const data = await overviewData(store, { prices }, "2026-10", OCT_1 + 32 * 24 * HOUR);
    expect(data.amountDue).toBeUndefined();
    expect(data.amountsDue).toEqual([
      { amount: "0.06", currency: "EUR", accountIds: [7] },
      { amount: "150", currency: "JPY", accountIds: [8] },
    ]);
    const page = overviewPage(data);
    expect(page).toMatch(/id="amount-due-EUR">.*0\.06 EUR.*account 7;/s);
    expect(page).toMatch(/id="amount-due-JPY">.*150 JPY.*account 8;/s);
    expect(page).not.toContain('id="accounts-total"');
    expect(page).not.toContain("start with --prices FILE");
  });
});
