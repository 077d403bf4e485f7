import { DuckDBInstance } from "@duckdb/node-api";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { accountHour, disk, gateway, HOUR, memoryWarehouse, nic, OCT_1, vm } from "../helpers/warehouse.js";
import {
  COST_DECIMALS,
  CU_ALLOCATION_METHOD,
  DEFAULT_UNITS,
  Exact,
  FOCUS_COLUMNS,
  focusRows,
  focusWarnings,
  makeNames,
  parsePrices,
  toFocusCsv,
  warehouseHourly,
  writeFocusParquet,
  type CuRollup,
} from "../../src/internal.js";
import { reportFrom } from "../helpers/billFrom.js";

const TB = 1024 ** 4;
const hours = [0, 1].flatMap((h) => [
  accountHour(7, OCT_1 + h * HOUR, {
    11: [
      gateway([nic("external", 0.25 * TB, 0.25 * TB)]),
      vm(1, { mem: 5120, vcpus: 2, disks: [disk(1, 512, { total: 800 })], networks: [nic("external", 0, 0)] }),
      vm(2, { mem: 1024, vcpus: 6 }),
    ],
  }),
  accountHour(8, OCT_1 + h * HOUR, { 21: [vm(9, { mem: 2048, vcpus: 1 })] }),
]);
const prices = parsePrices({
  currency: "EUR",
  provider: "Example Cloud",
  prices: { CU: "0.01", SU: { perMonth: 36 }, TU: "0.002", NU: 4, PIU: "0.005" },
  accounts: { "8": { CU: "0.02" } },
});
const params = { start: OCT_1, end: OCT_1 + 2 * HOUR };

async function rowsFor(cuRollup: CuRollup, perPeriod = false, units = DEFAULT_UNITS) {
  const connection = await memoryWarehouse(hours);
  const report = await reportFrom(connection, params, { cuRollup, units }, { prices });
  const rows = [];
  for await (const batch of focusRows(report, warehouseHourly(connection, report), { perPeriod })) rows.push(...batch);
  return { report, rows, connection };
}

const sumCosts = (costs: Exact[]) => costs.reduce((a, b) => a.add(b), Exact.ZERO);

describe("FOCUS 1.3", () => {
  it.each([
    { cuRollup: "aggregate", perPeriod: false },
    { cuRollup: "sum", perPeriod: false },
    { cuRollup: "aggregate", perPeriod: true },
    { cuRollup: "sum", perPeriod: true },
  ] as const)(
    "each account's rows add up to its amount due, to the cent ($cuRollup, per period $perPeriod)",
    async ({ cuRollup, perPeriod }) => {
      const { report, rows } = await rowsFor(cuRollup, perPeriod);
      // Account 7, 2 hours: CU 8 × 0.01 = 0.08 (aggregate), or 8.5 × 0.01 = 0.085 → 0.08 (sum: a half-cent tie, to even);
      // SU 1 SU-hour / 720 × 36 = 0.05; TU 4 × 0.002 = 0.008 → 0.01; NU 1 TiB × 4 = 4; PIU 4 × 0.005 = 0.02. Account 8: CU 1 × 0.02.
      const due = { "7": "4.16", "8": "0.02" };
      for (const [account, amount] of Object.entries(due)) {
        const billed = sumCosts(rows.filter((r) => r.BillingAccountId === account).map((r) => r.BilledCost as Exact));
        expect(billed.toDecimalString()).toBe(
          report.invoices!.find((i) => String(i.accountId) === account)!.amountDue.toDecimalString(),
        );
        expect(billed.toFixed(2)).toBe(amount);
      }
    },
  );

  it.each([false, true])(
    "a price that changes within the period prices each hour at the price then, and adds up to the invoice (per period %s)",
    async (perPeriod) => {
      const connection = await memoryWarehouse(hours);
      const dated = parsePrices({
        currency: "EUR",
        provider: "Example Cloud",
        prices: { CU: ["0.01", { from: "2026-10-01T01:00Z", price: "0.03" }], TU: "0.002" },
      });
      const report = await reportFrom(connection, params, {}, { prices: dated });
      const rows = [];
      for await (const batch of focusRows(report, warehouseHourly(connection, report), { perPeriod }))
        rows.push(...batch);
      // account 7: 4 CU-hours × 0.01 then 4 × 0.03 (split over its two VMs): lines of 0.04 and 0.12; TU 0.008 → 0.01
      const cu = rows.filter((r) => r.x_Unit === "CU" && r.BillingAccountId === "7" && r.ChargeCategory === "Usage");
      expect(cu.map((r) => [r.ChargePeriodStart, r.ChargePeriodEnd, r.ListUnitPrice, r.SkuPriceId])).toEqual([
        ["2026-10-01T00:00:00Z", "2026-10-01T01:00:00Z", "0.01", "CU-Hours"],
        ["2026-10-01T00:00:00Z", "2026-10-01T01:00:00Z", "0.01", "CU-Hours"],
        ["2026-10-01T01:00:00Z", "2026-10-01T02:00:00Z", "0.03", "CU-Hours/from-2026-10-01T01:00:00Z"],
        ["2026-10-01T01:00:00Z", "2026-10-01T02:00:00Z", "0.03", "CU-Hours/from-2026-10-01T01:00:00Z"],
      ]);
      expect(
        [0, 2].map(
          (k) =>
            Math.round(
              Number(sumCosts([cu[k]!.BilledCost as Exact, cu[k + 1]!.BilledCost as Exact]).toFixed(12)) * 1e6,
            ) / 1e6,
        ),
      ).toEqual([0.04, 0.12]);
      const seven = report.invoices!.find((i) => i.accountId === 7)!;
      expect(seven.lines.map((l) => [l.unit, l.amount.toFixed(2)])).toEqual([
        ["CU", "0.04"],
        ["CU", "0.12"],
        ["TU", "0.01"],
      ]);
      expect(
        sumCosts(rows.filter((r) => r.BillingAccountId === "7").map((r) => r.BilledCost as Exact)).toFixed(2),
      ).toBe("0.17");
    },
  );

  it("BilledCost as written in the CSV adds up to each amount due exactly: costs of 12 decimals, the adjustment from them", async () => {
    const connection = await memoryWarehouse(hours);
    // a price per CU-month: 4 CU-hours / 720 × 1 = 0.00555… an hour, and the VMs' shares 1.25/4.25 of it: no finite decimal
    const monthly = parsePrices({
      currency: "EUR",
      provider: "Example Cloud",
      prices: { CU: { perMonth: 1 }, SU: { perMonth: 36 }, TU: "0.002" },
    });
    const report = await reportFrom(connection, params, {}, { prices: monthly });
    let csv = "";
    for await (const chunk of toFocusCsv(report, warehouseHourly(connection, report))) csv += chunk;
    const [header, ...rows] = csv
      .trim()
      .split("\r\n")
      .map((r) => [...r.matchAll(/("(?:[^"]|"")*"|[^,]*)(,|$)/g)].map((m) => m[1]!).slice(0, FOCUS_COLUMNS.length));
    const at = (name: string) => header!.indexOf(name);
    for (const invoice of report.invoices!) {
      const costs = rows
        .filter((r) => r[at("BillingAccountId")] === String(invoice.accountId))
        .map((r) => r[at("BilledCost")]!);
      for (const cost of costs) expect(cost).toMatch(new RegExp(`^-?\\d+(\\.\\d{1,${COST_DECIMALS}})?$`));
      expect(sumCosts(costs.map((c) => Exact.parse(c)!)).toDecimalString()).toBe(invoice.amountDue.toDecimalString());
      // and the InvoiceId of these rows is the account's invoice
      expect(
        new Set(
          rows.filter((r) => r[at("BillingAccountId")] === String(invoice.accountId)).map((r) => r[at("InvoiceId")]),
        ),
      ).toEqual(new Set([`${invoice.accountId}/2026-10-01T00:00:00Z/2026-10-01T02:00:00Z`]));
    }
  });

  it("a VM's cost is its allocated cost on the statement, up to the rounding of each line (CU included)", async () => {
    const { report, rows } = await rowsFor("aggregate");
    for (const [i, line] of report.lines.entries()) {
      if (line.level !== "machine") continue;
      const id = `account/${line.accountId}/cloudspace/${line.cloudspaceId}/machine/${line.machineId}`;
      const mine = rows.filter((r) => (r.AllocatedResourceId ?? r.ResourceId) === id);
      const statement = report.money![i]!;
      for (const charge of statement.charges) {
        const focus = sumCosts(mine.filter((r) => r.x_Unit === charge.unit).map((r) => r.BilledCost as Exact));
        // each statement amount is the line's rounded amount split by the same weights: within a cent
        expect(Math.abs(Number(focus.toFixed(12)) - charge.amount.toNumber())).toBeLessThan(0.01);
      }
      expect(mine.some((r) => r.x_Unit === "CU")).toBe(true);
    }
  });

  it("has the columns FOCUS 1.3 adds, filled as it defines them", async () => {
    const { rows } = await rowsFor("aggregate");
    const su = rows.find((r) => r.x_Unit === "SU")!;
    expect(su).toMatchObject({
      ServiceProviderName: "Example Cloud",
      HostProviderName: "Example Cloud",
      ServiceSubcategory: "Block Storage",
      SkuMeter: "Storage Capacity",
      InvoiceId: "7/2026-10-01T00:00:00Z/2026-10-01T02:00:00Z",
      AllocatedMethodId: null,
      AllocatedResourceId: null,
    });
    expect(JSON.parse(su.SkuPriceDetails as string)).toEqual({ x_Unit: "SU", x_PricingUnit: "SU-Months" });
    const adjustment = rows.find((r) => r.ChargeCategory === "Adjustment")!;
    expect([adjustment.SkuPriceId, adjustment.SkuPriceDetails]).toEqual([null, null]);
  });

  it("warns when the provider is not the invoice issuer (every charge then reads as a marketplace charge), and not otherwise", async () => {
    const { report } = await rowsFor("aggregate");
    expect(focusWarnings(report)).toEqual([]);
    const resold = {
      ...report,
      prices: parsePrices(
        { currency: "EUR", provider: "Example Cloud", invoiceIssuer: "Reseller BV", prices: { CU: 1 } },
        "p.yaml",
      ),
    };
    expect(focusWarnings(resold).map((w) => [w.code, w.message])).toEqual([
      [
        "MARKETPLACE_CHARGES",
        expect.stringContaining('provider "Example Cloud" is not its invoice issuer "Reseller BV"'),
      ],
    ]);
  });

  it("a file made for one account holds that account alone: no other account's id or name", async () => {
    const connection = await memoryWarehouse(hours);
    const names = makeNames([
      { kind: "account", id: 7, name: "Lumière SA" },
      { kind: "account", id: 8, name: "Other Corp" },
    ]);
    const report = await reportFrom(connection, { ...params, accountId: 7 }, { names }, { prices });
    let csv = "";
    for await (const chunk of toFocusCsv(report, warehouseHourly(connection, report))) csv += chunk;
    expect(csv).toContain("Lumière SA");
    expect(csv).not.toContain("Other Corp");
    expect(csv).not.toMatch(/account\/8|(^|,)8(,|$)/m);
  });

  it("the rounding of an invoice line is an Adjustment row of the account", async () => {
    const { rows } = await rowsFor("aggregate");
    // TU: 4 TU-hours × 0.002 = 0.008 exactly in the usage rows; the invoice line is 0.01: an adjustment of 0.002.
    const adjustment = rows.find(
      (r) => r.ChargeCategory === "Adjustment" && r.x_Unit === "TU" && r.BillingAccountId === "7",
    )!;
    expect(costOf(adjustment.BilledCost)).toBe("0.002");
    expect(adjustment).toMatchObject({
      ConsumedQuantity: null,
      PricingQuantity: null,
      ResourceId: "account/7",
      ChargeFrequency: "One-Time",
    });
  });

  it("charges the account's CU split over its VMs by allocated CU under aggregate (FOCUS split cost allocation), and per VM under sum", async () => {
    const aggregate = (await rowsFor("aggregate")).rows.filter(
      (r) => r.x_Unit === "CU" && r.ChargeCategory === "Usage",
    );
    // Account 7 per hour: 6 GB / 8 vCPU → 4 CU (the VMs alone: 1.25 + 3 = 4.25), allocated 4 × 1.25/4.25 and 4 × 3/4.25; account 8: 0.5 CU.
    const vm1 = "account/7/cloudspace/11/machine/1",
      vm2 = "account/7/cloudspace/11/machine/2",
      vm9 = "account/8/cloudspace/21/machine/9";
    expect(
      aggregate.map((r) => [r.ResourceId, r.AllocatedResourceId, r.ConsumedQuantity, r.ChargePeriodStart]),
    ).toEqual([
      ["account/7", vm1, 4 * (1.25 / 4.25), "2026-10-01T00:00:00Z"],
      ["account/7", vm2, 4 * (3 / 4.25), "2026-10-01T00:00:00Z"],
      ["account/8", vm9, 0.5, "2026-10-01T00:00:00Z"],
      ["account/7", vm1, 4 * (1.25 / 4.25), "2026-10-01T01:00:00Z"],
      ["account/7", vm2, 4 * (3 / 4.25), "2026-10-01T01:00:00Z"],
      ["account/8", vm9, 0.5, "2026-10-01T01:00:00Z"],
    ]);
    // an allocated charge keeps the dimensions of its origin, the account's CU charge, and names the method
    expect(aggregate[0]).toMatchObject({
      ResourceType: "Account",
      SubAccountId: null,
      x_Level: "account",
      AllocatedMethodId: CU_ALLOCATION_METHOD,
      AllocatedTags: null,
    });
    const sum = (await rowsFor("sum")).rows.filter(
      (r) => r.x_Unit === "CU" && r.ChargeCategory === "Usage" && r.ChargePeriodStart === "2026-10-01T00:00:00Z",
    );
    expect(sum.map((r) => [r.ResourceId, r.ConsumedQuantity])).toEqual([
      ["account/7/cloudspace/11/machine/1", 1.25],
      ["account/7/cloudspace/11/machine/2", 3],
      ["account/8/cloudspace/21/machine/9", 0.5],
    ]);
  });

  it("fills the mandatory columns of a row the way FOCUS defines them", async () => {
    const { rows } = await rowsFor("aggregate");
    const su = rows.find((r) => r.x_Unit === "SU" && r.ChargePeriodStart === "2026-10-01T01:00:00Z")!;
    // 512 GB = 0.5 SU for one hour at 36 per SU-month: 0.5 / 720 × 36 = 0.025.
    expect({
      ...su,
      BilledCost: costOf(su.BilledCost),
      ListCost: costOf(su.ListCost),
      EffectiveCost: costOf(su.EffectiveCost),
      ContractedCost: costOf(su.ContractedCost),
    }).toMatchObject({
      BilledCost: "0.025",
      ListCost: "0.025",
      EffectiveCost: "0.025",
      ContractedCost: "0.025",
      BillingAccountId: "7",
      BillingCurrency: "EUR",
      BillingPeriodStart: "2026-10-01T00:00:00Z",
      BillingPeriodEnd: "2026-10-01T02:00:00Z",
      ChargeCategory: "Usage",
      ChargeClass: null,
      ChargePeriodStart: "2026-10-01T01:00:00Z",
      ChargePeriodEnd: "2026-10-01T02:00:00Z",
      ConsumedQuantity: 0.5,
      ConsumedUnit: "SU-Hours",
      PricingQuantity: 0.5 / 720,
      PricingUnit: "SU-Months",
      ListUnitPrice: "36",
      ServiceCategory: "Storage",
      ProviderName: "Example Cloud",
      PublisherName: "Example Cloud",
      InvoiceIssuerName: "Example Cloud",
      ResourceId: "account/7/cloudspace/11/machine/1",
      ResourceType: "Virtual Machine",
      SubAccountId: "11",
    });
  });

  it("charges NU and the gateway's public IP per cloud space", async () => {
    const { rows } = await rowsFor("aggregate");
    const hour0 = rows.filter(
      (r) => r.ChargePeriodStart === "2026-10-01T00:00:00Z" && (r.x_Unit === "NU" || r.x_Unit === "PIU"),
    );
    expect(hour0.map((r) => [r.ResourceId, r.x_Unit, r.ConsumedQuantity])).toEqual([
      ["account/7/cloudspace/11", "NU", 0.5],
      ["account/7/cloudspace/11/gateway", "PIU", 1],
      ["account/7/cloudspace/11/machine/1", "PIU", 1],
    ]);
    // NU is a volume: TiB transferred, priced per TiB (4 EUR per TiB: 0.5 TiB is 2 EUR).
    const nu = hour0.find((r) => r.x_Unit === "NU")!;
    expect([nu.ConsumedUnit, nu.PricingUnit, nu.PricingQuantity, costOf(nu.BilledCost)]).toEqual([
      "TiB",
      "TiB",
      0.5,
      "2",
    ]);
  });

  it("per period has one row per entity and unit over the whole period", async () => {
    const { rows } = await rowsFor("aggregate", true);
    const cu = rows.filter((r) => r.x_Unit === "CU" && r.ChargeCategory === "Usage");
    expect(
      cu.map((r) => [r.ResourceId, r.AllocatedResourceId, r.ConsumedQuantity, r.ChargePeriodStart, r.ChargePeriodEnd]),
    ).toEqual([
      [
        "account/7",
        "account/7/cloudspace/11/machine/1",
        2 * 4 * (1.25 / 4.25),
        "2026-10-01T00:00:00Z",
        "2026-10-01T02:00:00Z",
      ],
      [
        "account/7",
        "account/7/cloudspace/11/machine/2",
        2 * 4 * (3 / 4.25),
        "2026-10-01T00:00:00Z",
        "2026-10-01T02:00:00Z",
      ],
      ["account/8", "account/8/cloudspace/21/machine/9", 1, "2026-10-01T00:00:00Z", "2026-10-01T02:00:00Z"],
    ]);
    expect(costOf(cu[2]!.BilledCost)).toBe("0.02");
  });

  it("CSV has the FOCUS header and timestamps as YYYY-MM-DDTHH:mm:ssZ", async () => {
    const { report, connection } = await rowsFor("aggregate");
    let csv = "";
    for await (const chunk of toFocusCsv(report, warehouseHourly(connection, report))) csv += chunk;
    const [header, first] = csv.split("\r\n");
    expect(header!.split(",")).toEqual(FOCUS_COLUMNS.map(([name]) => name));
    for (const name of [
      "BilledCost",
      "BillingAccountId",
      "BillingAccountName",
      "BillingCurrency",
      "BillingPeriodStart",
      "BillingPeriodEnd",
      "ChargeCategory",
      "ChargeClass",
      "ChargeDescription",
      "ChargePeriodStart",
      "ChargePeriodEnd",
      "ContractedCost",
      "EffectiveCost",
      "ListCost",
      "PricingQuantity",
      "PricingUnit",
      "ServiceCategory",
      "ServiceName",
      "ProviderName",
      "PublisherName",
      "InvoiceIssuerName",
      "ConsumedQuantity",
      "ConsumedUnit",
      "ResourceId",
      "ResourceName",
      "ResourceType",
      "SubAccountId",
      "SubAccountName",
      "ListUnitPrice",
    ]) {
      expect(header!.split(",")).toContain(name);
    }
    expect(first).toMatch(/,2026-10-01T00:00:00Z,/);
  });

  it("Parquet keeps costs as decimals and timestamps as UTC instants", async () => {
    const { report, connection } = await rowsFor("aggregate");
    const file = join(await mkdtemp(join(tmpdir(), "cu-focus-")), "focus.parquet");
    await writeFocusParquet(report, warehouseHourly(connection, report), file);
    const db = await (await DuckDBInstance.create(":memory:")).connect();
    const reader = await db.runAndReadAll(
      `SELECT typeof(any_value(BilledCost)) AS t, sum(BilledCost)::VARCHAR AS total, min(epoch(ChargePeriodStart))::BIGINT AS first, count(*) AS n FROM read_parquet('${file}')`,
    );
    const [row] = reader.getRowObjectsJS();
    expect(row!.t).toBe("DECIMAL(38,12)");
    expect(Number(row!.first)).toBe(OCT_1);
    expect(row!.total).toBe(`${report.amountDue!.toFixed(2)}0000000000`);
  });

  it("describes a charge with the constants of the units in use, not the published ones", async () => {
    const description = async (units: typeof DEFAULT_UNITS, unit: string, resource: string) =>
      (await rowsFor("aggregate", true, units)).rows.find(
        (r) => r.x_Unit === unit && r.ResourceId === resource && r.ChargeCategory === "Usage",
      )!.ChargeDescription;
    expect(await description(DEFAULT_UNITS, "TU", "account/7/cloudspace/11/machine/1")).toContain(
      "(400 IOPS of configured limit)",
    );
    expect(await description(DEFAULT_UNITS, "CU", "account/7")).toContain("max(Σmem/1024/4, Σvcpus/2)");
    const own = { ...DEFAULT_UNITS, iopsPerTu: 300, gbPerCu: 3 };
    expect(await description(own, "TU", "account/7/cloudspace/11/machine/1")).toContain(
      "(300 IOPS of configured limit)",
    );
    expect(await description(own, "CU", "account/7")).toContain("max(Σmem/1024/3, Σvcpus/2)");
  });
});

function costOf(v: unknown): string {
  return (v as Exact).toDecimalString()!;
}
