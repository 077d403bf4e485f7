import { execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RegisterListItem } from "../../src/invoices/render/registerReport.js";
import type { JsonOf } from "../helpers/jsonOf.js";
import { open } from "../../src/index.js";
import { camtStatement, type CamtEntry } from "../helpers/camtStatement.js";
import { startAccessPoint, type FakeAccessPoint } from "../helpers/fakeAccessPoint.js";
import { addManyInvoices } from "../helpers/manyInvoices.js";
import { runCli } from "../helpers/runCli.js";
import { codeBlocks, readDoc, REPO, runShell, section } from "../helpers/shellExamples.js";

// After the invoice, as finance lives it against the CLI, a warehouse file and a loopback access
// point: October 2026 of examples/statement.yaml's three customers (7101 reverse charge, 7102
// German 19 %, 7103 exempt), issued on 2 Nov 2026, due on 2 Dec 2026.

const TOKEN = "ap-secret-token-5f1c9e";
const DECEMBER_10 = "2026-12-10T09:00:00Z";
let dir: string;
let base: string;
let ap: FakeAccessPoint;

const path = (...parts: string[]) => join(dir, ...parts);
const at = (now: string) => ({ CLOUDUNITS_TEST_NOW: now });

/** The register as `invoices list --format json` gives it at `now`. */
async function listed(db: string, now = DECEMBER_10): Promise<JsonOf<RegisterListItem>[]> {
  const run = await runCli(["invoices", "list", "--db", db, "--format", "json"], at(now));
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as JsonOf<RegisterListItem>[];
}
const byNumber = (items: JsonOf<RegisterListItem>[]) => Object.fromEntries(items.map((i) => [i.number, i]));

/** A fresh copy of the October warehouse, before anything was issued. */
function copyOfBase(name: string): string {
  copyFileSync(base, path(name));
  return path(name);
}

/** Issues October into `db` (exit 0 asserted). */
async function issue(db: string): Promise<void> {
  const run = await runCli(
    [
      "invoices",
      "issue",
      "--db",
      db,
      "--month",
      "2026-10",
      "--statement",
      path("statement.yaml"),
      "--prices",
      path("prices.yaml"),
      "--out",
      path(`out-${db.split("/").at(-1)}`),
      "--issue-date",
      "2026-11-02",
    ],
    at("2026-11-02T08:00:00Z"),
  );
  expect(run.code, run.stderr).toBe(0);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cloudunits-receivables-"));
  base = path("base.duckdb");
  const generated = await runCli([
    "generate",
    "--out",
    path("october"),
    "--accounts",
    "3",
    "--first-account-id",
    "7101",
    "--spaces",
    "1",
    "--machines",
    "1",
    "--hours",
    "744",
    "--start",
    "2026-10-01",
    "--seed",
    "4",
  ]);
  expect(generated.code, generated.stderr).toBe(0);
  expect((await runCli(["ingest", path("october"), "--db", base])).code).toBe(0);
  for (const file of ["statement.yaml", "prices.yaml"]) copyFileSync(join(REPO, "examples", file), path(file));
  ap = await startAccessPoint();
}, 300_000);
afterAll(async () => {
  await ap?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("after the invoice: references, delivery, payments, overdue", { timeout: 300_000 }, () => {
  it("docs/billing.md's recipe of the weeks after month end runs as written: issued, sent, the bank statement read, two overdue (exit 7)", async () => {
    const recipe = codeBlocks(section(readDoc("docs/billing.md"), /^## Receivables: payments, overdue, delivery/), "")
      .join("\n")
      .split("\n")
      .filter((l) => l.trim() !== "");
    expect(recipe.map((l) => l.split(" ").slice(0, 3).join(" "))).toEqual([
      "cloudunits invoices issue",
      "cloudunits invoices send",
      "cloudunits invoices payments",
      "cloudunits invoices list",
      "cloudunits invoices overdue",
    ]);
    copyOfBase("october.duckdb");
    // the bank statement of 10 Dec: INV-2026-00001 paid by its reference, INV-2026-00002 short by a cent quoting its number, a stranger's credit
    const register = async () => {
      const store = await open({ db: path("october.duckdb") });
      try {
        return await store.invoiceRegister();
      } finally {
        store.close();
      }
    };
    const env = { ACCESS_POINT_URL: ap.url, CLOUDUNITS_AP_TOKEN: TOKEN, ...at(DECEMBER_10) };
    const runs = [];
    for (const [i, line] of recipe.entries()) {
      if (line.includes("--camt")) {
        const [one, two] = (await register()).map((e) => e.document);
        const short = (Number(two!.gross) - 0.01).toFixed(2);
        writeFileSync(
          path("statement-2026-12-10.xml"),
          camtStatement([
            { ref: "BANK-1", amount: String(one!.gross), reference: one!.paymentReference! },
            { ref: "BANK-2", amount: short, text: `Invoice ${two!.number} thank you` },
            { ref: "BANK-3", amount: "50.00", text: "Refund of deposit" },
          ]),
        );
      }
      const run = await runShell(line, dir, env);
      runs.push(run);
      expect(run.code, `${line}\n${run.stderr}`).toBe(i === recipe.length - 1 ? 7 : 0);
    }
    const [issued, sent, payments, list, overdue] = runs;
    expect(issued!.stdout).toContain("issued INV-2026-00003");
    expect(sent!.stdout).toContain("3 delivered, 0 failed, 0 held, 0 delivered before");
    expect(ap.received.map((r) => r.idempotencyKey)).toEqual(["INV-2026-00001", "INV-2026-00002", "INV-2026-00003"]);
    expect(payments!.stdout).toMatch(
      /INV-2026-00001: [\d.]+ EUR recorded, paid in full \(entry BANK-1 of 2026-12-10, matched by payment reference\)/,
    );
    expect(payments!.stdout).toMatch(
      /INV-2026-00002: [\d.]+ EUR recorded, a partial payment: 0\.01 EUR outstanding \(entry BANK-2 of 2026-12-10, matched by invoice number\)/,
    );
    expect(payments!.stdout).toContain('unmatched: entry BANK-3 of 2026-12-10, 50.00 EUR, "Refund of deposit"');
    expect(list!.stdout).toMatch(/^INV-2026-00001 .* paid +delivered$/m);
    expect(overdue!.stdout).toMatch(
      /^INV-2026-00002 {2}account 7102 {2}Hafenkontor Logistik GmbH {2}due 2026-12-02 {2}8 days overdue {2}0\.01 EUR outstanding of/m,
    );
    expect(overdue!.stdout).toMatch(/^INV-2026-00003 .* 8 days overdue/m);
    expect(overdue!.stdout).not.toContain("INV-2026-00001");
    expect(overdue!.stderr).toContain("2 documents are overdue");
  });

  it("every invoice carries its payment reference: on the PDF, in the UBL's PaymentID, in the register; the same bytes when issued again", async () => {
    const db = path("october.duckdb");
    const pdf = execFileSync("pdftotext", [path("invoices-2026-10", "INV-2026-00002.pdf"), "-"], { encoding: "utf8" });
    expect(pdf).toContain("Payment reference");
    expect(pdf.replace(/\s+/g, " ")).toContain(
      "quoting the payment reference RF49INV202600002 (invoice INV-2026-00002)",
    );
    expect(readFileSync(path("invoices-2026-10", "INV-2026-00002.xml"), "utf8")).toContain(
      "<cbc:PaymentID>RF49INV202600002</cbc:PaymentID>",
    );
    const store = await open({ db });
    try {
      expect(
        (
          await store.query("SELECT number, reference, scheme FROM register_payment_references ORDER BY number")
        ).objects(),
      ).toEqual([
        { number: "INV-2026-00001", reference: "RF76INV202600001", scheme: "ISO11649" },
        { number: "INV-2026-00002", reference: "RF49INV202600002", scheme: "ISO11649" },
        { number: "INV-2026-00003", reference: "RF22INV202600003", scheme: "ISO11649" },
      ]);
    } finally {
      store.close();
    }
    const before = readFileSync(path("invoices-2026-10", "INV-2026-00002.pdf"));
    const again = await runCli(["invoices", "show", "--db", db, "--number", "INV-2026-00002", "--out", path("again")]);
    expect(again.code, again.stderr).toBe(0);
    expect(readFileSync(path("again", "INV-2026-00002.pdf")).equals(before)).toBe(true);
  });

  it("invoices list gives dueDate, paid, outstanding, status and delivered, in JSON, CSV and the library alike; overdue is the clock's", async () => {
    const db = path("october.duckdb");
    const items = byNumber(await listed(db));
    expect(items["INV-2026-00001"]).toMatchObject({
      dueDate: "2026-12-02",
      status: "paid",
      outstanding: "0.00",
      delivered: true,
    });
    expect(items["INV-2026-00002"]).toMatchObject({ status: "overdue", outstanding: "0.01", delivered: true });
    expect(items["INV-2026-00002"]!.paid).toBe((Number(items["INV-2026-00002"]!.gross) - 0.01).toFixed(2));
    expect(items["INV-2026-00003"]).toMatchObject({ status: "overdue", paid: "0.00" });
    // on its due date nothing is overdue yet
    expect(byNumber(await listed(db, "2026-12-02T23:00:00Z"))["INV-2026-00003"]!.status).toBe("open");
    const calm = await runCli(["invoices", "overdue", "--db", db], at("2026-12-02T23:00:00Z"));
    expect([calm.code, calm.stdout]).toEqual([0, "no document is overdue\n"]);
    const csv = await runCli(["invoices", "list", "--db", db, "--format", "csv"], at(DECEMBER_10));
    expect(csv.stdout.split("\r\n")[0]).toContain("gross,paid,outstanding,status,delivered,");
    expect(csv.stdout).toMatch(/INV-2026-00002,.*,2026-12-02,EUR,.*,[\d.]+,0\.01,overdue,true,/);
    const store = await open({ db });
    try {
      const library = await store.invoiceRegister({ nowEpoch: Date.parse(DECEMBER_10) / 1000 });
      // the library's outstanding is an Exact that prints as the JSON's text
      expect(library.map((e) => [e.document.number, e.receivable.status, String(e.receivable.outstanding)])).toEqual(
        Object.values(items).map((i) => [i.number, i.status, i.outstanding]),
      );
    } finally {
      store.close();
    }
  });

  it("invoices pay records a payment, says a partial or over-payment, and a reversal is a new record; refusals change nothing", async () => {
    const db = path("october.duckdb");
    const pay = (number: string, amount: string, date = "2026-12-10", extra: string[] = []) =>
      runCli(
        ["invoices", "pay", "--db", db, "--number", number, "--amount", amount, "--date", date, ...extra],
        at(DECEMBER_10),
      );
    const paid = await pay("INV-2026-00002", "0.01", "2026-12-10", ["--reference", "the missing cent"]);
    expect([paid.code, paid.stdout]).toEqual([0, "INV-2026-00002: 0.01 EUR recorded, paid in full\n"]);
    const over = await pay("INV-2026-00002", "5.00");
    expect(over.stdout).toBe("INV-2026-00002: 5.00 EUR recorded, an over-payment: paid 5.00 EUR too much\n");
    const reversed = await pay("INV-2026-00002", "-5.00");
    expect(reversed.stdout).toBe("INV-2026-00002: -5.00 EUR recorded, a reversal: 0.00 EUR outstanding\n");
    expect(byNumber(await listed(db))["INV-2026-00002"]).toMatchObject({ status: "paid", outstanding: "0.00" });
    const gross3 = byNumber(await listed(db))["INV-2026-00003"]!.gross;
    const partial = await pay("INV-2026-00003", "10.00");
    expect(partial.stdout).toBe(
      `INV-2026-00003: 10.00 EUR recorded, a partial payment: ${(Number(gross3) - 10).toFixed(2)} EUR outstanding\n`,
    );
    for (const [run, message] of [
      [await pay("INV-2026-00003", "1.001"), "at most 2 decimals"],
      [await pay("INV-2026-00003", "0"), "not 0"],
      [await pay("INV-2026-00003", "1.00", "2026-12-11"), "after today (2026-12-10, UTC)"],
      [await pay("INV-2026-09999", "1.00"), "no document INV-2026-09999"],
    ] as const) {
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toContain(message);
    }
    const store = await open({ db });
    try {
      const rows = (
        await store.query(
          "SELECT number, amount, source, reference FROM register_payments WHERE source = 'manual' ORDER BY entry",
        )
      ).objects();
      expect(rows).toEqual([
        { number: "INV-2026-00002", amount: "0.01", source: "manual", reference: "the missing cent" },
        { number: "INV-2026-00002", amount: "5.00", source: "manual", reference: null },
        { number: "INV-2026-00002", amount: "-5.00", source: "manual", reference: null },
        { number: "INV-2026-00003", amount: "10.00", source: "manual", reference: null },
      ]);
    } finally {
      store.close();
    }
  });

  it("a statement of 500 entries: 497 recorded (one invoice paid twice, one short by 0.01), 3 not ours listed; importing it again records nothing", async () => {
    const db = copyOfBase("statement.duckdb");
    await issue(db);
    const numbers = await addManyInvoices(db, 496);
    const gross = byNumber(await listed(db))["FIX-2026-00001"]!.gross;
    const store = await open({ db });
    const references = new Map(
      (await store.invoiceRegister()).map((e) => [e.document.number, e.document.paymentReference]),
    );
    store.close();
    const entries: CamtEntry[] = numbers.map((number, i) => ({
      ref: `2026121000${String(i).padStart(4, "0")}`,
      amount: number === "FIX-2026-00010" ? (Number(gross) - 0.01).toFixed(2) : gross,
      // even entries quote the structured reference, odd ones the number in free text
      ...(i % 2 === 0 ? { reference: references.get(number)! } : { text: `Payment ${number} October cloud` }),
    }));
    entries.push({ ref: "20261210009996", amount: gross, text: "FIX-2026-00007 paid again by mistake" });
    entries.push(
      { ref: "20261210009997", amount: "120.00", text: "Rent December" },
      { ref: "20261210009998", amount: "19.99", text: "INV-1999-00001" },
      { ref: "20261210009999", amount: "7.50", reference: "RF18539007547034" },
    );
    expect(entries.length).toBe(500);
    writeFileSync(path("statement-500.xml"), camtStatement(entries));
    const first = await runCli(
      ["invoices", "payments", "--db", db, "--camt", path("statement-500.xml")],
      at(DECEMBER_10),
    );
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain("statement-500.xml: 497 payments recorded, 0 recorded before, 3 unmatched");
    expect(first.stdout).toContain(
      "FIX-2026-00007: " +
        gross +
        " EUR recorded, an over-payment: paid " +
        gross +
        " EUR too much (entry 20261210009996",
    );
    expect(first.stdout).toContain(
      "FIX-2026-00010: " + (Number(gross) - 0.01).toFixed(2) + " EUR recorded, a partial payment: 0.01 EUR outstanding",
    );
    expect(first.stdout.match(/^unmatched: entry (\d+)/gm)).toEqual([
      "unmatched: entry 20261210009997",
      "unmatched: entry 20261210009998",
      "unmatched: entry 20261210009999",
    ]);
    expect(first.stdout).toMatch(/FIX-2026-00001: .* matched by payment reference/);
    expect(first.stdout).toMatch(/FIX-2026-00002: .* matched by invoice number/);
    const again = await runCli(
      ["invoices", "payments", "--db", db, "--camt", path("statement-500.xml")],
      at(DECEMBER_10),
    );
    expect(again.stdout).toContain("0 payments recorded, 497 recorded before, 3 unmatched");
    const items = byNumber(await listed(db));
    expect(items["FIX-2026-00007"]).toMatchObject({ status: "paid", outstanding: `-${gross}` });
    expect(items["FIX-2026-00010"]).toMatchObject({ status: "overdue", outstanding: "0.01" });
    expect(Object.values(items).filter((i) => i.number.startsWith("FIX-") && i.status === "paid").length).toBe(495);
  });

  it("hostile XML is refused at once, without expanding anything: entity bombs, a document type, a file over 64 MiB, not a statement (exit 3)", async () => {
    const db = path("statement.duckdb");
    const laughs = `<?xml version="1.0"?>\n<!DOCTYPE lolz [\n <!ENTITY lol "lol">\n${Array.from({ length: 9 }, (_, i) => ` <!ENTITY lol${i + 1} "${`&lol${i || ""};`.repeat(10)}">`).join("\n")}\n]>\n<Document><BkToCstmrStmt><Stmt><Ntry><AddtlNtryInf>&lol9;</AddtlNtryInf></Ntry></Stmt></BkToCstmrStmt></Document>\n`;
    writeFileSync(path("laughs.xml"), laughs);
    writeFileSync(path("huge.xml"), Buffer.alloc(65 * 1024 * 1024, 0x20));
    writeFileSync(path("not-xml.xml"), "<Document><BkToCstmrStmt><Stmt>");
    writeFileSync(path("other.xml"), '<?xml version="1.0"?><Invoice/>');
    for (const [file, message] of [
      ["laughs.xml", "has a document type declaration"],
      ["huge.xml", "a bank statement is read up to 67108864 bytes"],
      ["not-xml.xml", "not well-formed XML"],
      ["other.xml", "not a camt.053 bank-to-customer statement"],
    ]) {
      const started = Date.now();
      const run = await runCli(["invoices", "payments", "--db", db, "--camt", path(file)], at(DECEMBER_10));
      expect(run.code, run.stderr).toBe(3);
      expect(run.stderr).toContain(message);
      expect(Date.now() - started).toBeLessThan(30_000);
    }
  });

  it("send: rejected (4xx, the reason recorded), failing (5xx), silent (timeout), slow but in time; a credit note waits for its invoice; the next runs retry and never send a delivered document again", async () => {
    const db = copyOfBase("send.duckdb");
    await issue(db);
    const corrected = await runCli(
      [
        "invoices",
        "correct",
        "--db",
        db,
        "--number",
        "INV-2026-00001",
        "--reason",
        "wrong reference",
        "--statement",
        path("statement.yaml"),
        "--prices",
        path("prices.yaml"),
        "--out",
        path("out-send"),
        "--issue-date",
        "2026-11-20",
      ],
      at("2026-11-20T08:00:00Z"),
    );
    expect(corrected.code, corrected.stderr).toBe(0);
    const before = ap.received.length;
    ap.behaviour.set("INV-2026-00001", "reject");
    ap.behaviour.set("INV-2026-00002", "fail");
    ap.behaviour.set("INV-2026-00003", "hang");
    ap.behaviour.set("INV-2026-00004", { slowMs: 300 });
    const send = (extra: string[] = []) =>
      runCli(["invoices", "send", "--db", db, "--to", ap.url, "--timeout", "2", ...extra], {
        CLOUDUNITS_AP_TOKEN: TOKEN,
      });
    const first = await send();
    expect(first.code, first.stderr).toBe(7);
    expect(first.stdout).toContain(
      "INV-2026-00001: not delivered: HTTP 422: PEPPOL-EN16931-R010: Buyer electronic address MUST be provided",
    );
    expect(first.stdout).toContain("INV-2026-00002: not delivered: HTTP 503: service unavailable");
    expect(first.stdout).toContain("INV-2026-00003: not delivered: no answer within 2 s");
    expect(first.stdout).toMatch(/INV-2026-00004: delivered \(HTTP 202, message msg-INV-2026-00004-\d+\)/);
    expect(first.stdout).toContain(
      "CN-2026-00001: not sent: not sent before INV-2026-00001, the invoice it corrects, is delivered",
    );
    expect(first.stderr).toContain("4 documents were not delivered");
    expect(first.stdout + first.stderr).not.toContain(TOKEN);
    const posted = ap.received.slice(before);
    expect(posted.map((r) => r.idempotencyKey)).toEqual([
      "INV-2026-00001",
      "INV-2026-00002",
      "INV-2026-00003",
      "INV-2026-00004",
    ]);
    expect(posted.every((r) => r.contentType === "application/xml" && r.authorization === `Bearer ${TOKEN}`)).toBe(
      true,
    );
    expect(posted[0]!.body).toBe(readFileSync(path("out-send.duckdb", "INV-2026-00001.xml"), "utf8"));
    expect(Object.values(byNumber(await listed(db))).map((i) => [i.number, i.delivered])).toEqual([
      ["INV-2026-00001", false],
      ["INV-2026-00002", false],
      ["INV-2026-00003", false],
      ["CN-2026-00001", false],
      ["INV-2026-00004", true],
    ]);
    for (const n of ["INV-2026-00001", "INV-2026-00002", "INV-2026-00003"]) ap.behaviour.delete(n);
    const second = await send();
    expect(second.code, second.stderr).toBe(0);
    expect(ap.received.slice(before + 4).map((r) => r.idempotencyKey)).toEqual([
      "INV-2026-00001",
      "INV-2026-00002",
      "INV-2026-00003",
      "CN-2026-00001",
    ]);
    const third = await send(["--number", "INV-2026-00004"]);
    expect([third.code, third.stdout]).toEqual([0, "0 delivered, 0 failed, 0 held, 1 delivered before\n"]);
    const store = await open({ db });
    try {
      const attempts = (
        await store.query("SELECT number, http_status, delivered, error FROM register_deliveries ORDER BY entry")
      ).objects();
      expect(
        attempts.map((a) => {
          const r = a as Record<string, unknown>;
          return [r.number, r.http_status, r.delivered];
        }),
      ).toEqual([
        ["INV-2026-00001", 422, false],
        ["INV-2026-00002", 503, false],
        ["INV-2026-00003", null, false],
        ["INV-2026-00004", 202, true],
        ["INV-2026-00001", 202, true],
        ["INV-2026-00002", 202, true],
        ["INV-2026-00003", 202, true],
        ["CN-2026-00001", 202, true],
      ]);
    } finally {
      store.close();
    }
    const noToken = await runCli(["invoices", "send", "--db", db, "--to", ap.url]);
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toContain("set CLOUDUNITS_AP_TOKEN");
  });
});

describe("the dashboard's receivables page", { timeout: 120_000 }, () => {
  it("shows what each customer owes and its ageing, from the register's payments", async () => {
    const { serveDashboard } = await import("../../src/index.js");
    const dashboard = await serveDashboard({ db: path("october.duckdb"), port: 0 });
    try {
      const page = await (await fetch(`${dashboard.url}receivables`)).text();
      // 7102 owes nothing after the cent and the reversed over-payment; 7103 owes what it did not pay of INV-2026-00003, due 2 Dec 2026
      const rows = [...page.matchAll(/<tr><td class="num" data-sort="(\d+)">.*?<\/tr>/g)].map((m) => m[0]);
      expect(rows.map((r) => /data-sort="(\d+)"/.exec(r)![1])).toEqual(["7103"]);
      expect(rows[0]).toContain("Stichting Zorgcentrum Noord");
      expect(page).toContain('href="/receivables">Receivables</a>');
    } finally {
      await dashboard.close();
    }
  });
});

describe("ageing of what is outstanding", { timeout: 120_000 }, () => {
  it.each([
    [-3, 0],
    [0, 0],
    [1, 1],
    [30, 1],
    [31, 2],
    [60, 2],
    [61, 3],
    [90, 3],
    [91, 4],
  ])("%i days past due is bucket %i", async (days, bucket) => {
    const { ageingBucket } = await import("../../src/serve/receivablesData.js");
    expect(ageingBucket(days)).toBe(bucket);
  });

  it("the page's figures move to older buckets as the clock goes on", async () => {
    const { receivablesData } = await import("../../src/serve/receivablesData.js");
    const store = await open({ db: path("october.duckdb") });
    try {
      const owed = async (now: string) =>
        (await receivablesData({ connection: store.connection } as never, Date.parse(now) / 1000)).map((r) => [
          r.accountId,
          r.outstanding,
          r.ageing,
        ]);
      const gross3 = (await store.invoiceRegister({ number: "INV-2026-00003" }))[0]!.document.gross;
      const left = (Number(gross3) - 10).toFixed(2);
      expect(await owed("2026-12-01T12:00:00Z")).toEqual([[7103, left, [left, "0.00", "0.00", "0.00", "0.00"]]]);
      expect(await owed(DECEMBER_10)).toEqual([[7103, left, ["0.00", left, "0.00", "0.00", "0.00"]]]);
      expect(await owed("2027-03-15T00:00:00Z")).toEqual([[7103, left, ["0.00", "0.00", "0.00", "0.00", left]]]);
    } finally {
      store.close();
    }
  });
});
