import { describe, expect, it } from "vitest";
import { accountHour, HOUR, memoryWarehouse, OCT_1, vm } from "../helpers/warehouse.js";
import {
  DEFAULT_UNITS,
  loadNames,
  loadPrices,
  loadUnits,
  parsePrices,
  parseUnits,
  pricesFor,
  UsageError,
} from "../../src/internal.js";
import { calculateFrom } from "../helpers/billFrom.js";

const fixtures = new URL("../fixtures/billing/", import.meta.url).pathname;

describe("units file", () => {
  it("publishes the docs/formulas.md constants as defaults", () => {
    expect(DEFAULT_UNITS).toMatchObject({
      mbPerGb: 1024,
      gbPerCu: 4,
      vcpusPerCu: 2,
      gbPerSu: 1024,
      iopsPerTu: 400,
      bytesPerNu: 1024 ** 4,
      hoursPerMonth: 720,
      windowsPattern: "windows",
    });
  });

  it("a YAML units file overrides the constants it names and keeps the others", async () => {
    const units = await loadUnits(`${fixtures}units.yaml`);
    expect(units).toMatchObject({ gbPerCu: 8, iopsPerTu: 500, vcpusPerCu: 2, billableStatuses: ["RUNNING", "PAUSED"] });
    // 16 GB / 1 vCPU: 16 / 8 = 2 CU with this file (4 CU with the defaults).
    const connection = await memoryWarehouse([accountHour(7, OCT_1, { 11: [vm(1, { mem: 16384, vcpus: 1 })] })]);
    expect(await calculateFrom(connection, { start: OCT_1, end: OCT_1 + HOUR }, { units })).toEqual({
      consumption: { CU: 2, SU: 0, TU: 0, NU: 0 },
    });
  });

  it("an unknown key is a usage error naming it", async () => {
    await expect(loadUnits(`${fixtures}units-unknown.json`)).rejects.toThrow(/unknown unit constant cpuPerCu/);
    expect(() => parseUnits({ gbPerCu: 0 })).toThrow(UsageError);
    expect(() => parseUnits({ windowsPattern: "win(" })).toThrow(/windowsPattern is not a regular expression/);
  });
});

describe("names file", () => {
  it.each(["names.csv", "names.json"])('names entities from %s, and unknown ones are ""', async (file) => {
    const names = await loadNames(`${fixtures}${file}`);
    const connection = await memoryWarehouse([accountHour(7, OCT_1, { 11: [vm(1)], 12: [vm(2)] })]);
    const r = await calculateFrom(connection, { start: OCT_1, end: OCT_1 + HOUR, accountId: 7 }, { names });
    if (!("account" in r)) throw new Error("expected an account");
    expect(r.account.name).toBe("Acme Corp");
    expect(r.account.cloudspaces["11"]!.name).toBe("Production, EU");
    expect(r.account.cloudspaces["12"]!.name).toBe("");
    expect(r.account.cloudspaces["12"]!.machines["2"]!.name).toBe("");
  });
});

describe("price list files", () => {
  it("reads YAML with monthly prices and account overrides", async () => {
    const list = await loadPrices(`${fixtures}prices.yaml`);
    expect(list.currency).toBe("EUR");
    expect(list.decimals).toBe(2);
    expect(list.prices.SU?.[0]).toMatchObject({ per: "month", text: "40" });
    expect(list.prices.CU?.[0]).toMatchObject({ per: "hour", text: "0.0125" });
    expect(list.accounts.get(8)?.CU?.[0]?.text).toBe("0.01");
  });

  it('takes an account\'s override as the README writes it, accounts: {"2": {prices: {CU: 0.04}}}, or bare', () => {
    const readme = parsePrices({
      currency: "EUR",
      prices: { CU: 0.05, SU: 0.01 },
      accounts: { "2": { prices: { CU: 0.04 } } },
    });
    const bare = parsePrices({ currency: "EUR", prices: { CU: 0.05, SU: 0.01 }, accounts: { "2": { CU: 0.04 } } });
    expect(pricesFor(readme, 2).CU?.text).toBe("0.04");
    expect(pricesFor(readme, 2).SU?.text).toBe("0.01");
    expect(pricesFor(readme, 1).CU?.text).toBe("0.05");
    expect(bare.accounts).toEqual(readme.accounts);
    expect(() =>
      parsePrices({ currency: "EUR", prices: { CU: 1 }, accounts: { "2": { prices: { CU: 0.04 }, SU: 1 } } }),
    ).toThrow(/accounts\.2: give \{ prices: \{ \.\.\. \} \} alone \(found prices, SU\)/);
  });

  it("reads JSON, with the currency's decimals", async () => {
    const list = await loadPrices(`${fixtures}prices.json`);
    expect(list.decimals).toBe(0);
  });
});
