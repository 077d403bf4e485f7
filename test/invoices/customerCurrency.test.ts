import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Exact } from "../../src/billing/exact.js";
import type { RegisterListItem } from "../../src/invoices/render/registerReport.js";
import { jsonOf, type JsonOf } from "../helpers/jsonOf.js";
import { ingest, open, writeDataset, type InvoiceDocument } from "../../src/index.js";
import { runCli } from "../helpers/runCli.js";

// A customer paying in yen beside one paying in euros, against the tool as a user runs it and a
// warehouse file: account 1 pays EUR, account 2 (a German customer) JPY under its own prices in the
// one price list; the issuer accounts for VAT in EUR, so account 2's invoice gives its VAT in EUR too.

const NOW = "2026-11-02T08:00:00Z";
const env = { CLOUDUNITS_TEST_NOW: NOW };
let dir: string;
let db: string;
const path = (...parts: string[]) => join(dir, ...parts);
const dec = (text: string) => Exact.parse(text)!;

const ISSUER = [
  "issuer: { legalName: Nordlicht Cloud Services GmbH, address: [Hafenstraße 12, 20457 Hamburg], country: DE, vatId: DE123456789,",
  "  peppolId: '9930:DE123456789', tax: { category: S, ratePercent: 19 }, contact: [billing@nordlicht.example, +49 40 1234567],",
  "  bank: [IBAN DE89 3704 0044 0532 0130 00] }",
  "customers:",
  "  '1': { legalName: Hanse Logistik AG, address: [Am Sandtorkai 1, 20457 Hamburg], country: DE, vatId: DE987654321, peppolId: '9930:DE987654321' }",
  "  '2': { legalName: Sakura Handel GmbH, address: [Immermannstraße 1, 40210 Düsseldorf], country: DE, vatId: DE111111111, peppolId: '9930:DE111111111' }",
];

/** The register, as `invoices list --format json` prints it. */
async function listed(): Promise<JsonOf<RegisterListItem>[]> {
  const run = await runCli(["invoices", "list", "--db", db, "--format", "json"], env);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as JsonOf<RegisterListItem>[];
}

/** The register's documents, in order. */
/** The register's documents as it records them: amounts as their texts. */
async function documents(): Promise<JsonOf<InvoiceDocument>[]> {
  const store = await open({ db });
  try {
    return jsonOf((await store.invoiceRegister()).map((e) => e.document));
  } finally {
    store.close();
  }
}

const issue = (prices: string, statement = "statement.yaml") =>
  runCli(
    [
      "invoices",
      "issue",
      "--db",
      db,
      "--month",
      "2026-10",
      "--statement",
      path(statement),
      "--prices",
      path(prices),
      "--out",
      path("issued"),
      "--issue-date",
      "2026-11-02",
    ],
    env,
  );

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cloudunits-customer-currency-"));
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
  writeFileSync(path("no-rate.yaml"), ISSUER.join("\n"));
  writeFileSync(path("statement.yaml"), [...ISSUER, "fxRates: { JPY: { '2026-11-02': 0.0061 } }"].join("\n"));
  writeFileSync(
    path("prices.yaml"),
    [
      "currency: EUR",
      "prices: { CU: 0.05, SU: { perMonth: 40 } }",
      "customers:",
      "  '2': { currency: JPY, prices: { CU: 8, SU: { perMonth: 6000 } } }",
    ].join("\n"),
  );
  // the issue's finding: account 2 priced in EUR now, its October issued in JPY
  writeFileSync(path("prices-eur.yaml"), "currency: EUR\nprices: { CU: 0.05, SU: { perMonth: 40 } }\n");
}, 180_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a currency per customer", { timeout: 120_000 }, () => {
  it("no EUR rate for the issue date: refused before any number is given (exit 2), the key named", async () => {
    const run = await issue("prices.yaml", "no-rate.yaml");
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain('fxRates.JPY."2026-11-02"');
    expect(run.stderr).toContain("nothing was numbered");
    expect(await documents()).toEqual([]);
  });

  it("one price list: account 1 invoiced in EUR, account 2 in JPY at its own prices (whole yen), its VAT also in EUR", async () => {
    const run = await issue("prices.yaml");
    expect(run.code, run.stderr).toBe(0);
    const [eur, yen] = await documents();
    expect([eur!.accountId, eur!.currency, eur!.decimals, yen!.accountId, yen!.currency, yen!.decimals]).toEqual([
      1,
      "EUR",
      2,
      2,
      "JPY",
      0,
    ]);
    expect(eur!.taxInAccountingCurrency).toBeUndefined();
    // each JPY line: its quantity × its JPY price (CU 8 per CU-hour, SU 6000 per SU-month), rounded half-even to the yen
    const price: Record<string, string> = { CU: "8", SU: "6000" };
    for (const line of yen!.lines) {
      expect(line.unitPrice).toBe(price[line.unit]);
      expect(line.net).toBe(dec(line.quantity).mul(dec(price[line.unit]!)).toFixed(0));
    }
    // net = Σ lines; VAT 19% rounded to the yen; gross = net + VAT
    const net = yen!.lines.reduce((a, l) => a.add(dec(l.net)), Exact.ZERO);
    expect(yen!.net).toBe(net.toFixed(0));
    expect(yen!.tax).toBe(net.mul(dec("0.19")).toFixed(0));
    expect(yen!.gross).toBe(net.add(dec(yen!.tax)).toFixed(0));
    // the VAT in EUR: the yen VAT × 0.0061, rounded half-even to the cent
    expect(yen!.taxInAccountingCurrency).toEqual({
      currency: "EUR",
      rate: "0.0061",
      amount: dec(yen!.tax).mul(dec("0.0061")).toFixed(2),
    });
    const xml = readFileSync(path("issued", `${yen!.number}.xml`), "utf8");
    expect(xml).toContain("<cbc:DocumentCurrencyCode>JPY</cbc:DocumentCurrencyCode>");
    expect(xml).toContain("<cbc:TaxCurrencyCode>EUR</cbc:TaxCurrencyCode>");
    expect(xml).toContain(`<cbc:TaxAmount currencyID="EUR">${yen!.taxInAccountingCurrency!.amount}</cbc:TaxAmount>`);
    // invoices list: each document in its own currency
    expect((await listed()).map((i) => [i.number, i.currency, i.gross])).toEqual([
      [eur!.number, "EUR", eur!.gross],
      [yen!.number, "JPY", yen!.gross],
    ]);
  });

  it("issued again with a config that no longer holds the rate of its issue date: the same files, nothing asked (the rate is the record's)", async () => {
    const before = await documents();
    const files = readdirSync(path("issued")).map((f) => [f, readFileSync(path("issued", f)).toString("base64")]);
    const again = await issue("prices.yaml", "no-rate.yaml");
    expect(again.code, again.stderr).toBe(0);
    expect(await documents()).toEqual(before);
    expect(readdirSync(path("issued")).map((f) => [f, readFileSync(path("issued", f)).toString("base64")])).toEqual(
      files,
    );
  });

  it("billing with the one list: a table and a total per currency, never a sum of EUR and JPY; CSV and FOCUS carry each account's currency", async () => {
    const [eur, yen] = await documents();
    const base = ["billing", "--db", db, "--month", "2026-10", "--prices", path("prices.yaml")];
    const text = await runCli([...base, "--format", "text"], env);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain("amounts (EUR) per priced unit, the accounts billed in EUR:");
    expect(text.stdout).toContain("amounts (JPY) per priced unit, the accounts billed in JPY:");
    // the billing report's amount due is before tax: the invoices' net amounts
    expect(text.stdout).toContain(
      `total amount due per currency (never added across currencies): ${eur!.net} EUR (1 account); ${yen!.net} JPY (1 account);`,
    );
    expect(text.stdout).not.toMatch(/^total amount due: /m);

    const csv = await runCli([...base, "--format", "csv"], env);
    expect(csv.code, csv.stderr).toBe(0);
    const rows = csv.stdout
      .trim()
      .split("\r\n")
      .map((r) => r.split(","));
    const header = rows[0]!;
    const account = (id: string) => rows.find((r) => r[0] === "account" && r[1] === id)!;
    const cell = (row: string[], name: string) => row[header.indexOf(name)];
    expect(header).toContain("currency");
    expect(header).toContain("amount due (the row's currency)");
    expect([cell(account("1"), "currency"), cell(account("1"), "amount due (the row's currency)")]).toEqual([
      "EUR",
      eur!.net,
    ]);
    expect([cell(account("2"), "currency"), cell(account("2"), "amount due (the row's currency)")]).toEqual([
      "JPY",
      yen!.net,
    ]);
    // the environment's row adds no money across currencies
    expect(
      cell(
        rows.find((r) => r[0] === "environment")!,
        "amount due (the row's currency)",
      ),
    ).toBe("");

    const focus = await runCli([...base, "--format", "focus-csv"], env);
    expect(focus.code, focus.stderr).toBe(0);
    // a CSV row's cells (quoted cells hold commas)
    const cellsOf = (line: string) =>
      [...line.matchAll(/("(?:[^"]|"")*"|[^,]*)(,|$)/g)].map((m) => m[1]!.replace(/^"|"$/g, "")).slice(0, -1);
    const [focusHeader, ...focusRows] = focus.stdout.trim().split("\r\n");
    const columns = cellsOf(focusHeader!);
    const currencies = new Map<string, Set<string>>();
    for (const r of focusRows) {
      const cells = cellsOf(r);
      const id = cells[columns.indexOf("BillingAccountId")]!;
      currencies.set(id, (currencies.get(id) ?? new Set()).add(cells[columns.indexOf("BillingCurrency")]!));
    }
    expect(Object.fromEntries([...currencies].map(([id, set]) => [id, [...set]]))).toEqual({
      "1": ["EUR"],
      "2": ["JPY"],
    });
  });

  it("issued in JPY, now priced in EUR: issue and correct refuse (exit 2), a currency changes only from a month not issued; nothing is numbered", async () => {
    const [, yen] = await documents();
    const again = await issue("prices-eur.yaml");
    expect(again.code, again.stderr).toBe(2);
    expect(again.stderr).toContain(`${yen!.number} (account 2) was issued in JPY`);
    expect(again.stderr).toContain("a currency changes only from a month that has not been issued");
    const correct = await runCli(
      [
        "invoices",
        "correct",
        "--db",
        db,
        "--number",
        yen!.number,
        "--reason",
        "priced in EUR now",
        "--statement",
        path("statement.yaml"),
        "--prices",
        path("prices-eur.yaml"),
        "--out",
        path("issued"),
      ],
      env,
    );
    expect(correct.code, correct.stderr).toBe(2);
    expect(correct.stderr).toContain("a currency changes only from a month that has not been issued");
    expect(await documents()).toHaveLength(2);
  });

  it("corrected with its own prices: credit note and new invoice in JPY, the credit note's EUR VAT the original's negated; original + credit note + new = new", async () => {
    const [, yen] = await documents();
    const run = await runCli(
      [
        "invoices",
        "correct",
        "--db",
        db,
        "--number",
        yen!.number,
        "--reason",
        "checked again",
        "--statement",
        path("statement.yaml"),
        "--prices",
        path("prices.yaml"),
        "--out",
        path("issued"),
        "--issue-date",
        "2026-11-02",
      ],
      env,
    );
    expect(run.code, run.stderr).toBe(0);
    const [, , credit, replacement] = await documents();
    expect([credit!.kind, credit!.currency, replacement!.kind, replacement!.currency]).toEqual([
      "creditNote",
      "JPY",
      "invoice",
      "JPY",
    ]);
    expect(credit!.taxInAccountingCurrency).toEqual({
      ...yen!.taxInAccountingCurrency!,
      amount: `-${yen!.taxInAccountingCurrency!.amount}`,
    });
    // original + credit note + new = new, in yen
    expect(dec(yen!.gross).add(dec(credit!.gross)).add(dec(replacement!.gross)).toFixed(0)).toBe(replacement!.gross);
  });
});
