import { DuckDBInstance } from "@duckdb/node-api";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { setClock } from "../../src/base/clock.js";
import { parsePrices, serveDashboard, type Dashboard } from "../../src/internal.js";
import { appendAccountHours } from "../../src/store/append.js";
import { SCHEMA_SQL } from "../../src/store/schema.js";
import { overviewData } from "../../src/serve/overviewData.js";
import { overviewPage } from "../../src/serve/pages/overviewPage.js";
import type { Warehouse } from "../../src/store/types.js";
import { accountHour, HOUR, memoryWarehouse, OCT_1, vm } from "../helpers/warehouse.js";

// Account 7 bills in EUR (CU 0.01), account 8 in JPY (CU 100), hours 0, 1, 2 of October:
// account 7: 2 CU × 3 h × 0.01 = 0.06 EUR; account 8: 0.5 CU × 3 h × 100 = 150 JPY. No card adds them.
/** Hours 0, 1, 2 of October of account 7 (a 2 CU machine) and account 8 (a 0.5 CU machine). */
const HOURS = [0, 1, 2].flatMap((h) => [
  accountHour(7, OCT_1 + h * HOUR, { 11: [vm(1, { mem: 8192, vcpus: 2 })] }),
  accountHour(8, OCT_1 + h * HOUR, { 21: [vm(9, { mem: 2048, vcpus: 1 })] }),
]);
/** EUR by default (CU 0.01), account 8 a customer of its own billed in JPY (CU 100). */
const PRICES = parsePrices(
  { currency: "EUR", prices: { CU: "0.01" }, customers: { "8": { currency: "JPY", prices: { CU: "100" } } } },
  "prices.yaml",
);

/** A warehouse file holding `HOURS`, in a new folder. */
async function warehouseFile(): Promise<{ db: string; remove: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), "cloudunits-currencies-"));
  const db = join(dir, "warehouse.duckdb");
  const instance = await DuckDBInstance.create(db);
  const connection = await instance.connect();
  await connection.run(SCHEMA_SQL);
  await appendAccountHours(connection, HOURS);
  await connection.run("CHECKPOINT");
  connection.closeSync();
  instance.closeSync();
  return { db, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

describe("the dashboard's overview of accounts billed in EUR and JPY", () => {
  let dashboard: Dashboard | undefined;
  let remove = () => {};
  afterEach(async () => {
    await dashboard?.close();
    dashboard = undefined;
    setClock(undefined);
    remove();
  });

  it("shows, while the month runs, one forecast card per currency, naming its accounts, and no forecast of both added", async () => {
    // now: 2026-10-01 03:01Z; hours 0-2 held, so 31 × 24 - 3 = 741 h to go; every hour alike, so the range is the figure:
    // account 7: 0.06 EUR so far + 741 h × 2 CU × 0.01 = 0.06 + 14.82 = 14.88 EUR
    // account 8: 150 JPY so far + 741 h × 0.5 CU × 100 = 150 + 37,050 = 37,200 JPY
    setClock(OCT_1 + 3 * HOUR + 60);
    const file = await warehouseFile();
    remove = file.remove;
    dashboard = await serveDashboard({ db: file.db, port: 0, prices: PRICES, precompute: false });
    const answer = await fetch(`${dashboard.url}?month=2026-10`);
    expect(answer.status).toBe(200);
    const page = await answer.text();
    expect(page).toMatch(
      /id="forecast-in-EUR"><div class="label">Forecast for the month's end in EUR, account 7, 2026-10<\/div><div class="value">14\.88 EUR<\/div>/,
    );
    expect(page).toMatch(
      /id="forecast-in-JPY"><div class="label">Forecast for the month's end in JPY, account 8, 2026-10<\/div><div class="value">37,200 JPY<\/div>/,
    );
    expect(page).toMatch(/id="forecast-in-JPY">.*for the 741 h to go; range 37,200 to 37,200 JPY/s);
    expect(page).not.toContain('id="forecast"');
    // the amounts so far, per currency, beside them
    expect(page).toMatch(/id="amount-due-EUR">.*0\.06 EUR/s);
    expect(page).toMatch(/id="amount-due-JPY">.*150 JPY/s);
  });

  it("shows one amount-due card per currency, naming its accounts, and no total of both", async () => {
    const connection = await memoryWarehouse(HOURS);
    const prices = PRICES;
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
