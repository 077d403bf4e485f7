import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  alerts,
  Exact,
  loadPrices,
  monthPeriod,
  open,
  parseBudgets,
  registerToJson,
  top,
  type BudgetAlert,
  type Store,
} from "../../src/index.js";
import { octoberWarehouse } from "../helpers/octoberWarehouse.js";

// Money through the library is one type: every amount a script reads (a bill's, an issued
// document's, a receivable's, a payment's, a credit note's) is an Exact, added and compared the
// same way, and printed as the register recorded it. October of two accounts (seed 3),
// examples/statement.yaml, issued on 2 Nov 2026, due on 2 Dec 2026 (as test/invoices/partialCredit):
//   INV-2026-00002, account 7102, VAT 19 %: net 231.22, tax 231.22 × 19 % = 43.93, amount due 275.15 EUR

const ISSUED = Date.parse("2026-11-02T08:00:00Z") / 1000;
const DECEMBER_10 = Date.parse("2026-12-10T09:00:00Z") / 1000;
let dir: string;
let store: Store;
const path = (...parts: string[]) => join(dir, ...parts);

/** An Exact of that value, printing (and in JSON) that very text. */
function expectAmount(value: unknown, text: string): void {
  expect(value).toBeInstanceOf(Exact);
  expect((value as Exact).equals(Exact.parse(text)!), `${String(value)} = ${text}`).toBe(true);
  expect(String(value)).toBe(text);
  expect(JSON.stringify(value)).toBe(JSON.stringify(text));
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cloudunits-money-"));
  await octoberWarehouse(dir, path("w.duckdb"));
  store = await open({ db: path("w.duckdb") }, { write: true });
  await store.issueInvoices({
    month: "2026-10",
    statement: path("statement.yaml"),
    prices: path("prices.yaml"),
    out: path("out"),
    nowEpoch: ISSUED,
  });
}, 180_000);
afterAll(() => {
  store?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("money through the library", { timeout: 300_000 }, () => {
  it("is an Exact everywhere: bill, credit note, payment, receivable, register list", async () => {
    // the bill: 65.80 + 0.36 + 2.47 + 162.59 = 231.22 before tax
    const invoice = await store.invoice(
      { ...monthPeriod("2026-10"), accountId: 7102 },
      await loadPrices(path("prices.yaml")),
    );
    expect(invoice.amountDue).toBeInstanceOf(Exact);
    expect(invoice.amountDue.toFixed(2)).toBe("231.22");

    // 10.00 before tax, asked as an Exact a script computed (12.50 − 2.50), VAT 19 %: 1.90, credit
    // note total 11.90; 275.15 − 11.90 = 263.25 remains
    const credit = await store.creditNote({
      number: "INV-2026-00002",
      credit: { amount: Exact.amount("12.50").sub(Exact.amount("2.50")) },
      reason: "machine 3 was down on 3 Oct",
      statement: path("statement.yaml"),
      out: path("out"),
      nowEpoch: ISSUED,
    });
    expectAmount(credit.credited, "11.90");
    expectAmount(credit.remaining, "263.25");

    // 275.15 − 11.90 credited − 100.00 paid (given as an Exact) = 163.25 outstanding
    const paid = await store.recordPayment({
      number: "INV-2026-00002",
      amount: Exact.amount("100.00"),
      date: "2026-11-20",
      nowEpoch: DECEMBER_10,
    });
    expectAmount(paid.amount, "100.00");
    expectAmount(paid.outstanding, "163.25");
    expect(paid.fit).toBe("partial");

    const entries = await store.invoiceRegister({ nowEpoch: DECEMBER_10 });
    const byNumber = new Map(entries.map((e) => [e.document.number, e]));
    const r = byNumber.get("INV-2026-00002")!.receivable;
    expectAmount(r.paid, "100.00");
    expectAmount(r.outstanding, "163.25");
    expectAmount(r.credited, "11.90");
    expectAmount(r.remaining, "263.25");
    expect(r.status).toBe("overdue"); // due 2 Dec, 163.25 outstanding on 10 Dec
    // a credit note owes nothing: 0.00 at the currency's decimals, not "0"
    const note = byNumber.get("CN-2026-00001")!.receivable;
    expectAmount(note.outstanding, "0.00");
    expectAmount(note.paid, "0.00");
    expect(note.credited).toBeNull();
    // the amounts add and compare as they are: paid + outstanding + credited = 100.00 + 163.25 + 11.90 = 275.15
    expect(r.paid.add(r.outstanding).add(r.credited!).equals(Exact.parse("275.15")!)).toBe(true);

    // the issued documents' own figures: 231.22 + 43.93 = 275.15; the credit note's −10.00 − 1.90 = −11.90
    const invoiceDoc = byNumber.get("INV-2026-00002")!.document;
    expectAmount(invoiceDoc.net, "231.22");
    expectAmount(invoiceDoc.tax, "43.93");
    expectAmount(invoiceDoc.gross, "275.15");
    expectAmount(invoiceDoc.taxes[0]!.base, "231.22");
    expectAmount(invoiceDoc.taxes[0]!.amount, "43.93");
    // CU 65.80, SU 0.36, TU 2.47, NU 162.59 (the header's lines)
    invoiceDoc.lines.forEach((l, i) => expectAmount(l.net, ["65.80", "0.36", "2.47", "162.59"][i]!));
    expect(invoiceDoc.lines.reduce((sum, l) => sum.add(l.net), Exact.ZERO).equals(invoiceDoc.net)).toBe(true);
    const noteDoc = byNumber.get("CN-2026-00001")!.document;
    expectAmount(noteDoc.net, "-10.00");
    expectAmount(noteDoc.tax, "-1.90");
    expectAmount(noteDoc.gross, "-11.90");
    expectAmount(credit.creditNote.entry.document.gross, "-11.90");
    // the invoice's gross less what was credited is what remains: 275.15 − 11.90 = 263.25
    expect(invoiceDoc.gross.add(noteDoc.gross).equals(r.remaining!)).toBe(true);

    // the register's JSON prints the amounts as recorded: 275.15 of the invoice, -11.90 of the credit note
    const listed = JSON.parse(registerToJson(entries)) as Record<string, unknown>[];
    const item = (number: string) => listed.find((i) => i.number === number)!;
    expect(item("INV-2026-00002")).toMatchObject({
      net: "231.22",
      tax: "43.93",
      gross: "275.15",
      paid: "100.00",
      outstanding: "163.25",
      credited: "11.90",
      remaining: "263.25",
    });
    expect(item("CN-2026-00001")).toMatchObject({ net: "-10.00", tax: "-1.90", gross: "-11.90", outstanding: "0.00" });
  });

  it("is an Exact in a ranking by cost and in a budget's alert of an amount; a budget of a quantity keeps numbers", async () => {
    const prices = await loadPrices(path("prices.yaml"));
    // ranked by cost: account 7102's cost is its invoice, 65.80 + 0.36 + 2.47 + 162.59 = 231.22 EUR
    const ranking = await top(store.connection, { ...monthPeriod("2026-10"), by: "cost", level: "account", prices });
    const row = ranking.rows.find((r) => r.accountId === 7102)!;
    expectAmount(row.figures.cost, "231.22");
    expect(row.value).toBe(231.22);
    // the rows are in the order of their Exact costs, the largest first
    const costs = ranking.rows.map((r) => r.figures.cost!);
    expect(costs.every((c, i) => i === 0 || costs[i - 1]!.compare(c) >= 0)).toBe(true);

    // October held whole, as of 1 Nov: month to date = month end = 231.22 EUR, 231.22 / 200 = 115.61 % of a 200 EUR budget;
    // CU 65.80 EUR / 0.05 EUR = 1316 CU-hours, 1316 / 1000 = 131.6 % of a 1000 CU-hours budget
    const report = await alerts(store.connection, {
      budgets: parseBudgets({
        budgets: [
          { account: 7102, amount: 200, thresholds: [100] },
          { account: 7102, unit: "CU", quantity: 1000, thresholds: [100] },
        ],
      }),
      prices,
      asOf: Date.parse("2026-11-01T00:00:00Z") / 1000,
    });
    const budgets = report.alerts.filter((a): a is BudgetAlert => a.type === "budget");
    const amount = budgets.find((a) => a.kind === "amount")!;
    expect(amount.kind === "amount" && [amount.unit, amount.basis, amount.percent]).toEqual(["EUR", "actual", 115.61]);
    if (amount.kind !== "amount") return;
    expectAmount(amount.budget, "200");
    expectAmount(amount.value, "231.22");
    expectAmount(amount.monthToDate, "231.22");
    expectAmount(amount.projected, "231.22");
    const quantity = budgets.find((a) => a.kind === "quantity")!;
    expect([quantity.unit, quantity.budget, quantity.value, quantity.percent]).toEqual(["CU-hours", 1000, 1316, 131.6]);
  });
});
