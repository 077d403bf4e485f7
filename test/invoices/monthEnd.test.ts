import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Exact } from "../../src/billing/exact.js";
import { registerListItem, type RegisterListItem } from "../../src/invoices/render/registerReport.js";
import { jsonOf, type JsonOf } from "../helpers/jsonOf.js";
import { loadPrices, open, serveDashboard } from "../../src/index.js";
import {
  at,
  folderHashes as folder,
  generateOctober,
  issueOctober,
  ISSUER_YAML,
  MONTH_END,
  PRICES_YAML,
} from "../helpers/octoberSetup.js";
import { describeWith } from "../helpers/prerequisites.js";
import { runCli, type CliRun } from "../helpers/runCli.js";

// October 2026 as finance lives it, against the tool as a user runs it and a warehouse file:
// accounts 1 and 2, account 1's hour 2026-10-05T03:00Z not yet held when the month is issued.

const LATE_HOUR = "2026-10-05T03:00:00Z";
let dir: string;
let db: string;
let issue: (out: string, extra?: string[], now?: string) => Promise<CliRun>;
let list: () => Promise<JsonOf<RegisterListItem>[]>;

/** The dashboard's overview page of the warehouse (its default month). */
async function overview(): Promise<string> {
  const dashboard = await serveDashboard({ db, port: 0 });
  try {
    return await (await fetch(dashboard.url)).text();
  } finally {
    await dashboard.close();
  }
}

/** The dashboard's account page of October (started with the price list, without a statement config: the taxes known are the register's). */
async function accountPage(accountId: number): Promise<string> {
  const dashboard = await serveDashboard({ db, port: 0, prices: await loadPrices(path("prices.yaml")) });
  try {
    return await (await fetch(`${dashboard.url}account/${accountId}?month=2026-10`)).text();
  } finally {
    await dashboard.close();
  }
}

/** A download of the dashboard (started as `accountPage`'s): its status, file name and the SHA-256 of its bytes. */
async function download(urlPath: string): Promise<{ status: number; disposition: string | null; sha256: string }> {
  const dashboard = await serveDashboard({ db, port: 0, prices: await loadPrices(path("prices.yaml")) });
  try {
    const answer = await fetch(`${dashboard.url}${urlPath}`);
    return {
      status: answer.status,
      disposition: answer.headers.get("content-disposition"),
      sha256: createHash("sha256")
        .update(Buffer.from(await answer.arrayBuffer()))
        .digest("hex"),
    };
  } finally {
    await dashboard.close();
  }
}

/** The account page offers the invoice in force of October as issued, each of its files byte for byte from the register, and no draft beside it. */
async function expectIssuedDownloads(page: string, accountId: number, issued: JsonOf<RegisterListItem>): Promise<void> {
  expect(page).not.toContain("statement.pdf");
  for (const extension of ["pdf", "xml"]) {
    const file = issued.files.find((f) => f.name.endsWith(`.${extension}`));
    const link = `href="/account/${accountId}/invoice.${extension}?month=2026-10"`;
    if (!file) {
      expect(page, `${issued.number} has no ${extension}`).not.toContain(link);
      expect((await download(`account/${accountId}/invoice.${extension}?month=2026-10`)).status).toBe(404);
      continue;
    }
    expect(page).toContain(`${link} download>Invoice ${issued.number}, as issued`);
    expect(await download(`account/${accountId}/invoice.${extension}?month=2026-10`), file.name).toEqual({
      status: 200,
      disposition: `attachment; filename="${file.name}"`,
      sha256: file.sha256,
    });
  }
}

/** The amount of a cell of an account page's invoice table by its id, as a decimal string. */
const cell = (page: string, id: string) =>
  /id="(?:[^"]*)">([^<]*)</
    .exec(page.slice(page.indexOf(`id="${id}"`)))?.[1]
    ?.replace(/,/g, "")
    .replace("−", "-");

/** Every row of the register's tables, as text (a file's bytes as their SHA-256). */
async function registerRows(): Promise<string[]> {
  const store = await open({ db });
  try {
    const rows: string[] = [];
    for (const [table, order] of [
      ["register_documents", "entry"],
      ["register_basis_hours", "number, hour_epoch"],
      ["register_files", "name"],
      ["register_corrections", "corrected"],
    ]) {
      const columns = table === "register_files" ? "name, number, sha256, sha256(content) AS content" : "*";
      const result = (await store.query(`SELECT ${columns} FROM ${table} ORDER BY ${order}`)).objects();
      rows.push(
        ...result.map(
          (r) => `${table} ${JSON.stringify(r, (_k, v: unknown) => (typeof v === "bigint" ? String(v) : v))}`,
        ),
      );
    }
    return rows;
  } finally {
    store.close();
  }
}

/** The register as `invoices list --format json` gives it, read through the library (`store.invoiceRegister`). */
async function register(): Promise<JsonOf<RegisterListItem>[]> {
  const store = await open({ db });
  try {
    return jsonOf((await store.invoiceRegister()).map(registerListItem));
  } finally {
    store.close();
  }
}

const path = (...parts: string[]) => join(dir, ...parts);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cloudunits-month-end-"));
  db = path("w.duckdb");
  const generate = (out: string, id: number, extra: string[] = []) => generateOctober(path(out), id, extra);
  for (const run of await Promise.all([
    generate("held-1", 1, ["--missing-hours", LATE_HOUR]),
    generate("full-1", 1),
    generate("full-2", 2),
  ]))
    expect(run.code, run.stderr).toBe(0);
  expect((await runCli(["ingest", path("held-1"), path("full-2"), "--db", db])).code).toBe(0);
  writeFileSync(
    path("statement.yaml"),
    ISSUER_YAML +
      [
        "customers:",
        "  '1': { legalName: Lumière Énergie SARL, address: [12 rue de la Gare, 69001 Lyon], country: FR, vatId: FR12345678901, peppolId: '9957:FR12345678901', tax: { category: AE } }",
        "  '2': { legalName: Hanse Logistik AG, address: [Am Sandtorkai 1, 20457 Hamburg], country: DE, vatId: DE987654321, peppolId: '9930:DE987654321' }",
      ].join("\n"),
  );
  writeFileSync(path("prices.yaml"), PRICES_YAML);
  issue = (out, extra = [], now = MONTH_END) =>
    issueOctober({ db, statement: path("statement.yaml"), prices: path("prices.yaml"), out: path(out) }, extra, now);
  list = async () => {
    const run = await runCli(["invoices", "list", "--db", db, "--format", "json"]);
    expect(run.code, run.stderr).toBe(0);
    const listed = JSON.parse(run.stdout) as JsonOf<RegisterListItem>[];
    expect(listed).toEqual(await register());
    return listed;
  };
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("month end: issue, issue again, a late hour, a correction", { timeout: 120_000 }, () => {
  it("refuses a month still running (exit 2): nothing recorded, no folder made", async () => {
    const run = await issue("running", [], "2026-10-31T23:30:00Z");
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(
      "2026-10 has not ended (it runs until 2026-11-01T00:00:00Z; now is 2026-10-31T23:30:00Z)",
    );
    expect(run.stderr).toContain("CLOUDUNITS_TEST_NOW (a test setting)"); // the test clock never goes unsaid
    expect(existsSync(path("running"))).toBe(false);
    expect(await register()).toEqual([]);
  });

  it("refuses an account with an hour not held (exit 3), naming it; nothing is issued", async () => {
    const run = await issue("missing");
    expect(run.code, run.stderr).toBe(3);
    expect(run.stderr).toContain(`account 1: 1 hour not held: ${LATE_HOUR}`);
    expect(run.stderr).toContain("--accept-missing");
    expect(run.stderr).not.toContain("account 2:");
    expect(existsSync(path("missing"))).toBe(false);
    expect(await register()).toEqual([]);
  });

  it("--accept-missing issues every account in order, the hour recorded and said", async () => {
    const run = await issue("oct", ["--accept-missing", "--issue-date", "2026-11-02"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^issued INV-2026-00001 \(account 1, 2026-11-02\): amount due \d+\.\d\d EUR/m);
    expect(run.stdout).toMatch(/^issued INV-2026-00002 \(account 2, 2026-11-02\)/m);
    expect(run.stderr).toContain(
      `INV-2026-00001 (account 1): issued without 1 hour not held, recorded and printed on it: ${LATE_HOUR}`,
    );
    const listed = await list();
    expect(listed.map((d) => Object.keys(d))).toEqual(
      listed.map(() => [
        "number",
        "kind",
        "accountId",
        "customerId",
        "accountIds",
        "start",
        "end",
        "issueDate",
        "dueDate",
        "currency",
        "net",
        "tax",
        "gross",
        "paid",
        "outstanding",
        "status",
        "delivered",
        "corrects",
        "correctedBy",
        "credited",
        "remaining",
        "missingHours",
        "files",
      ]),
    );
    expect(
      listed.map((d) => [
        d.number,
        d.kind,
        d.accountId,
        d.start,
        d.end,
        d.issueDate,
        d.dueDate,
        d.corrects,
        d.correctedBy,
        d.missingHours,
      ]),
    ).toEqual([
      [
        "INV-2026-00001",
        "invoice",
        1,
        "2026-10-01T00:00:00Z",
        "2026-11-01T00:00:00Z",
        "2026-11-02",
        "2026-12-02",
        null,
        null,
        [LATE_HOUR],
      ],
      [
        "INV-2026-00002",
        "invoice",
        2,
        "2026-10-01T00:00:00Z",
        "2026-11-01T00:00:00Z",
        "2026-11-02",
        "2026-12-02",
        null,
        null,
        [],
      ],
    ]);
    // the dashboard's account page shows the issued invoice's amount due: the gross, tax included, as its PDF
    const page = await accountPage(2);
    expect(page).toContain("Amount due, invoice INV-2026-00002 issued 2026-11-02 (tax included)");
    expect([cell(page, "net"), cell(page, "amount-due")]).toEqual([listed[1]!.net, listed[1]!.gross]);
    expect(listed[1]!.gross).not.toBe(listed[1]!.net); // taxed at 19%: the gross is not the net
    expect(page).not.toContain('id="net-now"');
    await expectIssuedDownloads(page, 2, listed[1]!);
    for (const d of listed) {
      expect(Exact.parse(d.net)!.add(Exact.parse(d.tax)!).toFixed(2), `${d.number}: gross = net + tax`).toBe(d.gross);
      // the register's SHA-256 are those of the files written
      expect(Object.fromEntries(d.files.map((f) => [f.name, f.sha256]))).toEqual(
        Object.fromEntries(Object.entries(folder(path("oct"))).filter(([name]) => name.startsWith(`${d.number}.`))),
      );
    }
  });

  it("issuing again writes the same files, byte for byte, and numbers nothing, whatever the issue date asked", async () => {
    const before = await register();
    const again = await issue("oct");
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain(
      "INV-2026-00001 (invoice, account 1) was issued on 2026-11-02: its files are in place",
    );
    const elsewhere = await issue("oct-again", ["--issue-date", "2026-11-30"], "2026-12-01T00:00:00Z");
    expect(elsewhere.code, elsewhere.stderr).toBe(0);
    expect(elsewhere.stdout).toContain("its files written again from the register");
    expect(folder(path("oct-again"))).toEqual(folder(path("oct")));
    expect(await register()).toEqual(before);
  });

  it("never overwrites a file of an issued name with other bytes (exit 2), and changes nothing", async () => {
    const before = await register();
    const name = before[1]!.files[0]!.name;
    const out = path("tampered");
    expect((await runCli(["invoices", "show", "--db", db, "--number", before[0]!.number, "--out", out])).code).toBe(0);
    writeFileSync(join(out, name), "not the register's bytes");
    const run = await issue("tampered");
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${join(out, name)} exists with other bytes than the register's`);
    expect(readFileSync(join(out, name), "utf8")).toBe("not the register's bytes");
    expect(await register()).toEqual(before);
  });

  it("a price changed after the month was issued: issue exits 9 naming every invoice and by how much, and changes nothing; the old list issues again", async () => {
    const before = await register();
    writeFileSync(
      path("prices-raised.yaml"),
      "currency: EUR\nprices: { CU: [0.05, { from: 2026-10-15, price: 0.06 }], SU: { perMonth: 40 }, TU: 0.002, NU: 20 }\n",
    );
    const run = await issueOctober({
      db,
      statement: path("statement.yaml"),
      prices: path("prices-raised.yaml"),
      out: path("raised"),
    });
    expect(run.code, run.stderr).toBe(9);
    expect(run.stderr).toContain("2 issued invoices would now have other figures; nothing was changed");
    // the command that corrects one, in the command line's words (the library names correctInvoice)
    expect(run.stderr).toContain("correct it with `cloudunits invoices correct --number NUMBER --reason TEXT ...`");
    for (const d of before) {
      const m = new RegExp(
        `${d.number} \\(account ${d.accountId}\\): amount due (\\d+\\.\\d\\d) EUR issued, (\\d+\\.\\d\\d) now \\(\\+(\\d+\\.\\d\\d)\\)`,
      ).exec(run.stderr);
      expect(m, run.stderr).not.toBeNull();
      expect(m![1]).toBe(d.gross);
      expect(Number(m![3])).toBeGreaterThan(0); // CU costs more from the 15th
      expect(Exact.parse(m![1]!)!.add(Exact.parse(m![3]!)!).toFixed(2)).toBe(m![2]);
    }
    expect(existsSync(path("raised"))).toBe(false);
    expect(await register()).toEqual(before);
    // an issued invoice keeps the prices it was issued with: the price list it was computed from issues the same files again
    expect((await issue("oct")).code).toBe(0);
  });

  let differenceNow: string;

  it("a late hour: status names the invoice to correct and exits 9 (7 naming it too when an account is also behind), and issuing exits 9 saying by how much, changing nothing", async () => {
    const before = await register();
    expect((await runCli(["ingest", path("full-1"), "--db", db])).code).toBe(0);
    const status = await runCli(["status", "--db", db], at(MONTH_END));
    expect(status.code, status.stderr).toBe(9);
    expect(status.stderr).toContain(
      "1 issued invoice the warehouse now disagrees with (correct with `invoices correct --number N`): INV-2026-00001",
    );
    // the month ended 32 hours before: behind and to correct, both named, exit 7 (an outage first)
    const stale = await runCli(["status", "--db", db, "--max-lag", "3"], at(MONTH_END));
    expect(stale.code, stale.stderr).toBe(7);
    expect(stale.stderr).toContain(
      "2 accounts are more than 3 h behind: account 1 (32 h), account 2 (32 h); 1 issued invoice the warehouse now disagrees with (correct with `invoices correct --number N`): INV-2026-00001",
    );
    expect(status.stdout).toContain("issued invoices the warehouse now disagrees with: 1");
    expect(status.stdout).toContain(
      `INV-2026-00001 (account 1, 2026-10, issued 2026-11-02): 1 h arrived late: ${LATE_HOUR}`,
    );
    const json = JSON.parse((await runCli(["status", "--db", db, "--format", "json"])).stdout) as {
      invoicesToCorrect: unknown[];
    };
    expect(json.invoicesToCorrect).toEqual([
      {
        number: "INV-2026-00001",
        accountId: 1,
        start: "2026-10-01T00:00:00Z",
        end: "2026-11-01T00:00:00Z",
        issueDate: "2026-11-02",
        late: [{ from: LATE_HOUR, to: LATE_HOUR, hours: 1 }],
        rewritten: [],
        gone: [],
      },
    ]);

    const page = await overview();
    expect(page).toContain('<h2 id="invoices-to-correct">Issued invoices to correct</h2>');
    expect(page).toMatch(/<td>INV-2026-00001<\/td>.*<td>1 h arrived late<\/td>/s);
    // the account page keeps the issued amount due, and says the warehouse's sum of the lines is now another
    const account = await accountPage(1);
    expect(cell(account, "amount-due")).toBe(before[0]!.gross);
    expect(account).toContain("correct the invoice (cloudunits invoices correct --number INV-2026-00001)");
    expect(cell(account, "net-now")).not.toBe(before[0]!.net);

    const run = await issue("after-late");
    expect(run.code, run.stderr).toBe(9);
    expect(run.stderr).toContain("1 issued invoice would now have other figures; nothing was changed");
    const m = /INV-2026-00001 \(account 1\): amount due (\d+\.\d\d) EUR issued, (\d+\.\d\d) now \(\+(\d+\.\d\d)\)/.exec(
      run.stderr,
    );
    expect(m, run.stderr).not.toBeNull();
    expect(m![1]).toBe(before[0]!.gross);
    expect(Exact.parse(m![1]!)!.add(Exact.parse(m![3]!)!).toFixed(2)).toBe(m![2]); // by how much: now − issued
    differenceNow = m![2]!;
    expect(run.stderr).not.toContain("INV-2026-00002");
    expect(existsSync(path("after-late"))).toBe(false);
    expect(await register()).toEqual(before);
  });

  it("correct: a credit note cancelling the original and a new invoice of today's figures; the register adds up", async () => {
    const rowsBefore = await registerRows();
    const run = await runCli(
      [
        "invoices",
        "correct",
        "--db",
        db,
        "--number",
        "INV-2026-00001",
        "--reason",
        "an hour of October arrived late",
        "--statement",
        path("statement.yaml"),
        "--prices",
        path("prices.yaml"),
        "--out",
        path("corrections"),
      ],
      at("2026-11-20T09:00:00Z"),
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      /^INV-2026-00001 \(amount due \d+\.\d\d EUR\) corrected: credit note CN-2026-00001 \(-\d+\.\d\d\), new invoice INV-2026-00003 \(\d+\.\d\d\)/,
    );
    const listed = await list();
    const [original, other, creditNote, replacement] = listed;
    expect(listed.map((d) => [d.number, d.kind, d.accountId, d.issueDate, d.corrects, d.correctedBy])).toEqual([
      ["INV-2026-00001", "invoice", 1, "2026-11-02", null, "CN-2026-00001"],
      ["INV-2026-00002", "invoice", 2, "2026-11-02", null, null],
      ["CN-2026-00001", "creditNote", 1, "2026-11-20", "INV-2026-00001", null],
      ["INV-2026-00003", "invoice", 1, "2026-11-20", "INV-2026-00001", null],
    ]);
    expect(other!.files.every((f) => existsSync(path("oct", f.name)))).toBe(true);
    expect([creditNote!.net, creditNote!.tax, creditNote!.gross]).toEqual(
      [original!.net, original!.tax, original!.gross].map((a) => Exact.parse(a)!.mul(Exact.of(-1)).toFixed(2)),
    );
    expect([creditNote!.start, creditNote!.end]).toEqual([original!.start, original!.end]);
    expect(replacement!.gross).toBe(differenceNow); // the figures `issue` said it would now give
    expect(replacement!.missingHours).toEqual([]);
    const sum = [original, creditNote, replacement].reduce((s, d) => s.add(Exact.parse(d!.gross)!), Exact.ZERO);
    expect(sum.toFixed(2)).toBe(replacement!.gross); // original + credit note + new = new
    expect(Object.keys(folder(path("corrections")))).toEqual(
      [...creditNote!.files, ...replacement!.files].map((f) => f.name).sort(),
    );
    expect((await runCli(["status", "--db", db])).stdout).not.toContain("disagrees");
    expect(await overview()).not.toContain("invoices-to-correct");
    const account = await accountPage(1);
    expect(account).toContain("Amount due, invoice INV-2026-00003 issued 2026-11-20 (tax included)");
    expect(cell(account, "amount-due")).toBe(replacement!.gross);
    expect(account).not.toContain('id="net-now"');
    // the replacement is the invoice in force: its files are offered, not the cancelled one's
    await expectIssuedDownloads(account, 1, replacement!);
    expect(account).not.toContain(`Invoice ${original!.number}, as issued`);
    // nothing of the register was changed or deleted: every row is as it was, the correction is rows added
    const rowsAfter = await registerRows();
    expect(rowsAfter.length).toBeGreaterThan(rowsBefore.length);
    for (const row of rowsBefore) expect(rowsAfter, row.slice(0, 120)).toContain(row);
  });

  it("issues the month again without complaint once corrected: every document of the month, byte for byte", async () => {
    const run = await issue("after-correction");
    expect(run.code, run.stderr).toBe(0);
    const files = (await register()).flatMap((d) => d.files);
    expect(folder(path("after-correction"))).toEqual(Object.fromEntries(files.map((f) => [f.name, f.sha256]).sort()));
  });

  it.each([
    [
      "an invoice corrected already",
      "INV-2026-00001",
      "INV-2026-00001 was corrected already, by CN-2026-00001 and INV-2026-00003: correct INV-2026-00003 instead",
    ],
    ["a credit note", "CN-2026-00001", "CN-2026-00001 is a credit note: a credit note is not corrected"],
    [
      "a number not issued",
      "INV-2026-00009",
      "no document INV-2026-00009 in the register (the last issued: INV-2026-00001, INV-2026-00002, CN-2026-00001, INV-2026-00003",
    ],
  ])("refuses to correct %s (exit 2)", async (_what, number, message) => {
    const before = await register();
    const run = await runCli(
      [
        "invoices",
        "correct",
        "--db",
        db,
        "--number",
        number,
        "--reason",
        "again",
        "--statement",
        path("statement.yaml"),
        "--prices",
        path("prices.yaml"),
        "--out",
        path("refused"),
      ],
      at("2026-11-21T09:00:00Z"),
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
    expect(await register()).toEqual(before);
  });

  it("show writes one document's files as issued, byte for byte, into a folder it makes", async () => {
    const [creditNote] = (await register()).filter((d) => d.kind === "creditNote");
    const out = path("show", "nested");
    const run = await runCli(["invoices", "show", "--db", db, "--number", creditNote!.number, "--out", out]);
    expect(run.code, run.stderr).toBe(0);
    expect(folder(out)).toEqual(Object.fromEntries(creditNote!.files.map((f) => [f.name, f.sha256])));
  });

  it("lists the register as text and CSV, credit notes negative, and the amounts due added up", async () => {
    const documents = await register();
    const text = await runCli(["invoices", "list", "--db", db, "--month", "2026-10"]);
    expect(text.code, text.stderr).toBe(0);
    const total = documents.reduce((s, d) => s.add(Exact.parse(d.gross)!), Exact.ZERO).toFixed(2);
    expect(text.stdout).toContain(`4 documents; amount due, credit notes deducted: ${total} EUR`);
    expect(text.stdout).toMatch(
      /CN-2026-00001 +credit note +account 1 .* amount due -\d+\.\d\d EUR +credited +not delivered +cancels INV-2026-00001/,
    );
    const csv = await runCli(["invoices", "list", "--db", db, "--format", "csv"]);
    const rows = csv.stdout.trim().split("\r\n");
    expect(rows[0]).toBe(
      "number,kind,account_id,start,end,issue_date,due_date,currency,net,tax,gross,paid,outstanding,status,delivered,corrects,corrected_by,credited,remaining,missing_hours,files,customer_id,account_ids",
    );
    // a document of one account: its customer is its account
    expect(rows.slice(1).map((r) => r.split(",").slice(-2).join(","))).toEqual(
      documents.map((d) => `${d.accountId},${d.accountId}`),
    );
    expect(rows.slice(1).map((r) => r.split(",").slice(0, 3).join(","))).toEqual(
      documents.map((d) => `${d.number},${d.kind},${d.accountId}`),
    );
    expect(rows.slice(1).map((r) => r.split(",")[6])).toEqual(documents.map((d) => d.dueDate));
    expect(text.stdout).toMatch(
      /^INV-2026-00002 +invoice +account 2 +2026-10-01\.\.2026-10-31 +2026-11-02 +due 2026-12-02 /m,
    );
    expect(rows[3]!.split(",")[10]).toBe(documents[2]!.gross); // a negative amount stays a number (no formula guard)
    expect(
      JSON.parse((await runCli(["invoices", "list", "--db", db, "--month", "2026-09", "--format", "json"])).stdout),
    ).toEqual([]);
  });
});

describeWith("poppler", "month end: the files as the customer reads them", () => {
  /** A file's text: a PDF's as pdftotext reads it, an XML's as written. */
  const textOf = (file: string) =>
    file.endsWith(".pdf")
      ? execFileSync("pdftotext", ["-layout", file, "-"], { encoding: "utf8" })
      : readFileSync(file, "utf8");

  it("every file of one customer holds nothing of the other", async () => {
    const customers = {
      1: ["Lumière Énergie SARL", "FR12345678901", "9957:FR12345678901"],
      2: ["Hanse Logistik AG", "DE987654321", "9930:DE987654321"],
    };
    const documents = await register();
    expect(documents.flatMap((d) => d.files).length).toBe(8);
    for (const d of documents) {
      const own = customers[d.accountId as 1 | 2];
      const other = customers[d.accountId === 1 ? 2 : 1];
      for (const f of d.files) {
        const text = textOf(path("after-correction", f.name)).replace(/\s+/g, " ");
        expect(text, `${f.name} names its customer`).toContain(own[0]);
        for (const word of other) expect(text, `${f.name} holds ${word}`).not.toContain(word);
      }
    }
  });

  it("each PDF read back shows the register's amount due, and the number and the amount in its e-invoice are the register's", async () => {
    for (const d of await register()) {
      const pdf = textOf(path("after-correction", `${d.number}.pdf`)).replace(/\s+/g, " ");
      const grouped = d.gross.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
      expect(pdf, d.number).toContain(`${d.kind === "invoice" ? "Invoice" : "Credit note"} number ${d.number}`);
      const total = d.kind === "invoice" ? "Amount due" : "Credit note total";
      expect(pdf, d.number).toMatch(new RegExp(`${total} \\(EUR\\) ${grouped.replace(/[.]/g, "\\.")}`));
      const xml = textOf(path("after-correction", `${d.number}.xml`));
      expect(xml).toContain(`<cbc:ID>${d.number}</cbc:ID>`);
      // a credit note's amounts are written positive in UBL: its type says they are credited
      expect(xml).toContain(`<cbc:PayableAmount currencyID="EUR">${d.gross.replace(/^-/, "")}</cbc:PayableAmount>`);
    }
  });
});

describe(
  "an issuer without contact and IBAN: the invoice between German parties is refused before it is numbered",
  { timeout: 120_000 },
  () => {
    it("refuses the month (exit 2) naming the keys its e-invoice needs; nothing is numbered, no file written; with them added, both files of each", async () => {
      const germanDb = path("german.duckdb");
      expect((await runCli(["ingest", path("full-1"), path("full-2"), "--db", germanDb])).code).toBe(0);
      // the issuer of the config above without its contact and bank lines
      const config = readFileSync(path("statement.yaml"), "utf8").replace(
        ", contact: [billing@nordlicht.example, +49 40 1234567],\n  bank: [IBAN DE89 3704 0044 0532 0130 00] }",
        " }",
      );
      expect(config).not.toContain("IBAN");
      writeFileSync(path("plain.yaml"), config);
      const out = path("german");
      const issueWith = (statement: string) =>
        runCli(
          [
            "invoices",
            "issue",
            "--db",
            germanDb,
            "--month",
            "2026-10",
            "--statement",
            statement,
            "--prices",
            path("prices.yaml"),
            "--out",
            out,
            "--issue-date",
            "2026-11-02",
          ],
          at(MONTH_END),
        );
      const run = await issueWith(path("plain.yaml"));
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toContain(
        `${path("plain.yaml")}: cannot issue invoices of accounts 1, 2: missing issuer.contact: an e-mail line and a telephone line such as "Tel. +49 40 1234567" ` +
          `(an invoice between German parties names the seller's contact); issuer.bank: a line "IBAN ..."`,
      );
      expect(existsSync(out)).toBe(false);
      const store = await open({ db: germanDb });
      try {
        expect(await store.invoiceRegister()).toEqual([]);
      } finally {
        store.close();
      }
      // the telephone as people write it, with its label
      writeFileSync(
        path("labelled.yaml"),
        readFileSync(path("statement.yaml"), "utf8").replace("+49 40 1234567", "'Tel. +49 40 1234567'"),
      );
      const labelled = await issueWith(path("labelled.yaml"));
      expect(labelled.code, labelled.stderr).toBe(0);
      expect(Object.keys(folder(out))).toEqual([
        "INV-2026-00001.pdf",
        "INV-2026-00001.xml",
        "INV-2026-00002.pdf",
        "INV-2026-00002.xml",
      ]);
      expect(readFileSync(join(out, "INV-2026-00002.xml"), "utf8")).toContain(
        "<cbc:Telephone>+49 40 1234567</cbc:Telephone>",
      );
    });
  },
);
