import ExcelJS from "exceljs";
import { mkdtemp, readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { accountHour, disk, gateway, HOUR, memoryWarehouse, nic, OCT_1, vm } from "../helpers/warehouse.js";
import { billingReport, makeNames, parsePrices, writeBillingXlsx } from "../../src/index.js";

// Account 7, cloud space 11: 3 × 5 GB with 2, 2, 4 vCPUs (aggregate 4 CU, sum 4.5 CU per hour) and a
// deployed gateway with a public IP; cloud space 12: 16 GB / 1 vCPU (4 CU). Account 8: 2 GB / 1 vCPU
// (0.5 CU). Hours 0, 1, 2 of October. Account 7 per hour: Σ 31 GB, 9 vCPUs → 7.75 CU (sum: 8.5).
const hours = [0, 1, 2].flatMap((h) => [
  accountHour(7, OCT_1 + h * HOUR, {
    11: [gateway([nic("external", 0, 0)]), vm(1, { mem: 5120, vcpus: 2, disks: [disk(1, 512, { total: 800 })] }), vm(2, { mem: 5120, vcpus: 2 }), vm(3, { mem: 5120, vcpus: 4 })],
    12: [vm(4, { mem: 16384, vcpus: 1 })],
  }),
  accountHour(8, OCT_1 + h * HOUR, { 21: [vm(9, { mem: 2048, vcpus: 1 })] }),
]);

let workbook: ExcelJS.Workbook;
let dir: string;

beforeAll(async () => {
  const connection = await memoryWarehouse(hours);
  // CU 0.01 per CU-hour: account 7 = 3 × 7.75 × 0.01 = 0.2325 → 0.23 (half-even); SU 40 per SU-month: 1.5 SU-hours / 720 × 40 = 0.08333… → 0.08.
  const prices = parsePrices({ currency: "EUR", prices: { CU: "0.01", SU: { perMonth: 40 } } }, "prices.yaml");
  const names = makeNames([{ kind: "account", id: 7, name: "Acme Corp" }]);
  const report = await billingReport(connection, { start: OCT_1, end: OCT_1 + 3 * HOUR }, { names }, { prices });
  dir = await mkdtemp(join(tmpdir(), "cu-xlsx-"));
  await writeBillingXlsx(report, connection, join(dir, "bill.xlsx"));
  workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(join(dir, "bill.xlsx"));
});

/** The row whose first cell starts with `label`. */
function rowStarting(sheet: ExcelJS.Worksheet, label: string): ExcelJS.Row {
  let found: ExcelJS.Row | undefined;
  sheet.eachRow((row) => { if (!found && String(row.getCell(1).value ?? "").startsWith(label)) found = row; });
  if (!found) throw new Error(`no row starting with ${label} in ${sheet.name}`);
  return found;
}

function column(sheet: ExcelJS.Worksheet, headerRow: number, header: string): number {
  const row = sheet.getRow(headerRow);
  for (let c = 1; c <= row.cellCount; c++) if (String(row.getCell(c).value).startsWith(header)) return c;
  throw new Error(`no column ${header} in ${sheet.name}`);
}

/** A formula cell's cached result (exceljs leaves a 0 result out of `value`, but keeps it in `result`). */
const result = (cell: ExcelJS.Cell) => (cell.formula ? cell.result : cell.value);

describe("billing workbook", () => {
  it("has the sheets a finance team expects, in order, and nothing left over", async () => {
    expect(workbook.worksheets.map((s) => s.name)).toEqual(["Summary", "Accounts", "Cloud spaces", "Machines", "Hourly", "About"]);
    expect(await readdir(dir)).toEqual(["bill.xlsx"]);
  });

  it("freezes and filters the header row of every table", () => {
    for (const name of ["Accounts", "Cloud spaces", "Machines", "Hourly"]) {
      const sheet = workbook.getWorksheet(name)!;
      expect(sheet.views[0]).toMatchObject({ state: "frozen", ySplit: 1 });
      expect(sheet.autoFilter).toBeTruthy();
    }
    expect(workbook.getWorksheet("Summary")!.views[0]).toMatchObject({ state: "frozen", ySplit: 6 });
  });

  it("the Summary shows each account's units and amounts as numbers with formats, ids as text", () => {
    const sheet = workbook.getWorksheet("Summary")!;
    const acme = rowStarting(sheet, "7");
    expect(acme.getCell(1).value).toBe("7");
    expect(acme.getCell(2).value).toBe("Acme Corp");
    const cu = column(sheet, 6, "CU (CU-hours, aggregate rollup)");
    expect(acme.getCell(cu).value).toBe(23.25);
    expect(acme.getCell(cu).numFmt).toBe("#,##0.000000");
    const cuAmount = column(sheet, 6, "CU amount (EUR)");
    expect(acme.getCell(cuAmount).value).toBe(0.23);
    expect(acme.getCell(cuAmount).numFmt).toBe("#,##0.00");
    const suAmount = column(sheet, 6, "SU amount (EUR)");
    expect(acme.getCell(suAmount).value).toBe(0.08);
    // 0.2325 + 0.083333… = 0.315833… → 0.32; the rounded lines add up to 0.23 + 0.08 = 0.31.
    expect(acme.getCell(column(sheet, 6, "total (EUR)")).value).toBe(0.32);
    expect(acme.getCell(column(sheet, 6, "sum of rounded amounts (EUR)")).value).toBe(0.31);
  });

  it("the Summary's totals row sums the accounts, and the exact total is shown beside it", () => {
    const sheet = workbook.getWorksheet("Summary")!;
    const total = rowStarting(sheet, "Total (2 accounts)");
    const cu = column(sheet, 6, "CU (CU-hours");
    expect(total.getCell(cu).value).toMatchObject({ formula: expect.stringMatching(/^SUM\(/), result: 23.25 + 1.5 });
    const exact = rowStarting(sheet, "Total of the exact amounts");
    // Account 8: 1.5 CU-hours × 0.01 = 0.015 → 0.02 (half-even); exact total 0.2325 + 0.0833… + 0.015 = 0.330833… → 0.33,
    // while the rounded account totals add up to 0.32 + 0.02 = 0.34.
    expect(exact.getCell(column(sheet, 6, "total (EUR)")).value).toBe(0.33);
    expect(String(exact.getCell(column(sheet, 6, "total (EUR)") + 1).value)).toContain("differs from the sum of the rounded account totals (0.34)");
  });

  it("check rows prove that machines add up to cloud spaces and cloud spaces to accounts, and say why CU differs under aggregate", () => {
    const machines = workbook.getWorksheet("Machines")!;
    const su = column(machines, 1, "SU (SU-hours)");
    const cu = column(machines, 1, "CU (CU-hours");
    const cuSum = column(machines, 1, "CU sum of machines");
    const diff = rowStarting(machines, "Difference (check)");
    expect(result(diff.getCell(su))).toBe(0);
    // Machines' CU: 3 × (1.25 + 1.25 + 2 + 4 + 0.5) = 27; cloud spaces (aggregate): 3 × (4 + 4 + 0.5) = 25.5.
    expect(result(rowStarting(machines, "Total (5 machines)").getCell(cu))).toBe(27);
    expect(result(diff.getCell(cu))).toBe(1.5);
    expect(result(diff.getCell(cuSum))).toBe(0);
    expect(String(rowStarting(machines, "Why:").getCell(1).value)).toContain("CU: under aggregate");
    const cloudspaces = workbook.getWorksheet("Cloud spaces")!;
    const csDiff = rowStarting(cloudspaces, "Difference (check)");
    // Cloud spaces: 25.5 CU; accounts: 23.25 + 1.5 = 24.75 CU.
    expect(result(csDiff.getCell(column(cloudspaces, 1, "CU (CU-hours")))).toBe(0.75);
    expect(result(csDiff.getCell(column(cloudspaces, 1, "SU (SU-hours)")))).toBe(0);
    expect(result(csDiff.getCell(column(cloudspaces, 1, "CU sum of machines")))).toBe(0);
    expect(rowStarting(cloudspaces, "Total of 'Accounts'").getCell(column(cloudspaces, 1, "SU (SU-hours)")).value)
      .toMatchObject({ formula: expect.stringContaining("'Accounts'!") });
  });

  it("the Hourly sheet has one row per entity, level and hour", () => {
    const sheet = workbook.getWorksheet("Hourly")!;
    // Per hour: environment, 2 accounts, 3 cloud spaces, 5 machines = 11 rows; 3 hours; plus the header.
    expect(sheet.actualRowCount).toBe(1 + 3 * 11);
    expect(sheet.getRow(2).getCell(column(sheet, 1, "hour (UTC)")).value).toBe("2026-10-01T00:00:00Z");
  });

  it("the About sheet states the period in UTC, the rules and the data quality", () => {
    const sheet = workbook.getWorksheet("About")!;
    const about = new Map<string, string>();
    sheet.eachRow((row) => about.set(String(row.getCell(1).value), String(row.getCell(2).value)));
    expect(about.get("Period start (UTC, inclusive)")).toBe("2026-10-01T00:00:00Z");
    expect(about.get("Period end (UTC, exclusive)")).toBe("2026-10-01T03:00:00Z");
    expect(about.get("CU rollup")).toMatch(/^aggregate/);
    expect(about.get("Rounding")).toMatch(/half-even to 2 decimals/);
    expect(about.get("Missing hours")).toBe("none");
    expect(about.get("Price list")).toMatch(/^prices.yaml: EUR/);
  });
});

describe("billing workbook, large hourly detail", () => {
  it("replaces the Hourly sheet by a note pointing to CSV and Parquet when the lines do not fit", async () => {
    const connection = await memoryWarehouse(hours);
    const report = await billingReport(connection, { start: OCT_1, end: OCT_1 + 3 * HOUR }, {});
    const file = join(dir, "small.xlsx");
    await writeBillingXlsx(report, connection, file, { maxHourlyRows: 10 });
    const book = new ExcelJS.Workbook();
    await book.xlsx.readFile(file);
    const hourly = book.getWorksheet("Hourly")!;
    expect(hourly.actualRowCount).toBe(1);
    expect(String(hourly.getCell("A1").value)).toBe("33 hourly lines do not fit Excel's 1,048,576 rows: use --format csv --detail hourly, or --format focus-parquet");
  });
});
