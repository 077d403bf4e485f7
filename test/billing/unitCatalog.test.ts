import ExcelJS from "exceljs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DuckDBConnection } from "@duckdb/node-api";
import { accountHour, disk, gateway, HOUR, memoryWarehouse, nic, OCT_1, vm } from "../helpers/warehouse.js";
import {
  DEFAULT_UNITS,
  Exact,
  focusRows,
  parsePrices,
  warehouseHourly,
  toBillingCsv,
  toBillingText,
  UNIT_NAMES,
  unitsParagraph,
  type BillingReport,
  type FocusRow,
  type UnitName,
} from "../../src/internal.js";
import { writeAccountXlsx } from "../../src/export/writeBillingXlsx.js";
import {
  allUnitsText,
  catalogUnits,
  registerUnit,
  UNIT_CATALOG,
  unitDef,
  type UnitDef,
  type VmHour,
} from "../../src/billing/unitCatalog.js";
import { BillingEngine } from "../../src/billing/billingEngine.js";
import { reportFrom, calculateFrom } from "../helpers/billFrom.js";

/**
 * A unit no production code knows, added through the catalog alone: DU, one GB of disk held
 * for an hour (a VM's Σ disk size; summed above the VM). Everything below must follow from its
 * catalog entry: the engine's figures at every level, the price list, invoices, showback and
 * the outputs.
 */
const DU: UnitDef = {
  rule: { kind: "sum", perVm: (vm) => vm.sizeGb },
  label: () => "Disk units (GB allocated)",
  definition: () => "DU: one GB of allocated disk.",
  focus: {
    category: "Storage",
    subcategory: "Block Storage",
    name: "Block storage (GB)",
    meter: "Disk GB",
    what: () => "disk units (GB allocated)",
  },
};
const du = "DU" as UnitName;

// Two hours. Account 7: VM 1 with a 512 GB disk, VM 2 with 100 + 300 GB, a gateway with public traffic
// (which holds no DU); account 8: VM 9 with 1000 GB.
const TB = 1024 ** 4;
const hours = [0, 1].flatMap((h) => [
  accountHour(7, OCT_1 + h * HOUR, {
    11: [
      gateway([nic("external", 0.25 * TB, 0.25 * TB)]),
      vm(1, { mem: 4096, vcpus: 2, disks: [disk(1, 512)], networks: [nic("external", 0, 0)] }),
      vm(2, { mem: 2048, vcpus: 1, disks: [disk(2, 100), disk(3, 300)] }),
    ],
  }),
  accountHour(8, OCT_1 + h * HOUR, { 21: [vm(9, { mem: 1024, vcpus: 1, disks: [disk(4, 1000)] })] }),
]);
const params = { start: OCT_1, end: OCT_1 + 2 * HOUR };
// DU per DU-hour: account 7 holds 2 × (512 + 400) = 1824 DU-hours × 0.001 = 1.824 → 1.82; account 8 2000 × 0.001 = 2.00
const priceFile = { currency: "EUR", provider: "Example Cloud", prices: { CU: "0.01", DU: "0.001" } };

let unregister: () => void;
let connection: DuckDBConnection;
let report: BillingReport;

beforeAll(async () => {
  unregister = registerUnit("DU", DU);
  connection = await memoryWarehouse(hours);
  report = await reportFrom(connection, params, { allUnits: true }, { prices: parsePrices(priceFile, "prices.yaml") });
});
afterAll(() => unregister());

describe("the unit catalog", () => {
  it("declares every unit of UNIT_NAMES, in the order outputs show them", () => {
    expect(Object.keys(UNIT_CATALOG)).toEqual([...UNIT_NAMES]);
    expect(catalogUnits()).toEqual([...UNIT_NAMES, "DU"]);
    expect(allUnitsText()).toMatch(/^add VCU, MU, WU, PIU(, [A-Z]+)* and DU to CU, SU, TU, NU$/);
  });

  // A VM's hour: 6144 MB, 3 vCPUs (CU 1.5), 2 disks of 1536 GB in all with 1000 IOPS of limit, 2 external NICs, a Windows
  // image (its external bytes are summed per hour, not a formula's input: a VmHour has none).
  const windowsVm: VmHour = {
    status: "RUNNING",
    imageName: "Windows Server 2022",
    memMb: 6144,
    vcpus: 3,
    cu: 1.5,
    sizeGb: 1536,
    iopsLimit: 1000,
    externalNics: 2,
    windows: true,
  };
  it.each([
    ["SU", 1536 / 1024],
    ["TU", 1000 / 400],
    ["VCU", 3],
    ["MU", 6144 / 1024],
    ["WU", 1.5],
    ["PIU", 2],
  ] as const)("a VM's hour of %s is %d with the published constants", (unit, expected) => {
    const rule = UNIT_CATALOG[unit].rule;
    expect(rule.kind === "sum" ? rule.perVm(windowsVm, DEFAULT_UNITS) : undefined).toBe(expected);
  });

  it("a unit added through the catalog alone is in the JSON of billing/calculate at every level", async () => {
    const account = JSON.parse(
      JSON.stringify(await calculateFrom(connection, { ...params, accountId: 7 }, { allUnits: true })),
    );
    expect(account.account.consumption.DU).toBe(1824);
    expect(account.account.cloudspaces["11"].consumption.DU).toBe(1824);
    expect(account.account.cloudspaces["11"].machines["1"].consumption.DU).toBe(1024);
    expect(account.account.cloudspaces["11"].machines["2"].consumption.DU).toBe(800);
    const environment = JSON.parse(
      JSON.stringify(await calculateFrom(connection, params, { allUnits: true, per: "month" })),
    );
    expect(environment.consumption.DU).toBe(3824 / DEFAULT_UNITS.hoursPerMonth);
    // the other units are as without it: CU max(6144 MB / 1024 / 4, 3 vCPUs / 2) = 1.5 per hour
    expect(account.account.consumption.CU).toBe(2 * 1.5);
    expect(account.account.consumption.SU).toBe(1824 / 1024);
  });

  it("is priced, invoiced and split over the machines (the gateway gets none of it)", () => {
    const invoice = report.invoices!.find((i) => i.accountId === 7)!;
    const line = invoice.lines.find((l) => l.unit === du)!;
    expect([line.quantity, line.quantityUnit, line.unitPrice, line.amount.toFixed(2)]).toEqual([
      1824,
      "DU-hours",
      "0.001",
      "1.82",
    ]);
    expect(
      report
        .invoices!.find((i) => i.accountId === 8)!
        .lines.find((l) => l.unit === du)!
        .amount.toFixed(2),
    ).toBe("2.00");
    const shares = report.lines
      .map((l, i) => [l, report.money![i]] as const)
      .filter(([l]) => l.accountId === 7 && (l.level === "machine" || l.level === "gateway"))
      .map(([l, m]) => [l.level, l.machineId, m!.charges.find((c) => c.unit === du)!.amount.toFixed(2)]);
    // 1.82 split 1024 : 800 : 0 by largest remainder: 1.0225… → 1.02, 0.7988… → 0.80
    expect(shares).toEqual([
      ["machine", 1, "1.02"],
      ["machine", 2, "0.80"],
      ["gateway", null, "0.00"],
    ]);
  });

  it("is a column of the CSV with its quantity, unit price and amounts", async () => {
    let csv = "";
    for await (const chunk of toBillingCsv(report)) csv += chunk;
    const [header, ...rows] = csv
      .trim()
      .split("\r\n")
      .map((r) => r.split(","));
    const at = (name: string) => header!.indexOf(name);
    expect(at("DU (DU-hours)")).toBeGreaterThan(at("PIU (PIU-hours)"));
    const row = (level: string, id: string) =>
      rows.find((r) => r[0] === level && r[level === "account" ? 1 : 3] === id)!;
    expect(row("account", "7")[at("DU (DU-hours)")]).toBe("1824");
    expect(row("account", "7")[at("DU unit price (EUR per DU-hour)")]).toBe("0.001");
    expect(row("account", "7")[at("DU amount (EUR)")]).toBe("1.82");
    expect(row("account", "8")[at("DU amount (EUR)")]).toBe("2.00");
    expect(row("machine", "2")[at("DU (DU-hours)")]).toBe("800");
    expect(row("machine", "2")[at("DU allocated cost (EUR)")]).toBe("0.80");
    expect(rows.find((r) => r[0] === "environment")![at("DU amount (EUR)")]).toBe("3.82");
  });

  it("is a column of the text table and defined on the statement", () => {
    const text = toBillingText(report);
    expect(text).toMatch(/\bDU-hours\b/);
    expect(text.split("\n").find((l) => l.startsWith("account") && / 7 /.test(l))).toMatch(/ 1824\.0000\b/);
    expect(unitsParagraph(DEFAULT_UNITS, ["CU", du], "aggregate", "hour")).toMatch(
      /compute units\).*DU: one GB of allocated disk\.$/,
    );
  });

  it("is a line of the account's XLSX Invoice, with its label, and a row of its Machines sheet", async () => {
    const file = join(await mkdtemp(join(tmpdir(), "cu-catalog-")), "7.xlsx");
    await writeAccountXlsx(report, 7, file);
    const book = new ExcelJS.Workbook();
    await book.xlsx.readFile(file);
    const invoice = book.getWorksheet("Invoice")!;
    let found: unknown[] | undefined;
    invoice.eachRow((row) => {
      if (row.getCell(1).value === "DU") found = [2, 4, 5, 8].map((c) => row.getCell(c).value);
    });
    expect(found).toEqual(["Disk units (DU, GB allocated)", 1824, "DU-hours", 1.82]);
    const machines = book.getWorksheet("Machines")!;
    const units: unknown[] = [];
    machines.eachRow((row) => units.push(...Array.from({ length: row.cellCount }, (_, c) => row.getCell(c + 1).value)));
    expect(units.filter((v) => v === "DU").length).toBeGreaterThanOrEqual(2);
  });

  it("is charged in FOCUS per VM, with its service, and the account's rows add up to its invoice", async () => {
    const rows: FocusRow[] = [];
    for await (const batch of focusRows(report, warehouseHourly(connection, report))) rows.push(...batch);
    const usage = rows.filter((r) => r.x_Unit === "DU" && r.ChargeCategory === "Usage");
    expect(
      usage.map((r) => [
        r.BillingAccountId,
        r.ResourceId,
        r.ConsumedQuantity,
        r.ConsumedUnit,
        r.ServiceName,
        r.SkuMeter,
      ]),
    ).toEqual(
      [0, 1].flatMap(() => [
        ["7", "account/7/cloudspace/11/machine/1", 512, "DU-Hours", "Block storage (GB)", "Disk GB"],
        ["7", "account/7/cloudspace/11/machine/2", 400, "DU-Hours", "Block storage (GB)", "Disk GB"],
        ["8", "account/8/cloudspace/21/machine/9", 1000, "DU-Hours", "Block storage (GB)", "Disk GB"],
      ]),
    );
    expect(usage[0]!.ChargeDescription).toBe("DU: disk units (GB allocated) of VM 1 in cloud space 11");
    const billed = (account: string) =>
      rows
        .filter((r) => r.BillingAccountId === account && r.x_Unit === "DU")
        .reduce((a, r) => a.add(r.BilledCost as Exact), Exact.ZERO)
        .toFixed(2);
    expect([billed("7"), billed("8")]).toEqual(["1.82", "2.00"]);
  });

  it("an engine made before a unit was added refuses to merge with one made after (a worker that does not know it)", () => {
    unregister();
    const before = new BillingEngine(DEFAULT_UNITS, "aggregate");
    unregister = registerUnit("DU", DU);
    const after = new BillingEngine(DEFAULT_UNITS, "aggregate");
    expect(() => after.merge(before.state())).toThrow(/engines of different units/);
    expect(unitDef(du)).toBe(DU);
  });

  it("refuses a unit that exists, a bad name, or a rule of its own", () => {
    expect(() => registerUnit("CU", DU)).toThrow(/exists already/);
    expect(() => registerUnit("du", DU)).toThrow(/capital letters/);
    expect(() => registerUnit("XU", { ...DU, rule: { kind: "volume" } })).toThrow(/per-VM formula/);
  });
});
