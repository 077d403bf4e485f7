import ExcelJS from "exceljs";
import { mkdtemp, readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { accountHour, disk, gateway, HOUR, memoryWarehouse, nic, OCT_1, vm } from "../helpers/warehouse.js";
import { formulaMismatches } from "../helpers/xlsxFormulas.js";
import {
  accountFileName,
  draftDocument,
  makeNames,
  parsePrices,
  parseStatementConfig,
  warehouseHourly,
  writeBillingXlsx,
  writeInvoicePack,
  type BillingReport,
} from "../../src/internal.js";
import type { DuckDBConnection } from "@duckdb/node-api";
import { reportFrom } from "../helpers/billFrom.js";

// Account 7, cloud space 11: 3 × 5 GB with 2, 2, 4 vCPUs (own CU 4, machines 1.25 + 1.25 + 2) and a deployed
// gateway with a public IP; cloud space 12: 16 GB / 1 vCPU (4 CU). Account 8: 2 GB / 1 vCPU (0.5 CU).
// Hours 0, 1, 2 of October. Account 7 per hour: Σ 31 GB, 9 vCPUs → 7.75 CU, allocated 3.875 to each cloud space.
const hours = [0, 1, 2].flatMap((h) => [
  accountHour(7, OCT_1 + h * HOUR, {
    11: [
      gateway([nic("external", 0, 0)]),
      vm(1, { mem: 5120, vcpus: 2, disks: [disk(1, 512, { total: 800 })] }),
      vm(2, { mem: 5120, vcpus: 2 }),
      vm(3, { mem: 5120, vcpus: 4 }),
    ],
    12: [vm(4, { mem: 16384, vcpus: 1 })],
  }),
  accountHour(8, OCT_1 + h * HOUR, { 21: [vm(9, { mem: 2048, vcpus: 1 })] }),
]);

let workbook: ExcelJS.Workbook;
let dir: string;
let connection: DuckDBConnection;
let report: BillingReport;

async function read(file: string): Promise<ExcelJS.Workbook> {
  const book = new ExcelJS.Workbook();
  await book.xlsx.readFile(file);
  return book;
}

beforeAll(async () => {
  connection = await memoryWarehouse(hours);
  // CU 0.01 per CU-hour: account 7 = 3 × 7.75 × 0.01 = 0.2325 → 0.23; SU 40 per SU-month: 1.5 SU-hours / 720 × 40 = 0.0833… → 0.08.
  // Account 8: 1.5 CU-hours × 0.01 = 0.015 → 0.02 (half-even). Amounts due 0.31 and 0.02; total 0.33.
  const prices = parsePrices({ currency: "EUR", prices: { CU: "0.01", SU: { perMonth: 40 } } }, "prices.yaml");
  const names = makeNames([{ kind: "account", id: 7, name: "Acme Corp" }]);
  report = await reportFrom(connection, { start: OCT_1, end: OCT_1 + 3 * HOUR }, { names }, { prices });
  dir = await mkdtemp(join(tmpdir(), "cu-xlsx-"));
  await writeBillingXlsx(report, warehouseHourly(connection, report), join(dir, "bill.xlsx"));
  workbook = await read(join(dir, "bill.xlsx"));
});

/** The row whose first cell starts with `label`. */
function rowStarting(sheet: ExcelJS.Worksheet, label: string): ExcelJS.Row {
  let found: ExcelJS.Row | undefined;
  sheet.eachRow((row) => {
    if (!found && String(row.getCell(1).value ?? "").startsWith(label)) found = row;
  });
  if (!found) throw new Error(`no row starting with ${label} in ${sheet.name}`);
  return found;
}

function column(sheet: ExcelJS.Worksheet, headerRow: number, header: string): number {
  const row = sheet.getRow(headerRow);
  for (let c = 1; c <= row.cellCount; c++) if (String(row.getCell(c).value).startsWith(header)) return c;
  throw new Error(`no column ${header} in ${sheet.name}`);
}

/** The row of a totals block: first cell starts with `label`, unit cell is `unit`. */
function unitRow(sheet: ExcelJS.Worksheet, label: string, unit: string): ExcelJS.Row {
  const u = column(sheet, 1, "unit");
  let found: ExcelJS.Row | undefined;
  sheet.eachRow((row) => {
    if (!found && String(row.getCell(1).value ?? "").startsWith(label) && row.getCell(u).value === unit) found = row;
  });
  if (!found) throw new Error(`no row ${label} ${unit} in ${sheet.name}`);
  return found;
}

/** The entity rows (an id in the first cell) of one unit. */
function entityRows(sheet: ExcelJS.Worksheet, unit: string): ExcelJS.Row[] {
  const u = column(sheet, 1, "unit");
  const rows: ExcelJS.Row[] = [];
  sheet.eachRow((row) => {
    if (/^\d+$/.test(String(row.getCell(1).value)) && row.getCell(u).value === unit) rows.push(row);
  });
  return rows;
}

/** A formula cell's cached result (exceljs leaves a 0 result out of `value`, but keeps it in `result`). */
const result = (cell: ExcelJS.Cell) => (cell.formula ? cell.result : cell.value);

/** Every text of a workbook, to look for words that must not be there. */
/** How many cells of a workbook hold a formula. */
function formulaCount(book: ExcelJS.Workbook): number {
  let n = 0;
  book.eachSheet((sheet) =>
    sheet.eachRow((row) =>
      row.eachCell((cell) => {
        if (typeof cell.value === "object" && cell.value !== null && "formula" in cell.value) n++;
      }),
    ),
  );
  return n;
}

function allText(book: ExcelJS.Workbook): string {
  const texts: string[] = [];
  book.eachSheet((sheet) =>
    sheet.eachRow((row) =>
      row.eachCell((cell) => {
        if (typeof cell.value === "string") texts.push(cell.value);
      }),
    ),
  );
  return texts.join("\n");
}

describe("billing workbook", () => {
  it("has the sheets a finance team expects, in order, no Hourly sheet unless asked, and nothing left over", async () => {
    expect(workbook.worksheets.map((s) => s.name)).toEqual([
      "Summary",
      "Accounts",
      "Cloud spaces",
      "Machines",
      "About",
    ]);
    expect(await readdir(dir)).toEqual(["bill.xlsx"]);
  });

  it("freezes and filters the header row of every table, and prints on A4 landscape, fit to width", () => {
    for (const name of ["Accounts", "Cloud spaces", "Machines"]) {
      const sheet = workbook.getWorksheet(name)!;
      expect(sheet.views[0]).toMatchObject({ state: "frozen", ySplit: 1 });
      expect(sheet.autoFilter).toBeTruthy();
    }
    const summary = workbook.getWorksheet("Summary")!;
    expect(summary.views[0]).toMatchObject({ state: "frozen", ySplit: 8 });
    expect(summary.pageSetup).toMatchObject({
      orientation: "landscape",
      paperSize: 9,
      fitToPage: true,
      fitToWidth: 1,
      fitToHeight: 0,
    });
  });

  it("the Summary shows each account's amounts and their net total (no tax known: never headed amount due); the net total of all stored as the exact cents", () => {
    const sheet = workbook.getWorksheet("Summary")!;
    const acme = rowStarting(sheet, "7");
    expect(acme.getCell(2).value).toBe("Acme Corp");
    expect(acme.getCell(column(sheet, 8, "CU amount (EUR)")).value).toBe(0.23);
    expect(acme.getCell(column(sheet, 8, "CU amount (EUR)")).numFmt).toBe("#,##0.00");
    expect(acme.getCell(column(sheet, 8, "SU amount (EUR)")).value).toBe(0.08);
    expect(() => column(sheet, 8, "amount due (EUR)")).toThrow();
    const due = column(sheet, 8, "net amount, excluding tax (EUR)");
    expect(acme.getCell(due).value).toBe(0.31);
    expect(rowStarting(sheet, "8").getCell(due).value).toBe(0.02);
    // the total row totals each unit's amount too, so it is headed "Total": only its amount-due cell is an amount due
    const total = rowStarting(sheet, "Total (2 accounts)");
    const labels: string[] = [];
    sheet.eachRow((row, n) => {
      const v = row.getCell(1).value;
      if (n > 8 && typeof v === "string") labels.push(v);
    }); // below the heading row
    expect(labels.filter((l) => /amount due/i.test(l))).toEqual([]);
    // 0.31 + 0.02 as a float sum is 0.32999999999999996; the stored result is the exact 0.33.
    expect(total.getCell(due).value).toEqual({
      formula: `ROUND(SUM(${String.fromCharCode(64 + due)}9:${String.fromCharCode(64 + due)}10),2)`,
      result: 0.33,
    });
    expect(allText(workbook)).not.toMatch(/sum of rounded|rounded once|exact amounts/i);
    expect(String(sheet.getCell("A3").value)).toBe("Quantities in unit-hours, NU in TiB transferred");
    expect(String(sheet.getCell("A4").value)).toMatch(/^CU rule: aggregate: /);
  });

  it("every allocation sheet is long (a row per entity and unit), shows own CU beside allocated CU, and check rows per unit prove it adds up", () => {
    const machines = workbook.getWorksheet("Machines")!;
    const [quantity, money] = [column(machines, 1, "quantity"), column(machines, 1, "allocated cost (EUR)")];
    // Machines' own CU: 3 × (1.25 + 1.25 + 2 + 4 + 0.5) = 27; cloud spaces' own CU (aggregate): 3 × (4 + 4 + 0.5) = 25.5.
    expect(result(unitRow(machines, "Total (5 machines)", "CU own").getCell(quantity))).toBe(27);
    expect(result(unitRow(machines, "Difference (check)", "CU own").getCell(quantity))).toBe(1.5);
    for (const unit of ["CU allocated", "SU"]) {
      expect(result(unitRow(machines, "Difference (check)", unit).getCell(quantity)), unit).toBe(0);
      expect(result(unitRow(machines, "Difference (check)", unit).getCell(money)), unit).toBe(0);
    }
    expect(
      result(
        rowStarting(machines, "Total allocated cost (5 machines), equal to the lines' total on the invoice").getCell(
          money,
        ),
      ),
    ).toBe(0.33);
    expect(() => column(machines, 1, "amount due")).toThrow();
    expect(allText(workbook)).toContain("CU own is the level's own CU (the platform's figure), information only");
    const cloudspaces = workbook.getWorksheet("Cloud spaces")!;
    const [csQuantity, csMoney] = [column(cloudspaces, 1, "quantity"), column(cloudspaces, 1, "allocated cost (EUR)")];
    // Cloud spaces: 25.5 own CU; accounts: 23.25 + 1.5 = 24.75.
    expect(result(unitRow(cloudspaces, "Difference (check)", "CU own").getCell(csQuantity))).toBe(0.75);
    expect(result(unitRow(cloudspaces, "Difference (check)", "CU allocated").getCell(csQuantity))).toBe(0);
    // Account 7's 0.23 of CU: cloud spaces 11 and 12 weigh the same (3 × 3.875 allocated CU-hours): 11.5 cents each, the tie to the lower id.
    const cu = entityRows(cloudspaces, "CU allocated").filter((r) => r.getCell(1).value === "7");
    expect(cu.map((r) => [r.getCell(2).value, r.getCell(csMoney).value])).toEqual([
      ["11", 0.12],
      ["12", 0.11],
    ]);
  });

  it("on Accounts a line's money is its amount; their sum is the lines' total excluding tax, never headed amount due", () => {
    const accounts = workbook.getWorksheet("Accounts")!;
    const amount = column(accounts, 1, "amount (EUR)");
    const acme = entityRows(accounts, "CU")[0]!;
    expect([acme.getCell(1).value, acme.getCell(amount).value]).toEqual(["7", 0.23]); // 23.25 CU-hours × 0.01, one line of the 0.31 due
    const due: string[] = [];
    accounts.eachRow((row) =>
      row.eachCell((cell) => {
        if (typeof cell.value === "string" && /amount due/i.test(cell.value)) due.push(cell.value);
      }),
    );
    expect(due).toEqual([]);
    expect(result(rowStarting(accounts, "Total of the lines, excluding tax (2 accounts)").getCell(amount))).toBe(0.33);
  });

  it("every formula, recomputed as a spreadsheet does on opening the file, gives the figure stored beside it", () => {
    // The check rows point at the level above's totals, on a sheet with one id column fewer:
    // 'Accounts'!F (its quantity unit, a text) gave #VALUE! and 'Accounts'!K an empty 0.
    expect(formulaMismatches(workbook)).toEqual([]);
  });

  it("quantities show 2 decimals and billed quantities 4, aligned, while cells keep the exact value; every styled cell uses the one font", () => {
    const cloudspaces = workbook.getWorksheet("Cloud spaces")!;
    const [allocated] = entityRows(cloudspaces, "CU allocated");
    const quantity = allocated!.getCell(column(cloudspaces, 1, "quantity"));
    expect([quantity.value, quantity.numFmt]).toEqual([11.625, "#,##0.00"]);
    const billed = allocated!.getCell(column(cloudspaces, 1, "billed quantity"));
    expect([billed.value, billed.numFmt]).toEqual([11.625, "#,##0.0000"]);
    const fonts = new Set<string>();
    workbook.eachSheet((sheet) =>
      sheet.eachRow((row) =>
        row.eachCell((cell) => {
          if (cell.font?.name) fonts.add(cell.font.name);
        }),
      ),
    );
    expect([...fonts]).toEqual(["Calibri"]);
  });

  it("the About sheet states the period in UTC, the rules, and the unrounded sum only as information", () => {
    const sheet = workbook.getWorksheet("About")!;
    const about = new Map<string, string>();
    sheet.eachRow((row) => about.set(String(row.getCell(1).value), String(row.getCell(2).value)));
    expect(about.get("Period start (UTC, inclusive)")).toBe("2026-10-01T00:00:00Z");
    expect(about.get("Period end (UTC, exclusive)")).toBe("2026-10-01T03:00:00Z");
    expect(about.get("CU rollup")).toMatch(/^aggregate/);
    expect(about.get("Rounding")).toMatch(/half-even to 2 decimals/);
    // 0.2325 + 0.083333… + 0.015: shown to 12 places.
    expect(about.get("Unrounded sum (information)")).toBe(
      "0.330833333333… EUR: the lines before rounding; information only, not an amount due",
    );
    expect(about.get("Missing hours")).toBe("none");
    expect(about.get("Price list")).toMatch(/^prices.yaml: EUR/);
  });
});

describe("where a workbook goes", () => {
  it("a folder not yet made is made; a folder given as the file is refused in one sentence, not a stack trace", async () => {
    const deep = join(dir, "new", "deeper", "book.xlsx");
    await writeBillingXlsx(report, undefined, deep);
    expect(await readdir(join(dir, "new", "deeper"))).toEqual(["book.xlsx"]);
    await expect(writeBillingXlsx(report, undefined, `${join(dir, "xlsx-nov2")}/`)).rejects.toThrow(
      /xlsx-nov2\/: it names a folder, and a workbook is one file: give a file name \(e\.g\. .*xlsx-nov2\/billing\.xlsx\), or writeInvoicePack\(\) to write the pack into the folder$/,
    );
  });
});

describe("billing workbook with --hourly", () => {
  it("adds the Hourly sheet: one row per entity, level and hour, hours as Excel date-times in UTC", async () => {
    const file = join(dir, "hourly.xlsx");
    await writeBillingXlsx(report, warehouseHourly(connection, report), file, { hourly: true });
    const book = await read(file);
    expect(book.worksheets.map((s) => s.name)).toEqual([
      "Summary",
      "Accounts",
      "Cloud spaces",
      "Machines",
      "Hourly",
      "About",
    ]);
    const sheet = book.getWorksheet("Hourly")!;
    // Per hour: environment, 2 accounts, 3 cloud spaces, 5 machines = 11 rows; 3 hours; plus the header.
    expect(sheet.actualRowCount).toBe(1 + 3 * 11);
    const hour = sheet.getRow(2).getCell(column(sheet, 1, "hour (UTC)"));
    expect(hour.value).toEqual(new Date("2026-10-01T00:00:00Z"));
    expect(hour.numFmt).toBe("yyyy-mm-dd hh:mm");
  });

  it("writes the same Hourly cells from the engine's rows as from line objects", async () => {
    const stream = warehouseHourly(connection, report);
    const fromRows = join(dir, "hourly-rows.xlsx");
    const fromLines = join(dir, "hourly-lines.xlsx");
    await writeBillingXlsx(report, stream, fromRows, { hourly: true });
    await writeBillingXlsx(report, { report, lines: stream.lines, count: stream.count }, fromLines, { hourly: true });
    const cells = async (file: string) => {
      const sheet = (await read(file)).getWorksheet("Hourly")!;
      return sheet.getSheetValues().map((row) => JSON.stringify(row));
    };
    const expected = await cells(fromLines);
    expect(expected.length).toBe(1 + 1 + 3 * 11); // exceljs's empty row 0, the header, 3 hours of 11 lines
    expect(await cells(fromRows)).toEqual(expected);
  });

  it("replaces the Hourly sheet by a note pointing to CSV and Parquet when the lines do not fit", async () => {
    const file = join(dir, "small.xlsx");
    await writeBillingXlsx(report, warehouseHourly(connection, report), file, { hourly: true, maxHourlyRows: 10 });
    const hourly = (await read(file)).getWorksheet("Hourly")!;
    expect(hourly.actualRowCount).toBe(1);
    expect(String(hourly.getCell("A1").value)).toBe(
      "33 hourly lines do not fit Excel's 1,048,576 rows: use --format csv --detail hourly, or --format focus-parquet",
    );
  });
});

describe("invoice pack", () => {
  it.each([
    ["Lumière Studios SARL", "account-7-lumiere-studios-sarl.xlsx"],
    ["Ørsted Nordic A/S", "account-7-orsted-nordic-a-s.xlsx"],
    ["Café Müller & Söhne", "account-7-cafe-muller-sohne.xlsx"],
    ["", "account-7.xlsx"],
    // other scripts keep their letters whole: a kana's voicing mark is part of the letter (ド is not ト, パ not ハ)
    ["ドイツ銀行", "account-7-ドイツ銀行.xlsx"],
    ["パナソニック株式会社", "account-7-パナソニック株式会社.xlsx"],
    ["ﾄﾞｲﾂ ﾊﾟﾝ", "account-7-ドイツ-パン.xlsx"],
    ["हिन्दी सेवा", "account-7-हिन्दी-सेवा.xlsx"],
    ["Ελληνική Εταιρεία", "account-7-ελληνική-εταιρεία.xlsx"],
    ["Crème ドレ", "account-7-creme-ドレ.xlsx"],
  ])("an account's file name keeps the letters of %j, Latin ones without accents", (name, file) => {
    expect(accountFileName(7, name)).toBe(file);
  });

  it("writes the summary and one workbook per account, named from the names file; the summary lists each account's document and amount due", async () => {
    const pack = join(dir, "pack");
    const config = parseStatementConfig(
      { issuer: { legalName: "Nordlicht", tax: { category: "S", ratePercent: 19 } }, issueDate: "2026-11-02" },
      "statement.yaml",
    );
    const documents = [7, 8].map((id) => draftDocument(report, id, config));
    const files = await writeInvoicePack(report, warehouseHourly(connection, report), pack, { documents });
    expect(files.map((f) => f.slice(pack.length + 1))).toEqual([
      "summary.xlsx",
      "account-7-acme-corp.xlsx",
      "account-8.xlsx",
    ]);
    expect((await readdir(pack)).sort()).toEqual(["account-7-acme-corp.xlsx", "account-8.xlsx", "summary.xlsx"]);
    const summary = (await read(join(pack, "summary.xlsx"))).getWorksheet("Summary")!;
    // 0.31 net, 19% = 0.0589 → 0.06, due 0.37; account 8: 0.02, 0.0038 → 0.00, due 0.02
    const acme = rowStarting(summary, "7");
    expect([
      acme.getCell(column(summary, 8, "document")).value,
      acme.getCell(column(summary, 8, "tax (EUR)")).value,
      acme.getCell(column(summary, 8, "amount due (EUR)")).value,
    ]).toEqual(["DRAFT", 0.06, 0.37]);
    expect(rowStarting(summary, "8").getCell(column(summary, 8, "amount due (EUR)")).value).toBe(0.02);
    // the totals row adds up the documents' tax and amount due too
    const total = rowStarting(summary, "Total (2 accounts)");
    expect([
      result(total.getCell(column(summary, 8, "tax (EUR)"))),
      result(total.getCell(column(summary, 8, "amount due (EUR)"))),
    ]).toEqual([0.06, 0.39]);
  });

  it("an account's workbook is what its customer reads: the Invoice (lines, net, VAT, the amount due as the gross) and the showback, values only, no check row or rule", async () => {
    const book = await read(join(dir, "pack", "account-7-acme-corp.xlsx"));
    expect(book.worksheets.map((s) => s.name)).toEqual(["Invoice", "Cloud spaces", "Machines"]);
    const invoice = book.getWorksheet("Invoice")!;
    const line = (unit: string) => invoice.getRows(1, invoice.rowCount)!.find((r) => r.getCell(1).value === unit)!;
    const [cu, su] = [line("CU"), line("SU")];
    expect([
      cu.getCell(2).value,
      cu.getCell(4).value,
      cu.getCell(5).value,
      cu.getCell(6).value,
      cu.getCell(7).value,
      cu.getCell(8).value,
    ]).toEqual(["Compute units (CU)", 23.25, "CU-hours", 0.01, "CU-hour", 0.23]);
    // 1.5 SU-hours = 0.0020833… SU-months, × 40 per SU-month = 0.0833… → 0.08; shown as the 0.002 a reader multiplies (× 40 = 0.08)
    expect([
      su.getCell(4).value,
      su.getCell(5).value,
      su.getCell(6).value,
      su.getCell(7).value,
      su.getCell(8).value,
    ]).toEqual([0.002, "SU-months", 40, "SU-month", 0.08]);
    const total = (label: string) =>
      invoice
        .getRows(1, invoice.rowCount)!
        .find((r) => r.getCell(2).value === label)!
        .getCell(8).value;
    expect([total("Net amount, excluding VAT (EUR)"), total("VAT 19% on 0.31"), total("Amount due (EUR)")]).toEqual([
      0.31, 0.06, 0.37,
    ]);
    expect(cu.getCell(3).value).toBe("1 Oct 2026 00:00 – 03:00 UTC");
    expect(String(invoice.getCell("A1").value)).toBe("Invoice (DRAFT)");
    const machines = book.getWorksheet("Machines")!;
    const money = column(machines, 1, "allocated cost (EUR)");
    expect(rowStarting(machines, "Total allocated cost (4 machines)").getCell(money).value).toBe(0.31);
    const words = allText(book);
    expect(words).toContain("Allocated cost is not an amount due");
    expect(words).not.toMatch(/Difference \(check\)|Total of '|max\(|Σ|CU rule/);
    expect(formulaCount(book)).toBe(0);
  });

  it("every formula of every workbook of the pack recomputes to the figure stored beside it", async () => {
    for (const file of ["summary.xlsx"]) {
      expect(formulaMismatches(await read(join(dir, "pack", file))), file).toEqual([]);
    }
  });
});
