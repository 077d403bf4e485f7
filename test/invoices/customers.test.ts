import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Exact } from "../../src/billing/exact.js";
import type { RegisterListItem } from "../../src/invoices/render/registerReport.js";
import { jsonOf, type JsonOf } from "../helpers/jsonOf.js";
import { loadPrices, open, serveDashboard } from "../../src/index.js";
import {
  at,
  folderHashes as folder,
  generateOctober,
  issueOctober,
  ISSUER_YAML as ISSUER,
  MONTH_END,
  PRICES_YAML,
} from "../helpers/octoberSetup.js";
import { LIBRARY, runCli, type CliRun } from "../helpers/runCli.js";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";

// October 2026 of a customer of three accounts (acme: 11, 12, 13) and of account 2, its own
// customer, against the tool as a user runs it and a warehouse file. Account 12's hour
// 2026-10-09T05:00Z is not held at first.

const LATE_HOUR = "2026-10-09T05:00:00Z";
let dir: string;
const path = (...parts: string[]) => join(dir, ...parts);
const ACME =
  "{ legalName: Acme Maschinenbau AG, address: [Am Sandtorkai 1, 20457 Hamburg], country: DE, vatId: DE987654321, peppolId: '9930:DE987654321'";
const TWO =
  "'2': { legalName: Lumière Énergie SARL, address: [12 rue de la Gare, 69001 Lyon], country: FR, vatId: FR12345678901, peppolId: '9957:FR12345678901', tax: { category: AE } }";

function issue(db: string, out: string, extra: string[] = [], statement = "statement.yaml"): Promise<CliRun> {
  return issueOctober({ db, statement: path(statement), prices: path("prices.yaml"), out: path(out) }, extra);
}

async function list(db: string): Promise<JsonOf<RegisterListItem>[]> {
  const run = await runCli(["invoices", "list", "--db", db, "--format", "json"]);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as JsonOf<RegisterListItem>[];
}

let db: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cloudunits-customers-"));
  db = path("w.duckdb");
  const generate = (out: string, id: number, extra: string[] = []) => generateOctober(path(out), id, extra);
  for (const run of await Promise.all([
    generate("a11", 11),
    generate("a12-held", 12, ["--missing-hours", LATE_HOUR]),
    generate("a12", 12),
    generate("a13", 13),
    generate("a2", 2),
  ]))
    expect(run.code, run.stderr).toBe(0);
  for (const [file, inputs] of [
    [db, ["a11", "a12-held", "a13", "a2"]],
    [path("full.duckdb"), ["a11", "a12", "a13", "a2"]],
  ] as const) {
    const run = await runCli(["ingest", ...inputs.map((i) => path(i)), "--db", file]);
    expect(run.code, run.stderr).toBe(0);
  }
  copyFileSync(db, path("solo.duckdb"));
  for (const name of ["clean", "killed-recorded", "killed-file"])
    copyFileSync(path("full.duckdb"), path(`${name}.duckdb`));
  writeFileSync(path("statement.yaml"), `${ISSUER}customers:\n  acme: ${ACME}, accounts: [11, 12, 13] }\n  ${TWO}\n`);
  // the same parties, each account its own customer: what each account's invoice alone would be
  writeFileSync(
    path("solo.yaml"),
    `${ISSUER}customers:\n${[11, 12, 13].map((id) => `  '${id}': ${ACME} }\n`).join("")}  ${TWO}\n`,
  );
  writeFileSync(path("prices.yaml"), PRICES_YAML);
}, 180_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("customers across accounts: one invoice per customer and month", { timeout: 180_000 }, () => {
  it("refuses a config listing an account under two customers (exit 2), nothing issued", async () => {
    writeFileSync(
      path("twice.yaml"),
      `${ISSUER}customers:\n  acme: ${ACME}, accounts: [11, 12, 13] }\n  beta: ${ACME}, accounts: [13] }\n`,
    );
    const run = await issue(db, "twice", [], "twice.yaml");
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain("customers.beta.accounts: account 13 is already listed by customers.acme.accounts");
    expect(await list(db)).toEqual([]);
  });

  it("refuses the customer's invoice when one of its accounts lacks an hour (exit 3), naming the account and the hour", async () => {
    const run = await issue(db, "missing");
    expect(run.code, run.stderr).toBe(3);
    expect(run.stderr).toContain(`account 12 (customer acme): 1 hour not held: ${LATE_HOUR}`);
    expect(run.stderr).not.toContain("account 11");
    expect(await list(db)).toEqual([]);
  });

  it("an account of its own is issued alone; --account-id of an account of acme issues acme's invoice, of all three accounts", async () => {
    const two = await issue(db, "oct", ["--account-id", "2"]);
    expect(two.code, two.stderr).toBe(0);
    expect(two.stdout).toMatch(/^issued INV-2026-00001 \(account 2, 2026-11-02\)/m);
    const acme = await issue(db, "oct", ["--account-id", "12", "--accept-missing"]);
    expect(acme.code, acme.stderr).toBe(0);
    expect(acme.stdout).toMatch(/^issued INV-2026-00002 \(customer acme, accounts 11, 12, 13, 2026-11-02\)/m);
    const listed = await list(db);
    expect(listed.map((d) => [d.number, d.accountId, d.customerId, d.accountIds, d.missingHours])).toEqual([
      ["INV-2026-00001", 2, "2", [2], []],
      ["INV-2026-00002", null, "acme", [11, 12, 13], [LATE_HOUR]],
    ]);
  });

  it("its figures: each account's subtotal is that account's invoice alone, one tax breakdown of the whole, one total", async () => {
    const solo = path("solo.duckdb");
    const run = await issue(solo, "solo", ["--accept-missing"], "solo.yaml");
    expect(run.code, run.stderr).toBe(0);
    const alone = new Map((await list(solo)).map((d) => [d.accountId, d]));
    const store = await open({ db });
    const [acme] = (await store.invoiceRegister()).filter((e) => e.document.customerId === "acme");
    store.close();
    const doc = acme!.document;
    expect(jsonOf(doc.sections!.map((x) => [x.accountId, x.net]))).toEqual(
      [11, 12, 13].map((id) => [id, alone.get(id)!.net]),
    );
    // net = Σ of the three subtotals; tax = 19 % of that net, rounded half-even once; gross = net + tax
    const net = [11, 12, 13].reduce((s, id) => s.add(Exact.parse(alone.get(id)!.net)!), Exact.ZERO);
    const tax = Exact.parse(net.toFixed(2))!.mul(Exact.parse("0.19")!);
    expect(jsonOf([doc.net, doc.tax, doc.gross])).toEqual([
      net.toFixed(2),
      tax.toFixed(2),
      net.add(Exact.parse(tax.toFixed(2))!).toFixed(2),
    ]);
    expect(doc.taxes).toHaveLength(1);
    // every line says its account, in the order of the sections
    expect([...new Set(doc.lines.map((l) => l.accountId))]).toEqual([11, 12, 13]);
    const xml = readFileSync(path("oct", "INV-2026-00002.xml"), "utf8");
    for (const id of [11, 12, 13]) expect(xml).toContain(`<cbc:Note>Account ${id}`);
    expect(xml).toContain("<cbc:BuyerReference>acme</cbc:BuyerReference>");
  });

  it("issuing the month again numbers nothing and writes the same files, byte for byte", async () => {
    const before = folder(path("oct"));
    const again = await issue(db, "again", ["--accept-missing"]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).not.toMatch(/^issued /m);
    expect(folder(path("again"))).toEqual(before);
    expect((await list(db)).map((d) => d.number)).toEqual(["INV-2026-00001", "INV-2026-00002"]);
  });

  it("the dashboard's account page says which customer's invoice the account is on", async () => {
    const dashboard = await serveDashboard({ db, port: 0, prices: await loadPrices(path("prices.yaml")) });
    try {
      const page = await (await fetch(`${dashboard.url}account/12?month=2026-10`)).text();
      expect(page).toContain("on invoice INV-2026-00002 of customer acme (accounts 11, 12, 13)");
      expect(page).toContain("Subtotal of account 12 on invoice INV-2026-00002 of customer acme");
    } finally {
      await dashboard.close();
    }
  });

  it("a late hour of one account: status and issue name the customer's invoice (exit 9); the correction credits and reissues all three accounts", async () => {
    expect((await runCli(["ingest", path("a12"), "--db", db])).code).toBe(0);
    const status = await runCli(["status", "--db", db], at(MONTH_END));
    expect(status.code, status.stderr).toBe(9);
    expect(status.stderr).toContain("INV-2026-00002");
    expect(status.stdout).toContain(
      `INV-2026-00002 (customer acme, accounts 11, 12, 13, 2026-10, issued 2026-11-02): 1 h arrived late: ${LATE_HOUR}`,
    );
    const refused = await issue(db, "drift");
    expect(refused.code, refused.stderr).toBe(9);
    expect(refused.stderr).toContain("INV-2026-00002 (customer acme, accounts 11, 12, 13)");
    const correct = await runCli(
      [
        "invoices",
        "correct",
        "--db",
        db,
        "--number",
        "INV-2026-00002",
        "--reason",
        "a late hour of account 12",
        "--statement",
        path("statement.yaml"),
        "--prices",
        path("prices.yaml"),
        "--out",
        path("fix"),
      ],
      at(MONTH_END),
    );
    expect(correct.code, correct.stderr).toBe(0);
    const listed = await list(db);
    expect(listed.map((d) => [d.number, d.customerId, d.accountIds, d.corrects, d.correctedBy])).toEqual([
      ["INV-2026-00001", "2", [2], null, null],
      ["INV-2026-00002", "acme", [11, 12, 13], null, "CN-2026-00001"],
      ["CN-2026-00001", "acme", [11, 12, 13], "INV-2026-00002", null],
      ["INV-2026-00003", "acme", [11, 12, 13], "INV-2026-00002", null],
    ]);
    const [original, credit, replacement] = listed.slice(1);
    expect(credit!.gross).toBe(`-${original!.gross}`);
    expect(replacement!.missingHours).toEqual([]);
    const now = await runCli(["status", "--db", db], at(MONTH_END));
    expect(now.stderr).not.toContain("INV-2026-00003");
  });

  it("two issue runs at once for two customers sharing no account: numbers 1 and 2, none twice, none skipped", async () => {
    const full = path("full.duckdb");
    const [a, b] = await Promise.all([
      issue(full, "race-acme", ["--account-id", "11"]),
      issue(full, "race-2", ["--account-id", "2"]),
    ]);
    expect([a.code, b.code], a.stderr + b.stderr).toEqual([0, 0]);
    const listed = await list(full);
    expect(listed.map((d) => d.number).sort()).toEqual(["INV-2026-00001", "INV-2026-00002"]);
    expect(listed.map((d) => d.customerId).sort()).toEqual(["2", "acme"]);
  });

  it("a run killed before its commit records nothing, one killed after it everything; run again, the register and files are a clean run's", async () => {
    const clean = await issue(path("clean.duckdb"), "clean");
    expect(clean.code, clean.stderr).toBe(0);
    const numbers = (listed: JsonOf<RegisterListItem>[]) =>
      listed.map((d) => [d.number, d.customerId, d.accountIds, d.gross]);
    const expected = numbers(await list(path("clean.duckdb")));
    expect(expected.map(([n, c]) => [n, c])).toEqual([
      ["INV-2026-00001", "2"],
      ["INV-2026-00002", "acme"],
    ]);
    for (const [step, nth, recorded] of [
      ["recorded", 1, false],
      ["file", 2, true],
    ] as const) {
      const killed = path(`killed-${step}.duckdb`);
      const out = path(`killed-${step}`);
      const script = path(`kill-${step}.mjs`);
      writeFileSync(
        script,
        `const { open } = await import(${JSON.stringify(LIBRARY)});
        const store = await open({ db: ${JSON.stringify(killed)} }, { write: true });
        let seen = 0;
        await store.issueInvoices({
          month: "2026-10", statement: ${JSON.stringify(path("statement.yaml"))}, prices: ${JSON.stringify(path("prices.yaml"))},
          out: ${JSON.stringify(out)}, issueDate: "2026-11-02", nowEpoch: Date.parse(${JSON.stringify(MONTH_END)}) / 1000,
          onStep: (s) => { if (s === ${JSON.stringify(step)} && ++seen === ${nth}) process.kill(process.pid, "SIGKILL"); },
        });
        process.exit(3);`,
      );
      const child = spawn(process.execPath, [script], { stdio: "ignore" });
      const signal = await new Promise((resolve) => child.on("exit", (_code, sig) => resolve(sig)));
      expect(signal).toBe("SIGKILL");
      expect(numbers(await list(killed)), step).toEqual(recorded ? expected : []);
      const again = await issue(killed, `killed-${step}`);
      expect(again.code, again.stderr).toBe(0);
      expect(numbers(await list(killed))).toEqual(expected);
      expect(existsSync(out) && folder(out)).toEqual(folder(path("clean")));
    }
  });
});
