import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { open } from "../../src/index.js";
import { validate, type Failure } from "../helpers/einvoiceRules.js";
import { describeWith } from "../helpers/prerequisites.js";
import { issueOctober } from "../helpers/octoberSetup.js";
import { runCli, type CliRun } from "../helpers/runCli.js";
import { codeBlocks, readDoc, recipeSteps, runShell, section, shownFiles } from "../helpers/shellExamples.js";

// docs/billing.md's month-end recipe, run as the page writes it: its two files written from the
// blocks that show them, its commands run in order through bash against the CLI on the warehouse
// its own lines make (a generated October of accounts 7101 to 7104), on 20 November 2026; what
// the page says they print is what they print, and the figures its sentences state are the
// register's. Then its "Customers of several accounts" config, issued as written.

const BILLING = readDoc("docs/billing.md");
const RECIPE = section(BILLING, /^### The month-end recipe/);
const CUSTOMERS = section(BILLING, /^### Customers of several accounts/);
/** The recipe's words, its line breaks as spaces: the sentences that state its figures. */
const PROSE = RECIPE.replace(/\s+/g, " ");
const NOW = "2026-11-20T09:00:00Z";

let dir: string;
const path = (...parts: string[]) => join(dir, ...parts);
const steps = recipeSteps(RECIPE);
let runs: { line: string; run: CliRun }[];

/** A record of the register as its JSON reads (amounts as the decimal strings recorded): what the page's figures are compared with. */
type Plain = Record<string, any>;
let documents: Record<string, { document: Plain; receivable: Plain }>;

async function registerOf(db: string): Promise<Record<string, { document: Plain; receivable: Plain }>> {
  const store = await open({ db });
  try {
    const entries = await store.invoiceRegister({ nowEpoch: Date.parse(NOW) / 1000 });
    return Object.fromEntries(entries.map((e) => [e.document.number, JSON.parse(JSON.stringify(e)) as never]));
  } finally {
    store.close();
  }
}

/** Printed text as a reader compares it: runs of blanks as one space; a shown line ending in "…" stands for any line it starts. */
function samePrinted(printed: string, shown: string): void {
  const lines = (text: string) =>
    text
      .trim()
      .split("\n")
      .map((l) => l.replace(/\s+/g, " ").trim());
  const got = lines(printed);
  const want = lines(shown);
  expect(got.length, printed).toBe(want.length);
  want.forEach((w, i) => {
    if (w.endsWith("…")) expect(got[i]!.startsWith(w.slice(0, -1)), `${got[i]} is not ${w}`).toBe(true);
    else expect(got[i]).toBe(w);
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cloudunits-month-end-recipe-"));
  for (const [name, text] of Object.entries(shownFiles(RECIPE))) writeFileSync(path(name), text);
  runs = [];
  for (const line of steps.flatMap((s) => s.lines)) {
    const run = await runShell(line, dir, { CLOUDUNITS_TEST_NOW: NOW });
    runs.push({ line, run });
    if (run.code !== 0) return; // the first test names it
  }
  documents = await registerOf(path("october.duckdb"));
}, 600_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("docs/billing.md's month-end recipe, as written", { timeout: 300_000 }, () => {
  it("shows its two files in full and runs every command, in order, with exit 0", () => {
    expect(Object.keys(shownFiles(RECIPE))).toEqual(["statement.yaml", "prices.yaml"]);
    expect(runs.map((r) => r.line.split(" ").slice(0, 3).join(" "))).toEqual([
      "cloudunits generate --out",
      "cloudunits ingest october/",
      "cloudunits billing --db",
      "cloudunits invoices issue",
      "cloudunits invoices credits",
      "cloudunits invoices verify",
      "cloudunits invoices credit",
      "cloudunits invoices correct",
      "cloudunits invoices verify",
      "cloudunits invoices list",
    ]);
    for (const { line, run } of runs) expect(run.code, `${line}\n${run.stderr}`).toBe(0);
  });

  it("prints what the page shows: the prepaid credit's movements, then the month's register", () => {
    const shown = steps.filter((s) => s.prints !== undefined);
    expect(shown.map((s) => s.lines.at(-1)!.split(" ").slice(0, 3).join(" "))).toEqual([
      "cloudunits invoices credits",
      "cloudunits invoices list",
    ]);
    for (const step of shown) {
      const { run } = runs.find((r) => r.line === step.lines.at(-1))!;
      samePrinted(run.stdout, step.prints!);
    }
  });

  it("drafts one PDF per account, and issues a PDF and an e-invoice per document", () => {
    expect(readdirSync(path("drafts")).sort()).toEqual([7101, 7102, 7103, 7104].map((a) => `draft-${a}-2026-10.pdf`));
    const numbers = ["CN-2026-00001", "CN-2026-00002", "INV-2026-00001", "INV-2026-00002", "INV-2026-00003"];
    expect(readdirSync(path("invoices-2026-10")).sort()).toEqual(
      [...numbers, "INV-2026-00004"].flatMap((n) => [`${n}.pdf`, `${n}.xml`]),
    );
    expect(readFileSync(path("head-2026-10.txt"), "utf8")).toMatch(/^register head 5:[0-9a-f]{64}\n$/);
  });

  it("issue says what is left to pay, as the PDF and the e-invoice do: hafenkontor's total less its prepaid credit", () => {
    const issued = runs.find((r) => r.line.startsWith("cloudunits invoices issue"))!.run.stdout;
    // 846.61 net + 160.86 VAT = 1007.47 total; 500.00 prepaid consumed: 1007.47 − 500.00 = 507.47 due
    expect(issued).toContain(
      "issued INV-2026-00002 (customer hafenkontor, accounts 7102, 7103, 2026-11-02): amount due 507.47 EUR (after prepaid credit 500.00 of 1007.47; net 846.61, tax 160.86)",
    );
    expect(issued).not.toContain("amount due 1007.47");
  });

  it("hafenkontor: one invoice of its two accounts, the contract's discount, the prepaid credit, as the page states", () => {
    const { document: d, receivable } = documents["INV-2026-00002"]!;
    expect([d.customerId, d.accountIds]).toEqual(["hafenkontor", [7102, 7103]]);
    const lines = (account: number) =>
      d.lines.filter((l: Plain) => l.accountId === account).map((l: Plain) => [l.unit, l.net]);
    expect(lines(7102)).toEqual([
      ["CU", "526.55"],
      ["SU", "20.18"],
      ["TU", "77.67"],
      ["NU", "3.21"],
    ]);
    expect(lines(7103)).toEqual([
      ["CU", "150.70"],
      ["SU", "31.60"],
      ["TU", "44.41"],
      ["NU", "60.02"],
    ]);
    // 526.55 + 20.18 + 77.67 + 3.21 = 627.61; 150.70 + 31.60 + 44.41 + 60.02 = 286.73
    expect(d.sections.map((s: Plain) => [s.accountId, s.net])).toEqual([
      [7102, "627.61"],
      [7103, "286.73"],
    ]);
    // 10 % of 526.55 = 52.655 → 52.66 (half-even: 5 is odd); 10 % of 150.70 = 15.07; each names the
    // account it was taken of, as the customer reads the two beside the two sections
    expect(d.allowances.map((a: Plain) => [a.reason, a.base, a.amount])).toEqual([
      ["Contract discount 10 % on CU of account 7102", "526.55", "52.66"],
      ["Contract discount 10 % on CU of account 7103", "150.70", "15.07"],
    ]);
    // net 627.61 + 286.73 − 52.66 − 15.07 = 846.61; VAT 846.61 × 19 % = 160.8559 → 160.86; total 1007.47
    // the credit (500.00) pays 500.00 of it: 1007.47 − 500.00 = 507.47 due
    expect([d.net, d.tax, d.gross, d.prepaid.amount]).toEqual(["846.61", "160.86", "1007.47", "500.00"]);
    expect(d.customer.reference).toBe("hafenkontor"); // no reference in the config: the customer id
    for (const words of [
      "7102's lines add up to 627.61 (CU 526.55, SU 20.18, TU 77.67, NU 3.21)",
      "7103's to 286.73 (CU 150.70, SU 31.60, TU 44.41, NU 60.02)",
      "−52.66 and −15.07 (52.655 rounded half-even), so the net is 846.61, the VAT 19 % of it 160.86, the total 1007.47",
      "the credit pays 500.00 of it in advance, and 507.47 EUR is due",
    ])
      expect(PROSE).toContain(words);
    // after the partial credit note of 20 Nov: 1007.47 − 500.00 prepaid − 71.42 credited = 436.05 outstanding
    expect([receivable.outstanding, receivable.status]).toEqual(["436.05", "open"]);
    const xml = readFileSync(path("invoices-2026-10", "INV-2026-00002.xml"), "utf8");
    for (const id of [7102, 7103]) expect(xml).toContain(`<cbc:Note>Account ${id}`);
    expect(xml).toContain('<cbc:PrepaidAmount currencyID="EUR">500.00</cbc:PrepaidAmount>');
    expect(xml).toContain('<cbc:PayableAmount currencyID="EUR">507.47</cbc:PayableAmount>');
    expect(xml).toContain("<cbc:AllowanceChargeReason>Contract discount 10 % on CU of account 7103<");
  });

  it("Sakura Handel: whole yen, and its VAT in EUR at the rate of the issue date, as the page states", () => {
    const { document: d } = documents["INV-2026-00003"]!;
    // VAT 124023 × 19 % = 23564.37 → 23564 JPY; 124023 + 23564 = 147587; in EUR 23564 × 0.0061 = 143.7404 → 143.74
    expect([d.currency, d.net, d.tax, d.gross]).toEqual(["JPY", "124023", "23564", "147587"]);
    expect(d.taxInAccountingCurrency).toEqual({ currency: "EUR", rate: "0.0061", amount: "143.74" });
    expect(PROSE).toContain("124023 JPY net, VAT 23564 JPY (19 %, whole yen), 147587 JPY due");
    expect(PROSE).toContain("23564 × 0.0061 = 143.74 EUR");
    const xml = readFileSync(path("invoices-2026-10", "INV-2026-00003.xml"), "utf8");
    expect(xml).toContain("<cbc:TaxCurrencyCode>EUR</cbc:TaxCurrencyCode>");
    expect(xml).toContain('<cbc:TaxAmount currencyID="EUR">143.74</cbc:TaxAmount>');
  });

  it("20 November: 7103's traffic credited in part, 7101's invoice corrected in full, as the page states", () => {
    const { document: credit } = documents["CN-2026-00001"]!;
    // the NU line of 7103, 60.02, and its VAT 60.02 × 19 % = 11.4038 → 11.40: 71.42
    expect(credit.lines.map((l: Plain) => [l.unit, l.accountId, l.net])).toEqual([["NU", 7103, "-60.02"]]);
    expect([credit.corrects.number, credit.net, credit.tax, credit.gross]).toEqual([
      "INV-2026-00002",
      "-60.02",
      "-11.40",
      "-71.42",
    ]);
    expect(PROSE).toContain("its NU line, 60.02, and its VAT, 11.40 (19 % of 60.02, rounded half-even): 71.42");
    // 1007.47 − 71.42 = 936.05 in force; 1007.47 − 500.00 − 71.42 = 436.05 outstanding
    expect(PROSE).toContain("so 936.05 of the invoice remains in force, and 436.05 is outstanding");
    const { document: cancel } = documents["CN-2026-00002"]!;
    const { document: replacement } = documents["INV-2026-00004"]!;
    expect([cancel.corrects.number, cancel.gross, replacement.corrects.number, replacement.gross]).toEqual([
      "INV-2026-00001",
      "-343.91",
      "INV-2026-00001",
      "343.91",
    ]);
    expect(documents["INV-2026-00001"]!.receivable.status).toBe("credited");
    // EUR due, credit notes deducted: 343.91 + 507.47 − 71.42 − 343.91 + 343.91 = 779.96
    expect(PROSE).toContain("EUR's 779.96 is 343.91 + 507.47 − 71.42 − 343.91 + 343.91");
    const verified = runs.find((r) => r.line.includes("--head"))!.run.stdout;
    expect(verified).toContain(
      "6 documents in 2 sequences verified: every one as issued, its files byte for byte, no number missing; its first 5 links are those of the head kept",
    );
  });

  describeWith("saxon", "the recipe's e-invoices and the official rules", () => {
    describeWith("einvoice-rules", "EN 16931 and Peppol BIS 3.0", () => {
      let failures: Failure[];
      beforeAll(() => {
        mkdirSync(path("xml"));
        for (const name of readdirSync(path("invoices-2026-10")).filter((n) => n.endsWith(".xml")))
          copyFileSync(path("invoices-2026-10", name), path("xml", name));
        failures = validate(path("xml"));
      }, 300_000);
      it("every document it issues (reverse charge, two accounts with a contract and prepaid credit, yen, a partial and a full credit note): no fatal error", () => {
        expect(readdirSync(path("xml"))).toHaveLength(6);
        expect(PROSE).toContain("Every one of the six e-invoices passes the EN 16931 and Peppol BIS 3.0 rules");
        expect(failures.filter((f) => f.flag === "fatal")).toEqual([]);
      });
    });
  });
});

describe("docs/billing.md's customers of several accounts, as written", { timeout: 300_000 }, () => {
  it("its config, under the recipe's issuer: one invoice for hafenkontor's two accounts, each its section; 7101 alone", async () => {
    const [shown] = codeBlocks(CUSTOMERS, "yaml");
    const customers = (parse(shown!) as { customers: Record<string, Plain> }).customers;
    // the same customers as the recipe's config, the contract aside
    const recipe = (parse(shownFiles(RECIPE)["statement.yaml"]!) as { customers: Record<string, Plain> }).customers;
    const { contract: _contract, ...hafenkontor } = recipe.hafenkontor!;
    expect(customers).toEqual({ hafenkontor, "7101": { ...recipe["7101"], reference: undefined } });
    const statement = readFileSync(path("statement.yaml"), "utf8");
    writeFileSync(path("customers.yaml"), statement.slice(0, statement.indexOf("customers:\n")) + shown);
    const db = path("customers.duckdb");
    expect((await runCli(["ingest", path("october"), "--db", db])).code).toBe(0);
    // --account-id 7103 means the invoice of 7103's customer, of both its accounts
    const files = { db, statement: path("customers.yaml"), prices: path("prices.yaml"), out: path("customers") };
    const run = await issueOctober(
      files,
      ["--issue-date", "2026-11-02", "--account-id", "7101", "--account-id", "7103"],
      NOW,
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^issued INV-2026-00001 \(account 7101, 2026-11-02\)/m);
    expect(run.stdout).toMatch(/^issued INV-2026-00002 \(customer hafenkontor, accounts 7102, 7103, 2026-11-02\)/m);
    const { document: d } = (await registerOf(db))["INV-2026-00002"]!;
    // the recipe's sections without the contract: 627.61 + 286.73 = 914.34; VAT 914.34 × 19 % = 173.7246 → 173.72
    expect(d.sections.map((s: Plain) => [s.accountId, s.net])).toEqual([
      [7102, "627.61"],
      [7103, "286.73"],
    ]);
    expect([d.net, d.tax, d.gross, d.taxes.length]).toEqual(["914.34", "173.72", "1088.06", 1]);
    const xml = readFileSync(path("customers", "INV-2026-00002.xml"), "utf8");
    expect(xml).toContain("<cbc:BuyerReference>hafenkontor</cbc:BuyerReference>");
    for (const id of [7102, 7103]) expect(xml).toContain(`<cbc:Note>Account ${id}`);
  });
});
