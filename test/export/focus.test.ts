import { DuckDBInstance } from "@duckdb/node-api";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { accountHour, disk, gateway, HOUR, memoryWarehouse, nic, OCT_1, vm } from "../helpers/warehouse.js";
import { billingReport, DEFAULT_UNITS, Exact, FOCUS_COLUMNS, focusRows, parsePrices, toFocusCsv, writeFocusParquet, type CuRollup } from "../../src/index.js";

const TB = 1024 ** 4;
const hours = [0, 1].flatMap((h) => [
  accountHour(7, OCT_1 + h * HOUR, {
    11: [gateway([nic("external", 0.25 * TB, 0.25 * TB)]), vm(1, { mem: 5120, vcpus: 2, disks: [disk(1, 512, { total: 800 })], networks: [nic("external", 0, 0)] }), vm(2, { mem: 1024, vcpus: 6 })],
  }),
  accountHour(8, OCT_1 + h * HOUR, { 21: [vm(9, { mem: 2048, vcpus: 1 })] }),
]);
const prices = parsePrices({ currency: "EUR", provider: "Example Cloud", prices: { CU: "0.01", SU: { perMonth: 36 }, TU: "0.002", NU: 4, PIU: "0.005" }, accounts: { "8": { CU: "0.02" } } });
const params = { start: OCT_1, end: OCT_1 + 2 * HOUR };

async function rowsFor(cuRollup: CuRollup, perPeriod = false, units = DEFAULT_UNITS) {
  const connection = await memoryWarehouse(hours);
  const report = await billingReport(connection, params, { cuRollup, units }, { prices });
  const rows = [];
  for await (const batch of focusRows(report, connection, { perPeriod })) rows.push(...batch);
  return { report, rows, connection };
}

const sumCosts = (costs: Exact[]) => costs.reduce((a, b) => a.add(b), Exact.ZERO);

describe("FOCUS 1.2", () => {
  it.each([
    { cuRollup: "aggregate", perPeriod: false }, { cuRollup: "sum", perPeriod: false },
    { cuRollup: "aggregate", perPeriod: true }, { cuRollup: "sum", perPeriod: true },
  ] as const)("each account's rows add up to its amount due, to the cent ($cuRollup, per period $perPeriod)", async ({ cuRollup, perPeriod }) => {
    const { report, rows } = await rowsFor(cuRollup, perPeriod);
    // Account 7, 2 hours: CU 8 × 0.01 = 0.08 (aggregate), or 8.5 × 0.01 = 0.085 → 0.08 (sum: a half-cent tie, to even);
    // SU 1 SU-hour / 720 × 36 = 0.05; TU 4 × 0.002 = 0.008 → 0.01; NU 1 TiB × 4 = 4; PIU 4 × 0.005 = 0.02. Account 8: CU 1 × 0.02.
    const due = { "7": "4.16", "8": "0.02" };
    for (const [account, amount] of Object.entries(due)) {
      const billed = sumCosts(rows.filter((r) => r.BillingAccountId === account).map((r) => r.BilledCost as Exact));
      expect(billed.toDecimalString()).toBe(report.invoices!.find((i) => String(i.accountId) === account)!.amountDue.toDecimalString());
      expect(billed.toFixed(2)).toBe(amount);
    }
  });

  it.each([false, true])("a price that changes within the period prices each hour at the price then, and adds up to the invoice (per period %s)", async (perPeriod) => {
    const connection = await memoryWarehouse(hours);
    const dated = parsePrices({ currency: "EUR", provider: "Example Cloud", prices: { CU: ["0.01", { from: "2026-10-01T01:00Z", price: "0.03" }], TU: "0.002" } });
    const report = await billingReport(connection, params, {}, { prices: dated });
    const rows = [];
    for await (const batch of focusRows(report, connection, { perPeriod })) rows.push(...batch);
    // account 7: 4 CU-hours × 0.01 then 4 × 0.03: lines of 0.04 and 0.12; TU 0.008 → 0.01
    const cu = rows.filter((r) => r.x_Unit === "CU" && r.BillingAccountId === "7");
    expect(cu.map((r) => [r.ChargePeriodStart, r.ChargePeriodEnd, r.ListUnitPrice, costOf(r.BilledCost), r.SkuPriceId])).toEqual([
      ["2026-10-01T00:00:00Z", "2026-10-01T01:00:00Z", "0.01", "0.04", "CU-Hours"],
      ["2026-10-01T01:00:00Z", "2026-10-01T02:00:00Z", "0.03", "0.12", "CU-Hours/from-2026-10-01T01:00:00Z"],
    ]);
    const seven = report.invoices!.find((i) => i.accountId === 7)!;
    expect(seven.lines.map((l) => [l.unit, l.amount.toFixed(2)])).toEqual([["CU", "0.04"], ["CU", "0.12"], ["TU", "0.01"]]);
    expect(sumCosts(rows.filter((r) => r.BillingAccountId === "7").map((r) => r.BilledCost as Exact)).toFixed(2)).toBe("0.17");
  });

  it("the rounding of an invoice line is an Adjustment row of the account", async () => {
    const { rows } = await rowsFor("aggregate");
    // TU: 4 TU-hours × 0.002 = 0.008 exactly in the usage rows; the invoice line is 0.01: an adjustment of 0.002.
    const adjustment = rows.find((r) => r.ChargeCategory === "Adjustment" && r.x_Unit === "TU" && r.BillingAccountId === "7")!;
    expect(costOf(adjustment.BilledCost)).toBe("0.002");
    expect(adjustment).toMatchObject({ ConsumedQuantity: null, PricingQuantity: null, ResourceId: "account/7", ChargeFrequency: "One-Time" });
  });

  it("charges CU per account under aggregate and per VM under sum", async () => {
    const aggregate = (await rowsFor("aggregate")).rows.filter((r) => r.x_Unit === "CU" && r.ChargeCategory === "Usage");
    // Account 7 per hour: 6 GB / 8 vCPU → 4 CU (the VMs alone: 1.25 + 3 = 4.25); account 8: 0.5 CU.
    expect(aggregate.map((r) => [r.ResourceId, r.ConsumedQuantity, r.ChargePeriodStart])).toEqual([
      ["account/7", 4, "2026-10-01T00:00:00Z"], ["account/8", 0.5, "2026-10-01T00:00:00Z"],
      ["account/7", 4, "2026-10-01T01:00:00Z"], ["account/8", 0.5, "2026-10-01T01:00:00Z"],
    ]);
    const sum = (await rowsFor("sum")).rows.filter((r) => r.x_Unit === "CU" && r.ChargeCategory === "Usage" && r.ChargePeriodStart === "2026-10-01T00:00:00Z");
    expect(sum.map((r) => [r.ResourceId, r.ConsumedQuantity])).toEqual([
      ["account/7/cloudspace/11/machine/1", 1.25], ["account/7/cloudspace/11/machine/2", 3], ["account/8/cloudspace/21/machine/9", 0.5],
    ]);
  });

  it("fills the mandatory columns of a row the way FOCUS defines them", async () => {
    const { rows } = await rowsFor("aggregate");
    const su = rows.find((r) => r.x_Unit === "SU" && r.ChargePeriodStart === "2026-10-01T01:00:00Z")!;
    // 512 GB = 0.5 SU for one hour at 36 per SU-month: 0.5 / 720 × 36 = 0.025.
    expect({ ...su, BilledCost: costOf(su.BilledCost), ListCost: costOf(su.ListCost), EffectiveCost: costOf(su.EffectiveCost), ContractedCost: costOf(su.ContractedCost) }).toMatchObject({
      BilledCost: "0.025", ListCost: "0.025", EffectiveCost: "0.025", ContractedCost: "0.025",
      BillingAccountId: "7", BillingCurrency: "EUR", BillingPeriodStart: "2026-10-01T00:00:00Z", BillingPeriodEnd: "2026-10-01T02:00:00Z",
      ChargeCategory: "Usage", ChargeClass: null, ChargePeriodStart: "2026-10-01T01:00:00Z", ChargePeriodEnd: "2026-10-01T02:00:00Z",
      ConsumedQuantity: 0.5, ConsumedUnit: "SU-Hours", PricingQuantity: 0.5 / 720, PricingUnit: "SU-Months", ListUnitPrice: "36",
      ServiceCategory: "Storage", ProviderName: "Example Cloud", PublisherName: "Example Cloud", InvoiceIssuerName: "Example Cloud",
      ResourceId: "account/7/cloudspace/11/machine/1", ResourceType: "Virtual Machine", SubAccountId: "11",
    });
  });

  it("charges NU and the gateway's public IP per cloud space", async () => {
    const { rows } = await rowsFor("aggregate");
    const hour0 = rows.filter((r) => r.ChargePeriodStart === "2026-10-01T00:00:00Z" && (r.x_Unit === "NU" || r.x_Unit === "PIU"));
    expect(hour0.map((r) => [r.ResourceId, r.x_Unit, r.ConsumedQuantity])).toEqual([
      ["account/7/cloudspace/11", "NU", 0.5], ["account/7/cloudspace/11/gateway", "PIU", 1], ["account/7/cloudspace/11/machine/1", "PIU", 1],
    ]);
    // NU is a volume: TiB transferred, priced per TiB (4 EUR per TiB: 0.5 TiB is 2 EUR).
    const nu = hour0.find((r) => r.x_Unit === "NU")!;
    expect([nu.ConsumedUnit, nu.PricingUnit, nu.PricingQuantity, costOf(nu.BilledCost)]).toEqual(["TiB", "TiB", 0.5, "2"]);
  });

  it("per period has one row per entity and unit over the whole period", async () => {
    const { rows } = await rowsFor("aggregate", true);
    const cu = rows.filter((r) => r.x_Unit === "CU");
    expect(cu.map((r) => [r.ResourceId, r.ConsumedQuantity, r.ChargePeriodStart, r.ChargePeriodEnd])).toEqual([
      ["account/7", 8, "2026-10-01T00:00:00Z", "2026-10-01T02:00:00Z"], ["account/8", 1, "2026-10-01T00:00:00Z", "2026-10-01T02:00:00Z"],
    ]);
    expect(costOf(cu[1]!.BilledCost)).toBe("0.02");
  });

  it("CSV has the FOCUS header and timestamps as YYYY-MM-DDTHH:mm:ssZ", async () => {
    const { report, connection } = await rowsFor("aggregate");
    let csv = "";
    for await (const chunk of toFocusCsv(report, connection)) csv += chunk;
    const [header, first] = csv.split("\r\n");
    expect(header!.split(",")).toEqual(FOCUS_COLUMNS.map(([name]) => name));
    for (const name of ["BilledCost", "BillingAccountId", "BillingAccountName", "BillingCurrency", "BillingPeriodStart", "BillingPeriodEnd", "ChargeCategory", "ChargeClass", "ChargeDescription", "ChargePeriodStart", "ChargePeriodEnd", "ContractedCost", "EffectiveCost", "ListCost", "PricingQuantity", "PricingUnit", "ServiceCategory", "ServiceName", "ProviderName", "PublisherName", "InvoiceIssuerName", "ConsumedQuantity", "ConsumedUnit", "ResourceId", "ResourceName", "ResourceType", "SubAccountId", "SubAccountName", "ListUnitPrice"]) {
      expect(header!.split(",")).toContain(name);
    }
    expect(first).toMatch(/,2026-10-01T00:00:00Z,/);
  });

  it("Parquet keeps costs as decimals and timestamps as UTC instants", async () => {
    const { report, connection } = await rowsFor("aggregate");
    const file = join(await mkdtemp(join(tmpdir(), "cu-focus-")), "focus.parquet");
    await writeFocusParquet(report, connection, file);
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
      (await rowsFor("aggregate", true, units)).rows.find((r) => r.x_Unit === unit && r.ResourceId === resource && r.ChargeCategory === "Usage")!.ChargeDescription;
    expect(await description(DEFAULT_UNITS, "TU", "account/7/cloudspace/11/machine/1")).toContain("(400 IOPS of configured limit)");
    expect(await description(DEFAULT_UNITS, "CU", "account/7")).toContain("max(Σmem/1024/4, Σvcpus/2)");
    const own = { ...DEFAULT_UNITS, iopsPerTu: 300, gbPerCu: 3 };
    expect(await description(own, "TU", "account/7/cloudspace/11/machine/1")).toContain("(300 IOPS of configured limit)");
    expect(await description(own, "CU", "account/7")).toContain("max(Σmem/1024/3, Σvcpus/2)");
  });
});

function costOf(v: unknown): string {
  return (v as Exact).toDecimalString()!;
}
