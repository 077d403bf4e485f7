import { spawn } from "node:child_process";
import { jsonOf } from "../helpers/jsonOf.js";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { documentWords } from "../../src/invoices/document/documentWords.js";
import type { IssueStep } from "../../src/invoices/recordDocuments.js";
import { ingest, open, writeDataset, type CreditStatementLine, type ReceivableEntry } from "../../src/index.js";
import { validate, type Failure } from "../helpers/einvoiceRules.js";
import { describeWith } from "../helpers/prerequisites.js";
import { LIBRARY, runCli } from "../helpers/runCli.js";
import { codeBlocks, readDoc, REPO, runShell, section } from "../helpers/shellExamples.js";

// docs/billing.md's contract, issued month by month through the CLI from a warehouse, as the page
// writes it: a 10 % discount on CU, a monthly commitment of 1000.00 EUR from 16 January, and a
// prepaid credit of 3000.00 EUR (tax included) valid January to March, consumed oldest first over
// three invoices, March corrected in full (the credit given back, consumed again), what is left
// expiring with April's. Customer 7102 of examples/statement.yaml: standard rated, 19 %.

const NOW = "2026-05-02T08:00:00Z";
const CONTRACTS = section(readDoc("docs/billing.md"), /^## Contracts/);
let dir: string;
let base: string;
const path = (...parts: string[]) => join(dir, ...parts);

function warehouse(name: string): string {
  copyFileSync(base, path(name));
  return path(name);
}

async function withStore<T>(db: string, fn: (store: Awaited<ReturnType<typeof open>>) => Promise<T>): Promise<T> {
  const store = await open({ db });
  try {
    return await fn(store);
  } finally {
    store.close();
  }
}
const register = (db: string) => withStore(db, (s) => s.invoiceRegister({ nowEpoch: Date.parse(NOW) / 1000 }));
const credits = (db: string) => withStore(db, (s) => s.credits({ customerId: "7102" }));
const movements = (lines: readonly CreditStatementLine[]) =>
  lines.map((l) => [l.movement, String(l.amount), l.number, String(l.balance)]);

const issue = (db: string, month: string, issueDate: string, statement = "contract.yaml", prices = "prices.yaml") =>
  runCli(
    [
      "invoices",
      "issue",
      "--db",
      db,
      "--month",
      month,
      "--statement",
      path(statement),
      "--prices",
      path(prices),
      "--out",
      path(`out-${month}-${statement}`),
      "--account-id",
      "7102",
      "--issue-date",
      issueDate,
    ],
    { CLOUDUNITS_TEST_NOW: NOW },
  );

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cloudunits-contracts-"));
  await writeDataset({
    out: path("data"),
    accounts: 1,
    firstAccountId: 7102,
    spaces: 1,
    machines: 1,
    hours: 2880, // January to April 2026: 744 + 672 + 744 + 720 hours
    start: Date.parse("2026-01-01T00:00:00Z") / 1000,
    seed: 5,
  });
  base = path("base.duckdb");
  await ingest([path("data")], { db: base });
  // the contract of the page, under customer 7102 of the shipped statement config
  const [contract] = codeBlocks(CONTRACTS, "yaml");
  const customer = '    peppolId: "9930:DE987654321"  # no tax of its own: the issuer\'s (S, 19%)\n';
  const shipped = readFileSync(join(REPO, "examples", "statement.yaml"), "utf8");
  expect(shipped).toContain(customer);
  writeFileSync(path("contract.yaml"), shipped.replace(customer, customer + contract));
  writeFileSync(path("prices.yaml"), "currency: EUR\nprices: { CU: 0.05, SU: { perMonth: 40 }, TU: 0.002, NU: 20 }\n");
}, 180_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("docs/billing.md's contract, month by month", { timeout: 300_000 }, () => {
  let entries: ReceivableEntry[];
  let runs: { line: string; stdout: string; stderr: string }[];

  beforeAll(async () => {
    const recipe = codeBlocks(CONTRACTS, "")
      .join("\n")
      .split("\n")
      .filter((l) => l.trim() !== "");
    expect(recipe).toHaveLength(6);
    copyFileSync(base, path("contract.duckdb"));
    runs = [];
    for (const line of recipe) {
      const run = await runShell(line, dir, { CLOUDUNITS_TEST_NOW: NOW });
      expect(run.code, `${line}\n${run.stderr}`).toBe(0);
      runs.push({ line, ...run });
    }
    entries = await register(path("contract.duckdb"));
  }, 300_000);

  const doc = (number: string) => entries.find((e) => e.document.number === number)!;

  it("January: 10 % off CU, the shortfall of half a month's commitment, all of it paid in advance", () => {
    const { document: d, receivable } = doc("INV-2026-00001");
    expect(jsonOf(d.lines.map((l) => [l.unit, l.net]))).toEqual([
      ["CU", "74.40"], // 1488 CU-hours × 0.05
      ["SU", "34.31"],
      ["TU", "27.90"],
      ["NU", "11.21"],
    ]);
    // 74.40 × 10 % = 7.44
    expect(jsonOf(d.allowances?.map((a) => [a.reason, a.base, a.amount]))).toEqual([
      ["Contract discount 10 % on CU", "74.40", "7.44"],
    ]);
    // committed from 16 Jan: 1000 × 384 / 744 hours = 516.129… → 516.13; after discounts
    // 74.40 + 34.31 + 27.90 + 11.21 − 7.44 = 140.38; shortfall 516.13 − 140.38 = 375.75
    expect(jsonOf(d.commitment)).toMatchObject({
      description: "Minimum commitment: shortfall",
      committed: "516.13",
      amount: "375.75",
      start: Date.parse("2026-01-16T00:00:00Z") / 1000,
    });
    // net 140.38 + 375.75 = 516.13; tax 516.13 × 19 % = 98.0647 → 98.06; gross 614.19
    expect(jsonOf([d.net, d.tax, d.gross])).toEqual(["516.13", "98.06", "614.19"]);
    // the credit (3000.00) covers the whole gross: nothing is left to pay
    expect(jsonOf(d.prepaid)).toEqual({ amount: "614.19", credits: [{ id: "ADV-2026-1", amount: "614.19" }] });
    expect([String(receivable.outstanding), receivable.status]).toEqual(["0.00", "paid"]);
    const words = documentWords(d);
    expect(words.lines.map((l) => [l.description, l.net]).slice(4)).toEqual([
      ["Contract discount 10 % on CU", "-7.44"],
      ["Minimum commitment: shortfall", "375.75"],
    ]);
    expect(words.totals.slice(-3)).toEqual([
      { label: "Total, including VAT (EUR)", amount: "614.19" },
      { label: "Paid in advance (prepaid credit ADV-2026-1)", amount: "-614.19" },
      { label: "Amount due (EUR)", amount: "0.00", bold: true },
    ]);
  });

  it("the e-invoice: the allowance (BG-20) and the totals agree, PayableAmount = gross − prepaid", () => {
    const xml = readFileSync(path("invoices", "INV-2026-00001.xml"), "utf8");
    expect(xml).toMatch(
      /<cac:AllowanceCharge>\s*<cbc:ChargeIndicator>false<\/cbc:ChargeIndicator>\s*<cbc:AllowanceChargeReason>Contract discount 10 % on CU<\/cbc:AllowanceChargeReason>\s*<cbc:MultiplierFactorNumeric>10<\/cbc:MultiplierFactorNumeric>\s*<cbc:Amount currencyID="EUR">7.44<\/cbc:Amount>\s*<cbc:BaseAmount currencyID="EUR">74.40<\/cbc:BaseAmount>\s*<cac:TaxCategory>\s*<cbc:ID>S<\/cbc:ID>\s*<cbc:Percent>19<\/cbc:Percent>/,
    );
    // lines 74.40 + 34.31 + 27.90 + 11.21 + 375.75 = 523.57; less 7.44 = 516.13; 614.19 − 614.19 = 0.00
    const totals = /<cac:LegalMonetaryTotal>([\s\S]*)<\/cac:LegalMonetaryTotal>/.exec(xml)![1]!;
    expect([...totals.matchAll(/<cbc:(\w+) currencyID="EUR">([\d.]+)</g)].map((m) => [m[1], m[2]])).toEqual([
      ["LineExtensionAmount", "523.57"],
      ["TaxExclusiveAmount", "516.13"],
      ["TaxInclusiveAmount", "614.19"],
      ["AllowanceTotalAmount", "7.44"],
      ["PrepaidAmount", "614.19"],
      ["PayableAmount", "0.00"],
    ]);
    expect(xml).toContain("<cbc:Name>Minimum commitment: shortfall</cbc:Name>");
  });

  it("February and March: the whole commitment, paid from the credit, oldest first", () => {
    for (const [number, lines, discount, shortfall] of [
      // 67.20 + 30.99 + 25.20 + 7.86 = 131.25; 67.20 × 10 % = 6.72; 1000 − (131.25 − 6.72) = 875.47
      ["INV-2026-00002", "131.25", "6.72", "875.47"],
      // 74.40 + 34.31 + 27.90 + 11.17 = 147.78; 74.40 × 10 % = 7.44; 1000 − (147.78 − 7.44) = 859.66
      ["INV-2026-00003", "147.78", "7.44", "859.66"],
    ]) {
      const { document: d } = doc(number!);
      const sum = d.lines.reduce((s, l) => s + Math.round(Number(l.net) * 100), 0) / 100;
      expect(jsonOf([sum.toFixed(2), d.allowances![0]!.amount, d.commitment!.amount])).toEqual([
        lines,
        discount,
        shortfall,
      ]);
      // net 1000.00, tax 190.00, gross 1190.00, all paid in advance (balance 2385.81, then 1195.81)
      expect(jsonOf([d.net, d.tax, d.gross, d.prepaid?.amount])).toEqual(["1000.00", "190.00", "1190.00", "1190.00"]);
    }
  });

  it("the correction of March: its credit note gives the credit back, the new invoice consumes it again", () => {
    const note = doc("CN-2026-00001").document;
    expect(jsonOf([note.corrects?.number, note.gross, note.prepaid?.amount])).toEqual([
      "INV-2026-00003",
      "-1190.00",
      "-1190.00",
    ]);
    expect(doc("INV-2026-00003").receivable.status).toBe("credited");
    const replacement = doc("INV-2026-00004");
    expect(jsonOf([replacement.document.corrects?.number, replacement.document.prepaid?.amount])).toEqual([
      "INV-2026-00003",
      "1190.00",
    ]);
    // 1190.00 − 1190.00 prepaid: nothing outstanding on either
    expect(String(replacement.receivable.outstanding)).toBe("0.00");
    const xml = readFileSync(path("invoices", "CN-2026-00001.xml"), "utf8");
    expect(xml).toContain('<cbc:PrepaidAmount currencyID="EUR">1190.00</cbc:PrepaidAmount>');
    expect(xml).toContain('<cbc:PayableAmount currencyID="EUR">0.00</cbc:PayableAmount>');
  });

  it("April: the credit expired with what was left; the invoice is paid in money", () => {
    const { document: d, receivable } = doc("INV-2026-00005");
    expect([...jsonOf([d.net, d.tax, d.gross]), d.prepaid]).toEqual(["1000.00", "190.00", "1190.00", undefined]);
    expect(String(receivable.outstanding)).toBe("1190.00");
  });

  it("invoices credits: each movement with the balance after it, never below zero", async () => {
    expect(movements(await credits(path("contract.duckdb")))).toEqual([
      ["granted", "3000", null, "3000"],
      ["consumed", "-614.19", "INV-2026-00001", "2385.81"], // 3000 − 614.19
      ["consumed", "-1190.00", "INV-2026-00002", "1195.81"], // 2385.81 − 1190.00
      ["consumed", "-1190.00", "INV-2026-00003", "5.81"], // 1195.81 − 1190.00
      ["givenBack", "1190.00", "CN-2026-00001", "1195.81"],
      ["consumed", "-1190.00", "INV-2026-00004", "5.81"],
      ["expired", "-5.81", null, "0"], // April 30 is after validTo, 31 Mar
    ]);
    // the listing prints each amount as money in the customer's currency: the grant of 3000 as
    // written in the config is 3000.00 EUR, the balance of 0 after the expiry 0.00 EUR
    expect(runs.at(-1)!.stdout.split("\n")).toEqual([
      "2026-01-01  customer 7102  credit ADV-2026-1  granted  3000.00 EUR  balance 3000.00 EUR",
      "2026-02-02  customer 7102  credit ADV-2026-1  consumed by INV-2026-00001  -614.19 EUR  balance 2385.81 EUR",
      "2026-03-02  customer 7102  credit ADV-2026-1  consumed by INV-2026-00002  -1190.00 EUR  balance 1195.81 EUR",
      "2026-04-01  customer 7102  credit ADV-2026-1  consumed by INV-2026-00003  -1190.00 EUR  balance 5.81 EUR",
      "2026-05-02  customer 7102  credit ADV-2026-1  given back by CN-2026-00001  1190.00 EUR  balance 1195.81 EUR",
      "2026-05-02  customer 7102  credit ADV-2026-1  consumed by INV-2026-00004  -1190.00 EUR  balance 5.81 EUR",
      "2026-03-31  customer 7102  credit ADV-2026-1  expired  -5.81 EUR  balance 0.00 EUR",
      "",
    ]);
    expect(new Set((await credits(path("contract.duckdb"))).map((l) => [l.currency, l.decimals].join(" ")))).toEqual(
      new Set(["EUR 2"]),
    );
  });

  it("issuing a month again writes the same files and consumes nothing; a discount changed since is a difference (exit 9)", async () => {
    const db = path("contract.duckdb");
    const again = await issue(db, "2026-01", "2026-02-02");
    expect(again.code, again.stderr).toBe(0);
    expect(readFileSync(path("out-2026-01-contract.yaml", "INV-2026-00001.xml"))).toEqual(
      readFileSync(path("invoices", "INV-2026-00001.xml")),
    );
    expect(await credits(db)).toHaveLength(7);
    writeFileSync(
      path("twenty.yaml"),
      readFileSync(path("contract.yaml"), "utf8").replace("percent: 10,", "percent: 20,"),
    );
    const changed = await issue(db, "2026-01", "2026-02-02", "twenty.yaml");
    expect(changed.code, changed.stderr).toBe(9);
    // 74.40 × 20 % = 14.88: the discount doubles, the shortfall takes it up (net and gross unchanged)
    expect(changed.stderr).toContain(
      "contract lines Contract discount 10 % on CU −7.44, shortfall 375.75 → Contract discount 20 % on CU −14.88, shortfall 383.19",
    );
  });

  describeWith("saxon", "the contract's e-invoices and the official rules", () => {
    describeWith("einvoice-rules", "EN 16931 and Peppol BIS 3.0", () => {
      let failures: Failure[];
      beforeAll(() => {
        mkdirSync(path("xml"));
        for (const name of readdirSync(path("invoices")).filter((n) => n.endsWith(".xml")))
          copyFileSync(path("invoices", name), path("xml", name));
        failures = validate(path("xml"));
      }, 300_000);
      it("discounts, a shortfall, prepaid credit consumed, given back and consumed again: no fatal error", () => {
        expect(readdirSync(path("xml"))).toHaveLength(6); // INV-2026-00001…00005 and CN-2026-00001
        expect(failures.filter((f) => f.flag === "fatal")).toEqual([]);
      });
    });
  });
});

/** Issues January through the library in a child process that SIGKILLs itself when `onStep` reports `step`. */
function killedAt(db: string, step: IssueStep): Promise<NodeJS.Signals | null> {
  const script = path(`kill-${step}.mjs`);
  writeFileSync(
    script,
    `
    const { open } = await import(${JSON.stringify(LIBRARY)});
    const store = await open({ db: ${JSON.stringify(db)} }, { write: true });
    await store.issueInvoices({
      month: "2026-01", statement: ${JSON.stringify(path("contract.yaml"))}, prices: ${JSON.stringify(path("prices.yaml"))},
      out: ${JSON.stringify(path(`killed-${step}`))}, accountIds: [7102], issueDate: "2026-02-02",
      nowEpoch: Date.parse(${JSON.stringify(NOW)}) / 1000,
      onStep: (s) => { if (s === ${JSON.stringify(step)}) process.kill(process.pid, "SIGKILL"); },
    });
    process.exit(3); // not killed: the step never came
  `,
  );
  const child = spawn(process.execPath, [script], { stdio: "ignore" });
  return new Promise((resolve) => child.on("exit", (_code, signal) => resolve(signal)));
}

describe("a run killed while it consumes prepaid credit", { timeout: 180_000 }, () => {
  it.each([
    { step: "recorded" as const, recorded: false },
    { step: "committed" as const, recorded: true },
  ])(
    "killed when $step: the balance is whole (the consumption is the invoice's, both or neither); run again, a clean run's",
    async ({ step, recorded }) => {
      const db = warehouse(`killed-${step}.duckdb`);
      mkdirSync(path(`killed-${step}`), { recursive: true });
      expect(await killedAt(db, step)).toBe("SIGKILL");
      // 3000 − 614.19 = 2385.81 once January is recorded; nothing moved when it is not
      const consumed = [
        ["granted", "3000", null, "3000"],
        ["consumed", "-614.19", "INV-2026-00001", "2385.81"],
      ];
      expect((await register(db)).map((e) => e.document.number)).toEqual(recorded ? ["INV-2026-00001"] : []);
      expect(movements(await credits(db))).toEqual(recorded ? consumed : []);
      const again = await issue(db, "2026-01", "2026-02-02");
      expect(again.code, again.stderr).toBe(0);
      expect(movements(await credits(db))).toEqual(consumed);
      const verified = await runCli(["invoices", "verify", "--db", db], { CLOUDUNITS_TEST_NOW: NOW });
      expect(verified.code, verified.stdout + verified.stderr).toBe(0);
    },
  );
});

describe("prepaid credit of a customer paying in yen", { timeout: 180_000 }, () => {
  it("invoices credits prints its amounts as whole yen, with the currency", async () => {
    const db = warehouse("yen.duckdb");
    // customer 7102 of the shipped config priced in JPY (CU only), a credit of 20000 JPY, and the EUR rate of the issue date
    const customer = '    peppolId: "9930:DE987654321"  # no tax of its own: the issuer\'s (S, 19%)\n';
    const credit =
      "    contract:\n      credits: [{ id: ADV-JPY-1, amount: 20000, validFrom: 2026-01-01, validTo: 2026-03-31 }]\n";
    writeFileSync(
      path("yen.yaml"),
      readFileSync(join(REPO, "examples", "statement.yaml"), "utf8")
        .replace(customer, customer + credit)
        .replace('JPY: { "2026-11-02": 0.0061 }', 'JPY: { "2026-02-02": 0.0061 }'),
    );
    writeFileSync(
      path("yen-prices.yaml"),
      "currency: EUR\nprices: { CU: 0.05 }\ncustomers:\n  '7102': { currency: JPY, prices: { CU: 8 } }\n",
    );
    const issued = await issue(db, "2026-01", "2026-02-02", "yen.yaml", "yen-prices.yaml");
    expect(issued.code, issued.stderr).toBe(0);
    const listed = await runCli(["invoices", "credits", "--db", db, "--customer", "7102"], {
      CLOUDUNITS_TEST_NOW: NOW,
    });
    expect(listed.code, listed.stderr).toBe(0);
    // January: 1488 CU-hours × 8 JPY = 11904 JPY net; VAT 19 %: 2261.76 → 2262; gross 11904 + 2262 = 14166,
    // all of it consumed from the credit: 20000 − 14166 = 5834 left
    expect(listed.stdout).toBe(
      [
        "2026-01-01  customer 7102  credit ADV-JPY-1  granted  20000 JPY  balance 20000 JPY",
        "2026-02-02  customer 7102  credit ADV-JPY-1  consumed by INV-2026-00001  -14166 JPY  balance 5834 JPY",
        "",
      ].join("\n"),
    );
  });
});
