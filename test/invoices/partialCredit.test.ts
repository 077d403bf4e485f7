import { spawn } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RegisterListItem } from "../../src/invoices/render/registerReport.js";
import type { JsonOf } from "../helpers/jsonOf.js";
import { loadPrices, serveDashboard } from "../../src/index.js";
import type { IssueStep } from "../../src/invoices/recordDocuments.js";
import { LIBRARY, runCli } from "../helpers/runCli.js";
import { octoberWarehouse } from "../helpers/octoberWarehouse.js";

// `invoices credit`: a credit note for part of an invoice, by amount (before tax) or by whole lines,
// against the real CLI and a warehouse. October of two accounts (seed 3), examples/statement.yaml:
//   INV-2026-00001, account 7101, reverse charge: net 246.58, tax 0.00, amount due 246.58 EUR
//   INV-2026-00002, account 7102, VAT 19 %: CU 1316 CU-hours × 0.05 = 65.80, SU 0.009 × 40 = 0.36,
//     TU 1233.75 × 0.002 = 2.47, NU 8.1294 × 20 = 162.59: net 231.22, tax 231.22 × 19 % = 43.93, amount due 275.15

const NOW = "2026-11-02T08:00:00Z";
let dir: string;
const path = (...parts: string[]) => join(dir, ...parts);
const env = { CLOUDUNITS_TEST_NOW: NOW };

/** A copy of the warehouse with October issued (INV-2026-00001 and 00002), nothing credited. */
function issued(name: string): string {
  copyFileSync(path("issued.duckdb"), path(name));
  return path(name);
}

const credit = (db: string, number: string, what: string[], out = "out") =>
  runCli(
    [
      "invoices",
      "credit",
      "--db",
      db,
      "--number",
      number,
      ...what,
      "--reason",
      "machine 3 was down on 3 Oct",
      "--statement",
      path("statement.yaml"),
      "--out",
      path(out),
    ],
    env,
  );

async function list(db: string): Promise<JsonOf<RegisterListItem>[]> {
  const run = await runCli(["invoices", "list", "--db", db, "--format", "json"], env);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as JsonOf<RegisterListItem>[];
}
const byNumber = async (db: string) => new Map((await list(db)).map((d) => [d.number, d]));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cloudunits-partial-credit-"));
  await octoberWarehouse(dir, path("issued.duckdb"));
  const run = await runCli(
    [
      "invoices",
      "issue",
      "--db",
      path("issued.duckdb"),
      "--month",
      "2026-10",
      "--statement",
      path("statement.yaml"),
      "--prices",
      path("prices.yaml"),
      "--out",
      path("issued"),
    ],
    env,
  );
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout).toContain(
    "issued INV-2026-00002 (account 7102, 2026-11-02): amount due 275.15 EUR (net 231.22, tax 43.93)",
  );
}, 180_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("invoices credit", { timeout: 300_000 }, () => {
  it("by amount, then by line; the invoice stays in force and list shows what remains; never more than the invoice", async () => {
    const db = issued("credit.duckdb");
    // 10.00 before tax, VAT 19 %: 1.90, credit note total 11.90; 275.15 − 11.90 = 263.25 remains
    const amount = await credit(db, "INV-2026-00002", ["--amount", "10.00"]);
    expect(amount.code, amount.stderr).toBe(0);
    expect(amount.stdout).toContain(
      "credit note CN-2026-00001 of INV-2026-00002: -11.90 EUR (net -10.00, tax -1.90); credited 11.90 of 275.15, 263.25 EUR remains in force",
    );
    const xml = readFileSync(path("out", "CN-2026-00001.xml"), "utf8");
    expect(xml).toMatch(
      /<cac:BillingReference>\s*<cac:InvoiceDocumentReference>\s*<cbc:ID>INV-2026-00002<\/cbc:ID>\s*<cbc:IssueDate>2026-11-02<\/cbc:IssueDate>/,
    );
    expect(xml).toContain('<cbc:PayableAmount currencyID="EUR">11.90</cbc:PayableAmount>');
    expect(xml).toContain("Reason: machine 3 was down on 3 Oct");

    // the CU line whole: 65.80, VAT 65.80 × 19 % = 12.502 → 12.50, total 78.30; 263.25 − 78.30 = 184.95 remains
    const line = await credit(db, "INV-2026-00002", ["--line", "CU"]);
    expect(line.code, line.stderr).toBe(0);
    expect(line.stdout).toContain(
      "credit note CN-2026-00002 of INV-2026-00002: -78.30 EUR (net -65.80, tax -12.50); credited 90.20 of 275.15, 184.95 EUR remains in force",
    );
    expect(readFileSync(path("out", "CN-2026-00002.xml"), "utf8")).toMatch(
      /<cbc:CreditedQuantity unitCode="HUR">1316<\/cbc:CreditedQuantity>\s*<cbc:LineExtensionAmount currencyID="EUR">65.80</,
    );

    const again = await credit(db, "INV-2026-00002", ["--line", "CU"]);
    expect([again.code, again.stderr]).toEqual([
      2,
      expect.stringContaining("CU of INV-2026-00002 was credited already, by CN-2026-00002"),
    ]);
    const ofNote = await credit(db, "CN-2026-00001", ["--amount", "1.00"]);
    expect([ofNote.code, ofNote.stderr]).toEqual([
      2,
      expect.stringContaining(
        "CN-2026-00001 is a credit note: a credit note credits an invoice; credit INV-2026-00002 instead",
      ),
    ]);
    const unknown = await credit(db, "INV-2026-00002", ["--line", "XU"]);
    expect([unknown.code, unknown.stderr]).toEqual([
      2,
      expect.stringContaining('INV-2026-00002 has no line "XU": its lines are CU, SU, TU, NU'),
    ]);
    // before tax, 231.22 − 10.00 − 65.80 = 155.42 remains: a cent more is refused, nothing numbered
    const over = await credit(db, "INV-2026-00002", ["--amount", "155.43"]);
    expect([over.code, over.stderr]).toEqual([
      2,
      expect.stringContaining(
        "a credit of 155.43 EUR before tax is more than what remains of INV-2026-00002: 184.95 EUR with tax (155.42 before tax), 90.20 credited before",
      ),
    ]);

    let docs = await byNumber(db);
    expect([...docs.keys()]).toEqual(["INV-2026-00001", "INV-2026-00002", "CN-2026-00001", "CN-2026-00002"]);
    const inv = docs.get("INV-2026-00002")!;
    expect([inv.correctedBy, inv.credited, inv.remaining, inv.outstanding, inv.status]).toEqual([
      null,
      "90.20",
      "184.95",
      "184.95",
      "open",
    ]);
    expect(docs.get("CN-2026-00001")).toMatchObject({
      kind: "creditNote",
      corrects: "INV-2026-00002",
      gross: "-11.90",
      credited: null,
    });
    const text = await runCli(["invoices", "list", "--db", db], env);
    expect(text.stdout).toMatch(/INV-2026-00002 .* open, 184.95 outstanding .* credited 90.20, 184.95 remains/);
    expect(text.stdout).toMatch(/CN-2026-00002 .* credits part of INV-2026-00002/);

    // the rest, 155.42: its VAT is what remains of it, 43.93 − 1.90 − 12.50 = 29.53 (155.42 × 19 % = 29.5298 → 29.53)
    const rest = await credit(db, "INV-2026-00002", ["--amount", "155.42"]);
    expect(rest.code, rest.stderr).toBe(0);
    expect(rest.stdout).toContain(
      "CN-2026-00003 of INV-2026-00002: -184.95 EUR (net -155.42, tax -29.53); credited 275.15 of 275.15, 0.00 EUR remains",
    );
    docs = await byNumber(db);
    expect(docs.get("INV-2026-00002")).toMatchObject({
      status: "credited",
      remaining: "0.00",
      outstanding: "0.00",
      correctedBy: null,
    });
    const correct = await runCli(
      [
        "invoices",
        "correct",
        "--db",
        db,
        "--number",
        "INV-2026-00002",
        "--reason",
        "late hours",
        "--statement",
        path("statement.yaml"),
        "--prices",
        path("prices.yaml"),
        "--out",
        path("out"),
      ],
      env,
    );
    expect([correct.code, correct.stderr]).toEqual([
      2,
      expect.stringContaining(
        "INV-2026-00002 is credited in full already, by CN-2026-00001, CN-2026-00002, CN-2026-00003",
      ),
    ]);
  });

  it("a correction of an invoice credited in part: its credit note cancels what remains", async () => {
    const db = issued("correct.duckdb");
    // reverse charge: 46.58 before tax, VAT 0; 246.58 − 46.58 = 200.00 remains
    const part = await credit(db, "INV-2026-00001", ["--amount", "46.58"], "correct-out");
    expect(part.code, part.stderr).toBe(0);
    expect(part.stdout).toContain("-46.58 EUR (net -46.58, tax 0.00); credited 46.58 of 246.58, 200.00 EUR remains");
    const correct = await runCli(
      [
        "invoices",
        "correct",
        "--db",
        db,
        "--number",
        "INV-2026-00001",
        "--reason",
        "late hours",
        "--statement",
        path("statement.yaml"),
        "--prices",
        path("prices.yaml"),
        "--out",
        path("correct-out"),
      ],
      env,
    );
    expect(correct.code, correct.stderr).toBe(0);
    expect(correct.stdout).toContain(
      "INV-2026-00001 (amount due 246.58 EUR) corrected: credit note CN-2026-00002 (-200.00), new invoice INV-2026-00003 (246.58)",
    );
    const docs = await byNumber(db);
    // 46.58 + 200.00 = 246.58: cancelled in full
    expect(docs.get("INV-2026-00001")).toMatchObject({
      correctedBy: "CN-2026-00002",
      credited: "246.58",
      remaining: "0.00",
      status: "credited",
    });
    expect(readFileSync(path("correct-out", "CN-2026-00002.xml"), "utf8")).toContain(
      "cancels what remains of invoice INV-2026-00001",
    );
  });

  it("the dashboard's account page gives the credit notes of the issued invoice and what remains of it", async () => {
    const db = issued("dashboard.duckdb");
    expect((await credit(db, "INV-2026-00002", ["--amount", "10.00"], "dashboard-out")).code).toBe(0);
    const dashboard = await serveDashboard({ db, port: 0, prices: await loadPrices(path("prices.yaml")) });
    try {
      const page = await (await fetch(`${dashboard.url}account/7102?month=2026-10`)).text();
      expect(page).toContain("Amount due, invoice INV-2026-00002 issued 2026-11-02 (tax included)");
      // 10.00 + 1.90 = 11.90 credited; 275.15 − 11.90 = 263.25
      expect(page).toMatch(
        /Credited by CN-2026-00001 \(credit notes, tax included\)<\/td><td class="num" id="credited">[^<]*11\.90</,
      );
      expect(page).toMatch(
        /What remains of invoice INV-2026-00002 \(tax included\)<\/td><td class="num" id="remaining">263\.25</,
      );
    } finally {
      await dashboard.close();
    }
  });

  it("refuses an unknown number, a bad amount, nothing to credit, or both ways at once, numbering nothing", async () => {
    const db = issued("refused.duckdb");
    expect((await credit(db, "INV-2026-00009", ["--amount", "1"])).stderr).toContain(
      "no document INV-2026-00009 in the register",
    );
    const both = await credit(db, "INV-2026-00002", ["--amount", "1", "--line", "CU"]);
    expect(both.code).toBe(2);
    expect((await credit(db, "INV-2026-00002", [])).code).toBe(2);
    expect((await credit(db, "INV-2026-00002", ["--amount", "1.001"])).stderr).toContain("at most 2 decimals");
    expect(await list(db)).toHaveLength(2);
  });
});

describe("two credit runs at once, and a run killed", { timeout: 300_000 }, () => {
  it("two runs of 150.00 on one invoice of 231.22 before tax: one credits, the other is refused; never more than the invoice", async () => {
    const db = issued("race.duckdb");
    const [a, b] = await Promise.all([
      credit(db, "INV-2026-00002", ["--amount", "150.00"], "race-a"),
      credit(db, "INV-2026-00002", ["--amount", "150.00"], "race-b"),
    ]);
    expect([a.code, b.code].sort()).toEqual([0, 2]);
    expect(a.stderr + b.stderr).toContain("is more than what remains of INV-2026-00002");
    const docs = await byNumber(db);
    // 150.00 + 150.00 × 19 % = 178.50; 275.15 − 178.50 = 96.65
    expect([...docs.keys()]).toEqual(["INV-2026-00001", "INV-2026-00002", "CN-2026-00001"]);
    expect(docs.get("INV-2026-00002")!.remaining).toBe("96.65");
  });

  /** Credits 10.00 of INV-2026-00002 through the library in a child that SIGKILLs itself when told `step`. */
  function killedAt(db: string, out: string, step: IssueStep): Promise<NodeJS.Signals | null> {
    const script = path(`kill-${step}.mjs`);
    writeFileSync(
      script,
      `
      const { open } = await import(${JSON.stringify(LIBRARY)});
      const store = await open({ db: ${JSON.stringify(db)} }, { write: true });
      await store.creditNote({
        number: "INV-2026-00002", credit: { amount: "10.00" }, reason: "goodwill",
        statement: ${JSON.stringify(path("statement.yaml"))}, out: ${JSON.stringify(out)},
        nowEpoch: Date.parse(${JSON.stringify(NOW)}) / 1000,
        onStep: (step) => { if (step === ${JSON.stringify(step)}) process.kill(process.pid, "SIGKILL"); },
      });
      process.exit(3);
    `,
    );
    const child = spawn(process.execPath, [script], { stdio: "ignore" });
    return new Promise((resolve) => child.on("exit", (_code, signal) => resolve(signal)));
  }

  for (const { step, recorded } of [
    { step: "numbered", recorded: false },
    { step: "rendered", recorded: false },
    { step: "recorded", recorded: false },
    { step: "committed", recorded: true },
    { step: "file", recorded: true },
  ] as const) {
    it(`killed when ${step}: ${recorded ? "the credit note recorded whole" : "no number spent"}; a run again numbers the next`, async () => {
      const db = issued(`killed-${step}.duckdb`);
      expect(await killedAt(db, path(`killed-${step}`), step)).toBe("SIGKILL");
      const again = await credit(db, "INV-2026-00002", ["--amount", "10.00"], `killed-${step}`);
      expect(again.code, again.stderr).toBe(0);
      const notes = (await list(db)).filter((d) => d.kind === "creditNote");
      // gapless, each with its two files; 10.00 + 1.90 = 11.90 each
      expect(notes.map((d) => [d.number, d.gross, d.files.map((f) => f.name)])).toEqual(
        (recorded ? ["CN-2026-00001", "CN-2026-00002"] : ["CN-2026-00001"]).map((n) => [
          n,
          "-11.90",
          [`${n}.pdf`, `${n}.xml`],
        ]),
      );
    });
  }
});
