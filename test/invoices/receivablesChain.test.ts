import { DuckDBInstance } from "@duckdb/node-api";
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RegisterListItem } from "../../src/invoices/render/registerReport.js";
import type { JsonOf } from "../helpers/jsonOf.js";
import { ingest, open, serveDashboard } from "../../src/index.js";
import { startAccessPoint, type FakeAccessPoint } from "../helpers/fakeAccessPoint.js";
import { runCli } from "../helpers/runCli.js";
import { writeOctober } from "../helpers/octoberWarehouse.js";

// Payments and delivery attempts are links of the register's chain: one changed or removed with
// SQL is named by `invoices verify` (exit 10), and list, overdue, send and the dashboard's
// receivables page count or decide nothing from the register while it disagrees with its chain,
// nor does pay record anything.

const NOW = "2026-12-10T09:00:00Z";
const TOKEN = "ap-token-chain";
const HEAD = /^register head (\d+:[0-9a-f]{64})$/m;
let dir: string;
let recorded: string;
let documentsHead: string;
let ap: FakeAccessPoint;
const path = (...parts: string[]) => join(dir, ...parts);
const cli = (args: string[]) => runCli(args, { CLOUDUNITS_TEST_NOW: NOW, CLOUDUNITS_AP_TOKEN: TOKEN });
const verify = (db: string, extra: string[] = []) => cli(["invoices", "verify", "--db", db, ...extra]);

/** Runs SQL statements on a warehouse file, as anyone holding the file can. */
async function sql(db: string, statements: string[]): Promise<void> {
  const instance = await DuckDBInstance.create(db);
  const connection = await instance.connect();
  try {
    for (const statement of statements) await connection.run(statement);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

function copyOfRecorded(name: string): string {
  copyFileSync(recorded, path(name));
  return path(name);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cloudunits-receivables-chain-"));
  ap = await startAccessPoint();
  await writeOctober(path("october"), 3);
  recorded = path("recorded.duckdb");
  await ingest([path("october")], { db: recorded });
  copyFileSync(join(import.meta.dirname, "../../examples/statement.yaml"), path("statement.yaml"));
  writeFileSync(path("prices.yaml"), "currency: EUR\nprices: { CU: 0.05, SU: { perMonth: 40 }, TU: 0.002, NU: 20 }\n");
  const issued = await cli([
    "invoices",
    "issue",
    "--db",
    recorded,
    "--month",
    "2026-10",
    "--statement",
    path("statement.yaml"),
    "--prices",
    path("prices.yaml"),
    "--out",
    path("out"),
    "--issue-date",
    "2026-11-02",
  ]);
  expect(issued.code, issued.stderr).toBe(0);
  documentsHead = HEAD.exec((await verify(recorded)).stdout)![1]!;
  const items = JSON.parse(
    (await cli(["invoices", "list", "--db", recorded, "--format", "json"])).stdout,
  ) as JsonOf<RegisterListItem>[];
  const gross = items.find((i) => i.number === "INV-2026-00001")!.gross;
  // INV-2026-00001 paid in full and delivered; INV-2026-00002 paid in part (overdue since 2 Dec); INV-2026-00003 unpaid
  for (const [number, amount] of [
    ["INV-2026-00001", gross],
    ["INV-2026-00002", "10.00"],
  ] as const) {
    const paid = await cli([
      "invoices",
      "pay",
      "--db",
      recorded,
      "--number",
      number,
      "--amount",
      amount,
      "--date",
      "2026-12-01",
    ]);
    expect(paid.code, paid.stderr).toBe(0);
  }
  const sent = await cli(["invoices", "send", "--db", recorded, "--to", ap.url, "--number", "INV-2026-00001"]);
  expect(sent.code, sent.stderr).toBe(0);
  expect(ap.accepted).toEqual(["INV-2026-00001"]);
}, 180_000);
afterAll(async () => {
  await ap?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("a register with payments and deliveries as recorded", { timeout: 120_000 }, () => {
  it("verifies (exit 0), counting them, and its head covers them", async () => {
    const db = copyOfRecorded("untouched.duckdb");
    const run = await verify(db);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain("3 documents in 1 sequence, 2 payments and 1 delivery attempt, verified");
    expect(run.stdout).toMatch(/^register head 6:/m);
    // the head kept before the payments is still the start of the chain
    expect((await verify(db, ["--head", documentsHead])).code).toBe(0);
    const overdue = await cli(["invoices", "overdue", "--db", db]);
    expect(overdue.code, overdue.stderr).toBe(7);
    expect(overdue.stdout).toContain("INV-2026-00002");
  });
});

interface Bend {
  what: string;
  statements: string[];
  says: string[];
}

const BENDS: Bend[] = [
  {
    what: "a payment's amount changed",
    statements: ["UPDATE register_payments SET amount = '9999.00' WHERE entry = 2"],
    says: ["payment 2: changed since recorded: amount"],
  },
  {
    what: "a payment deleted (its link left)",
    statements: ["DELETE FROM register_payments WHERE entry = 1"],
    says: ["payment 1 was removed: its records are gone, its link 4 is left"],
  },
  {
    what: "the last payment deleted with its link",
    statements: [
      "DELETE FROM register_payments WHERE entry = 2",
      "DELETE FROM register_chain WHERE kind = 'payment' AND key = '2'",
    ],
    says: ["link 5 is missing (removed), before delivery attempt 1's"],
  },
  {
    what: "a payment added with SQL",
    statements: [
      "INSERT INTO register_payments (entry, number, amount, currency, paid_on, source) VALUES (3, 'INV-2026-00003', '500.00', 'EUR', '2026-12-01', 'manual')",
    ],
    says: ["payment 3: not chained: recorded outside cloudunits"],
  },
  {
    what: "a delivery attempt made undelivered",
    statements: ["UPDATE register_deliveries SET delivered = false, http_status = 503 WHERE entry = 1"],
    says: ["delivery attempt 1: changed since recorded: delivered, http_status"],
  },
  {
    what: "a delivery attempt deleted",
    statements: ["DELETE FROM register_deliveries WHERE entry = 1"],
    says: ["delivery attempt 1 was removed: its records are gone, its link 6 is left"],
  },
];

describe("payments and deliveries bent outside cloudunits", { timeout: 120_000 }, () => {
  for (const [i, { what, statements, says }] of BENDS.entries()) {
    it(`${what}: verify names it (exit 10); list, overdue, send and the receivables page refuse`, async () => {
      const db = copyOfRecorded(`bent-${i}.duckdb`);
      await sql(db, statements);

      const verified = await verify(db);
      expect(verified.code, verified.stdout + verified.stderr).toBe(10);
      for (const line of says) expect(verified.stdout, verified.stdout).toContain(line);
      expect(verified.stdout).not.toMatch(HEAD);

      const listed = await cli(["invoices", "list", "--db", db, "--format", "json"]);
      expect(listed.code, listed.stderr).toBe(10);
      expect(listed.stdout).toBe("");
      expect(listed.stderr).toContain(says[0]);

      const overdue = await cli(["invoices", "overdue", "--db", db]);
      expect(overdue.code, overdue.stderr).toBe(10);
      expect(overdue.stdout).toBe("");

      // nothing is sent on what a bent register says was (or was not) delivered
      const posted = ap.received.length;
      const sent = await cli(["invoices", "send", "--db", db, "--to", ap.url]);
      expect(sent.code, sent.stderr).toBe(10);
      expect(ap.received.length).toBe(posted);

      // nor is a payment recorded against what a bent register says is outstanding
      const paid = await cli([
        "invoices",
        "pay",
        "--db",
        db,
        "--number",
        "INV-2026-00003",
        "--amount",
        "1.00",
        "--date",
        "2026-12-01",
      ]);
      expect(paid.code, paid.stderr).toBe(10);
      expect(paid.stderr).toContain(says[0]);

      const dashboard = await serveDashboard({ db, port: 0 });
      try {
        const page = await fetch(`${dashboard.url}receivables`);
        expect(page.status).toBe(409);
      } finally {
        await dashboard.close();
      }
    });
  }
});

describe("a register chained before payments and deliveries were", { timeout: 120_000 }, () => {
  it("verify says they are not chained yet; the first open to write chains them after the documents, and the head kept then still holds", async () => {
    const db = copyOfRecorded("documents-only.duckdb");
    // as the version that chained documents alone left it: their links and head, no mark of the kinds chained
    await sql(db, [
      "DELETE FROM register_chain WHERE kind <> 'document'",
      `UPDATE warehouse_meta SET value = '${documentsHead}' WHERE key = 'register_head'`,
      "DELETE FROM warehouse_meta WHERE key IN ('register_chained_kinds', 'schema_sql')",
    ]);
    const before = await verify(db);
    expect(before.code).toBe(10);
    expect(before.stdout).toContain(
      "2 payments and 1 delivery attempt recorded before they were chained: chained when the warehouse is next opened to write",
    );
    expect((await cli(["invoices", "list", "--db", db])).code).toBe(0);

    (await open({ db }, { write: true })).close();
    const after = await verify(db);
    expect(after.code, after.stdout).toBe(0);
    expect(after.stdout).toContain("3 documents in 1 sequence, 2 payments and 1 delivery attempt, verified");
    expect(after.stdout).toMatch(/^register head 6:/m);
    expect((await verify(db, ["--head", documentsHead])).code).toBe(0);

    // chained now: a payment changed since is named
    await sql(db, ["UPDATE register_payments SET amount = '1.00' WHERE entry = 1"]);
    const bent = await verify(db);
    expect(bent.code).toBe(10);
    expect(bent.stdout).toContain("payment 1: changed since recorded: amount");
  });
});
