import ExcelJS from "exceljs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { accountHour, HOUR, memoryWarehouse, OCT_1, vm } from "../helpers/warehouse.js";
import { makeNames, parsePrices, warehouseHourly, writeBillingXlsx } from "../../src/internal.js";
import { reportFrom } from "../helpers/billFrom.js";

// Account 7 bills in EUR (the list's), account 8 in JPY (its own prices), hours 0, 1, 2 of October.
// Account 7: 8 GB / 2 vCPUs → 2 CU per hour, 6 CU-hours × 0.01 = 0.06 EUR.
// Account 8: 2 GB / 1 vCPU → 0.5 CU per hour, 1.5 CU-hours × 100 = 150 JPY.
// The Summary never adds 0.06 EUR and 150 JPY: each row says its currency, a total row per currency.
const hours = [0, 1, 2].flatMap((h) => [
  accountHour(7, OCT_1 + h * HOUR, { 11: [vm(1, { mem: 8192, vcpus: 2 })] }),
  accountHour(8, OCT_1 + h * HOUR, { 21: [vm(9, { mem: 2048, vcpus: 1 })] }),
]);

let summary: ExcelJS.Worksheet;

/** The values of the row whose first cell starts with `label`, by header. */
function rowOf(label: string): Record<string, unknown> {
  const header = summary.getRow(8).values as unknown[];
  let found: Record<string, unknown> | undefined;
  summary.eachRow((row) => {
    if (found || !String(row.getCell(1).value ?? "").startsWith(label)) return;
    found = {};
    header.forEach((h, i) => {
      if (typeof h !== "string") return;
      const v = row.getCell(i).value;
      found![h] = v && typeof v === "object" && "result" in v ? v.result : v;
    });
  });
  if (!found) throw new Error(`no row starting with ${label}`);
  return found;
}

beforeAll(async () => {
  const connection = await memoryWarehouse(hours);
  const prices = parsePrices(
    {
      currency: "EUR",
      prices: { CU: "0.01" },
      customers: { "8": { currency: "JPY", prices: { CU: "100" } } },
    },
    "prices.yaml",
  );
  const names = makeNames([
    { kind: "account", id: 7, name: "Euro Kunde" },
    { kind: "account", id: 8, name: "Yen Kunde" },
  ]);
  const report = await reportFrom(connection, { start: OCT_1, end: OCT_1 + 3 * HOUR }, { names }, { prices });
  const file = join(await mkdtemp(join(tmpdir(), "cu-xlsx-ccy-")), "bill.xlsx");
  await writeBillingXlsx(report, warehouseHourly(connection, report), file);
  const book = new ExcelJS.Workbook();
  await book.xlsx.readFile(file);
  summary = book.getWorksheet("Summary")!;
});

describe("the XLSX Summary of accounts billed in EUR and JPY", () => {
  it("says the amounts are in each account's currency, never one list's", () => {
    expect(String(summary.getRow(5).getCell(1).value)).toContain(
      "Amounts in each account's own currency (EUR, JPY), never added across two",
    );
    const header = (summary.getRow(8).values as unknown[]).filter((h) => typeof h === "string");
    expect(header).toContain("currency");
    expect(header).toContain("net amount, excluding tax (the row's currency)");
    expect(header.join("|")).not.toContain("(EUR)");
  });

  it.each([
    // label, currency, net amount: by hand above
    ["7", "EUR", 0.06],
    ["8", "JPY", 150],
    ["Total in EUR (1 account)", "EUR", 0.06],
    ["Total in JPY (1 account)", "JPY", 150],
  ])("row %s: %s %s", (label, currency, net) => {
    const row = rowOf(label);
    expect(row["currency"]).toBe(currency);
    expect(row["net amount, excluding tax (the row's currency)"]).toBe(net);
    expect(row["CU amount (the row's currency)"]).toBe(net);
  });

  it("leaves the money of the all-accounts total empty (0.06 EUR + 150 JPY is no number)", () => {
    const total = rowOf("Total (2 accounts)");
    expect(total["net amount, excluding tax (the row's currency)"] ?? null).toBeNull();
  });
});
