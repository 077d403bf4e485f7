import ExcelJS from "exceljs";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ingest, loadPrices, open, serveDashboard, writeDataset } from "../../src/index.js";
import { runCli } from "../helpers/runCli.js";
import type { InvoiceDocument } from "../../src/invoices/document/invoiceDocument.js";

// An issued document is shown as issued wherever its figures appear after the month is issued:
// the XLSX pack and the dashboard show the register's number, dates, currency and amounts, even
// when the price list they are started with is in another currency than the invoice was issued in.

const NOW = "2026-11-02T08:00:00Z";
let dir: string;
let db: string;
const path = (...parts: string[]) => join(dir, ...parts);
let issued: Pick<
  InvoiceDocument,
  "taxInAccountingCurrency" | "number" | "issueDate" | "dueDate" | "currency" | "net" | "tax" | "gross"
>;

/** Every text of a worksheet's cells, one string. */
function textOf(sheet: ExcelJS.Worksheet): string {
  const texts: string[] = [];
  sheet.eachRow((row) => row.eachCell((cell) => texts.push(String(cell.value))));
  return texts.join("\n");
}

/** The number in the last column of the row whose cell B starts with `label`. */
function amountOf(sheet: ExcelJS.Worksheet, label: string): unknown {
  let found: unknown;
  sheet.eachRow((row) => {
    if (found === undefined && String(row.getCell(2).value ?? "").startsWith(label)) found = row.getCell(8).value;
  });
  return found;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cloudunits-issued-shown-"));
  await writeDataset({
    out: path("october"),
    accounts: 2,
    firstAccountId: 1,
    spaces: 1,
    machines: 1,
    hours: 744,
    start: Date.parse("2026-10-01T00:00:00Z") / 1000,
    seed: 9,
  });
  db = path("w.duckdb");
  await ingest([path("october")], { db });
  writeFileSync(
    path("statement.yaml"),
    [
      "issuer: { legalName: Nordlicht Cloud Services GmbH, address: [Hafenstraße 12, 20457 Hamburg], country: DE, vatId: DE123456789,",
      "  peppolId: '9930:DE123456789', tax: { category: S, ratePercent: 19 }, contact: [billing@nordlicht.example, +49 40 1234567],",
      "  bank: [IBAN DE89 3704 0044 0532 0130 00] }",
      "customers:",
      "  '1': { legalName: Hanse Logistik AG, address: [Am Sandtorkai 1, 20457 Hamburg], country: DE, vatId: DE987654321, peppolId: '9930:DE987654321' }",
      "  '2': { legalName: Elbe Werft AG, address: [Am Kai 2, 20457 Hamburg], country: DE, vatId: DE111111111, peppolId: '9930:DE111111111' }",
      // an invoice in yen also gives its VAT in EUR, the issuer's accounting currency
      "fxRates: { JPY: { '2026-11-02': 0.0061 } }",
    ].join("\n"),
  );
  writeFileSync(
    path("prices-jpy.yaml"),
    "currency: JPY\nprices: { CU: 8, SU: { perMonth: 6000 }, TU: 0.3, NU: 3000 }\n",
  );
  writeFileSync(
    path("prices-eur.yaml"),
    "currency: EUR\nprices: { CU: 0.05, SU: { perMonth: 40 }, TU: 0.002, NU: 20 }\n",
  );
  // account 1's October is issued in yen; account 2's is not issued
  const run = await runCli(
    [
      "invoices",
      "issue",
      "--db",
      db,
      "--month",
      "2026-10",
      "--account-id",
      "1",
      "--statement",
      path("statement.yaml"),
      "--prices",
      path("prices-jpy.yaml"),
      "--out",
      path("issued"),
      "--issue-date",
      "2026-11-02",
    ],
    { CLOUDUNITS_TEST_NOW: NOW },
  );
  expect(run.code, run.stderr).toBe(0);
  const store = await open({ db });
  try {
    issued = (await store.invoiceRegister())[0]!.document;
  } finally {
    store.close();
  }
  expect([issued.currency, issued.dueDate]).toEqual(["JPY", "2026-12-02"]);
}, 180_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("an issued document is shown as issued", { timeout: 120_000 }, () => {
  it("the XLSX pack of the month, made with a euro price list: account 1's Invoice is the register's yen invoice, account 2's a draft; the summary adds up tax and amount due", async () => {
    const pack = path("pack");
    const run = await runCli([
      "billing",
      "--db",
      db,
      "--month",
      "2026-10",
      "--prices",
      path("prices-eur.yaml"),
      "--statement",
      path("statement.yaml"),
      "--format",
      "xlsx",
      "--per-account",
      "--out",
      pack,
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(
      readdirSync(pack)
        .filter((f) => f.endsWith(".xlsx"))
        .sort(),
    ).toEqual(["account-1.xlsx", "account-2.xlsx", "summary.xlsx"]);
    const read = async (file: string) => {
      const book = new ExcelJS.Workbook();
      await book.xlsx.readFile(join(pack, file));
      return book;
    };
    const one = (await read("account-1.xlsx")).getWorksheet("Invoice")!;
    expect(one.getCell("A1").value).toBe("Invoice");
    const text = textOf(one);
    expect(text).toContain(issued.number);
    expect(text).not.toContain("DRAFT");
    expect(text).not.toContain("no payment is due");
    expect(text).toContain("net amount (JPY)");
    // EUR appears only as the VAT in the issuer's accounting currency (the register's rate and amount), never as the invoice's currency
    expect(text.replace(/VAT in EUR[^\n]*|[\d.,]+ EUR\b/g, "")).not.toContain("EUR");
    expect(text).toContain("The VAT in EUR is the total VAT × the rate of the issue date");
    expect(amountOf(one, "Amount due (JPY)")).toBe(Number(issued.gross));
    const two = (await read("account-2.xlsx")).getWorksheet("Invoice")!;
    expect(two.getCell("A1").value).toBe("Invoice (DRAFT)");

    const summary = (await read("summary.xlsx")).getWorksheet("Summary")!;
    const header = summary.getRow(8).values as unknown[];
    const at = (name: string) => header.indexOf(name);
    expect(
      [at("document"), at("currency")].every((i) => i > 0),
      String(header),
    ).toBe(true);
    let account1: ExcelJS.Row | undefined;
    const totals: string[] = [];
    summary.eachRow((row) => {
      if (row.getCell(1).value === "1") account1 = row;
      if (String(row.getCell(1).value).startsWith("Total of the documents in"))
        totals.push(`${row.getCell(1).value} ${row.getCell(at("tax")).value} ${row.getCell(at("amount due")).value}`);
    });
    expect([
      account1!.getCell(at("document")).value,
      account1!.getCell(at("currency")).value,
      account1!.getCell(at("amount due")).value,
    ]).toEqual([issued.number, "JPY", Number(issued.gross)]);
    expect(totals).toEqual([
      `Total of the documents in JPY (1) ${Number(issued.tax)} ${Number(issued.gross)}`,
      expect.stringMatching(/^Total of the documents in EUR \(1\) [\d.]+ [\d.]+$/),
    ]);
  });

  it("the dashboard's account page, started with the euro price list, gives the issued invoice's amount due in yen", async () => {
    const dashboard = await serveDashboard({ db, port: 0, prices: await loadPrices(path("prices-eur.yaml")) });
    try {
      const page = await (await fetch(`${dashboard.url}account/1?month=2026-10`)).text();
      const grouped = String(issued.gross).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
      const card = page.slice(
        page.indexOf('id="account-amount-due"'),
        page.indexOf("</div></div>", page.indexOf('id="account-amount-due"')),
      );
      expect(card).toContain(grouped);
      expect(card).toContain("JPY");
      expect(card).not.toContain("EUR");
      expect(page).toContain(`Amount due, invoice ${issued.number} issued 2026-11-02 (tax included), in JPY`);
    } finally {
      await dashboard.close();
    }
  });

  it("invoices list gives each document's due date, as text, CSV and JSON", async () => {
    const json = JSON.parse((await runCli(["invoices", "list", "--db", db, "--format", "json"])).stdout) as {
      dueDate: string;
    }[];
    expect(json.map((d) => d.dueDate)).toEqual(["2026-12-02"]);
    const csv = (await runCli(["invoices", "list", "--db", db, "--format", "csv"])).stdout.split("\r\n");
    expect(csv[1]!.split(",")[csv[0]!.split(",").indexOf("due_date")]).toBe("2026-12-02");
    expect((await runCli(["invoices", "list", "--db", db])).stdout).toContain("due 2026-12-02");
  });
});
