import { DuckDBInstance } from "@duckdb/node-api";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ingest, loadPrices, open, serveDashboard } from "../../src/index.js";
import { runCli } from "../helpers/runCli.js";
import { writeOctober } from "../helpers/octoberWarehouse.js";

// The register bent by someone with SQL and the warehouse file, every way the issue found: the
// changed or missing record is named by `invoices verify` (exit 10), and `show`, issuing again,
// `list` and the dashboard's download hand out or count nothing of it.

const NOW = "2026-11-02T08:00:00Z";
let dir: string;
let issued: string;
const path = (...parts: string[]) => join(dir, ...parts);
const HEAD = /^register head (3:[0-9a-f]{64})$/m;

/** Runs SQL statements on a warehouse file, as anyone holding the file can. */
async function sql(db: string, statements: [string, Record<string, string>?][]): Promise<void> {
  const instance = await DuckDBInstance.create(db);
  const connection = await instance.connect();
  try {
    for (const [statement, params] of statements) await connection.run(statement, params as never);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** One value of a warehouse file. */
async function value(db: string, query: string): Promise<unknown> {
  const instance = await DuckDBInstance.create(db, { access_mode: "READ_ONLY" });
  const connection = await instance.connect();
  try {
    return (await connection.runAndReadAll(query)).getRowsJS()[0]?.[0];
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** A copy of the warehouse with October issued (INV-2026-00001..3 for accounts 7101..7103). */
function copyOfIssued(name: string): string {
  copyFileSync(issued, path(name));
  return path(name);
}

const cli = (args: string[]) => runCli(args, { CLOUDUNITS_TEST_NOW: NOW });
const verify = (db: string, extra: string[] = []) => cli(["invoices", "verify", "--db", db, ...extra]);
const issue = (db: string, out: string) =>
  cli([
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
    out,
  ]);

/**
 * The dashboard's download of an account's issued invoice file of October: its status and the SHA-256 of its body;
 * and the overview's page of October.
 */
async function download(
  db: string,
  accountId: number,
  extension: "pdf" | "xml",
): Promise<{ status: number; sha256: string; overview: string }> {
  const dashboard = await serveDashboard({ db, port: 0, prices: await loadPrices(path("prices.yaml")) });
  try {
    const answer = await fetch(`${dashboard.url}account/${accountId}/invoice.${extension}?month=2026-10`);
    return {
      overview: await (await fetch(`${dashboard.url}?month=2026-10`)).text(),
      status: answer.status,
      sha256: createHash("sha256")
        .update(Buffer.from(await answer.arrayBuffer()))
        .digest("hex"),
    };
  } finally {
    await dashboard.close();
  }
}

/** The XML of INV-2026-00002 as issued, its amount due's first digit made a 9 (133.20 → 933.20). */
async function bentXml(db: string): Promise<Buffer> {
  const xml = Buffer.from(
    (await value(db, "SELECT content FROM register_files WHERE name = 'INV-2026-00002.xml'")) as Uint8Array,
  ).toString("utf8");
  const bent = xml.replace(/(<cbc:PayableAmount currencyID="EUR">)\d/, "$19");
  expect(bent).not.toBe(xml);
  return Buffer.from(bent, "utf8");
}

/** Every row of a document in the register's tables, its link included when `link`. */
const deleteDocument = (number: string, link: boolean): [string][] => [
  ...["register_documents", "register_basis_hours", "register_files"].map((t): [string] => [
    `DELETE FROM ${t} WHERE number = '${number}'`,
  ]),
  ...(link ? [[`DELETE FROM register_chain WHERE key = '${number}'`] as [string]] : []),
];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cloudunits-register-chain-"));
  await writeOctober(path("october"), 3);
  issued = path("issued.duckdb");
  await ingest([path("october")], { db: issued });
  copyFileSync(join(import.meta.dirname, "../../examples/statement.yaml"), path("statement.yaml"));
  writeFileSync(path("prices.yaml"), "currency: EUR\nprices: { CU: 0.05, SU: { perMonth: 40 }, TU: 0.002, NU: 20 }\n");
  const run = await issue(issued, path("issued-out"));
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout).toMatch(/^issued INV-2026-00003 \(account 7103/m);
}, 180_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a register as issued", { timeout: 120_000 }, () => {
  it("verifies (exit 0) and prints its head; list prints the same head; a head kept is found in it, another is not", async () => {
    const db = copyOfIssued("untouched.duckdb");
    const run = await verify(db);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(
      "3 documents in 1 sequence verified: every one as issued, its files byte for byte, no number missing",
    );
    const head = HEAD.exec(run.stdout)?.[1];
    expect(head, run.stdout).toBeDefined();
    // status checks the register as verify does: nothing to say of an intact one
    const status = await cli(["status", "--db", db, "--format", "json"]);
    expect(status.code, status.stderr).toBe(0);
    expect((JSON.parse(status.stdout) as { registerProblems: string[] }).registerProblems).toEqual([]);
    const dashboard = await download(db, 7102, "xml");
    expect(dashboard.status).toBe(200);
    expect(dashboard.overview).toContain("7102");
    expect(dashboard.overview).not.toContain("changed outside cloudunits");
    const list = await cli(["invoices", "list", "--db", db]);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout.trimEnd().split("\n").at(-1)).toBe(`register head ${head}`);
    const json = await cli(["invoices", "list", "--db", db, "--format", "json"]);
    expect(JSON.parse(json.stdout)).toHaveLength(3);
    expect(json.stderr).toContain(`register head ${head}`);
    expect((await verify(db, ["--head", head!])).code).toBe(0);
    const other = await verify(db, ["--head", `3:${"0".repeat(64)}`]);
    expect(other.code).toBe(10);
    expect(other.stdout).toContain("the register's first 3 links are not those of the head kept");
  });
});

interface Bend {
  what: string;
  bend: (db: string) => Promise<void>;
  /** What verify says of it. */
  says: string[];
  /** The document to show, and the dashboard download to try. */
  show: string;
  download: [number, "pdf" | "xml"];
}

const BENDS: Bend[] = [
  {
    what: "a file's bytes changed, its recorded SHA-256 left",
    bend: async (db) =>
      sql(db, [
        [
          "UPDATE register_files SET content = unhex($hex) WHERE name = 'INV-2026-00002.xml'",
          { hex: (await bentXml(db)).toString("hex") },
        ],
      ]),
    says: ["document INV-2026-00002: changed since recorded: bytes of INV-2026-00002.xml"],
    show: "INV-2026-00002",
    download: [7102, "xml"],
  },
  {
    what: "a file's bytes changed and its recorded SHA-256 with them",
    bend: async (db) => {
      const bytes = await bentXml(db);
      await sql(db, [
        [
          "UPDATE register_files SET content = unhex($hex), sha256 = $sha WHERE name = 'INV-2026-00002.xml'",
          { hex: bytes.toString("hex"), sha: createHash("sha256").update(bytes).digest("hex") },
        ],
      ]);
    },
    says: [
      "document INV-2026-00002: changed since recorded: bytes of INV-2026-00002.xml, recorded SHA-256 of INV-2026-00002.xml",
    ],
    show: "INV-2026-00002",
    download: [7102, "xml"],
  },
  {
    what: "a document's gross",
    bend: (db) => sql(db, [["UPDATE register_documents SET gross = '1.00' WHERE number = 'INV-2026-00002'"]]),
    says: ["document INV-2026-00002: changed since recorded: gross"],
    show: "INV-2026-00002",
    download: [7102, "pdf"],
  },
  {
    what: "a line's amount",
    bend: async (db) => {
      const document = JSON.parse(
        String(await value(db, "SELECT document::VARCHAR FROM register_documents WHERE number = 'INV-2026-00002'")),
      ) as { lines: { net: string }[] };
      document.lines[0]!.net = "0.01";
      await sql(db, [
        [
          "UPDATE register_documents SET document = $document WHERE number = 'INV-2026-00002'",
          { document: JSON.stringify(document) },
        ],
      ]);
    },
    says: ["document INV-2026-00002: changed since recorded: document lines[0]"],
    show: "INV-2026-00002",
    download: [7102, "pdf"],
  },
  {
    what: "the last document's rows deleted, its link too",
    bend: (db) => sql(db, deleteDocument("INV-2026-00003", true)),
    says: ["the last link (3) was removed: 3 were recorded, 2 are held"],
    show: "INV-2026-00001",
    download: [7101, "pdf"],
  },
  {
    what: "a document in the middle deleted",
    bend: (db) => sql(db, deleteDocument("INV-2026-00002", false)),
    says: [
      "document INV-2026-00002 was removed: its records are gone, its link 2 is left",
      "invoices of 9930:DE123456789 in 2026: number 2 is missing, between INV-2026-00001 and INV-2026-00003 (removed)",
    ],
    show: "INV-2026-00001",
    download: [7101, "pdf"],
  },
  {
    what: "a document in the middle deleted, its link too",
    bend: (db) => sql(db, deleteDocument("INV-2026-00002", true)),
    says: [
      "link 2 is missing (removed), before document INV-2026-00003's",
      "broken link: document INV-2026-00003's (link 3) does not follow document INV-2026-00001's (link 1) in invoices of 9930:DE123456789 in 2026",
      "invoices of 9930:DE123456789 in 2026: number 2 is missing, between INV-2026-00001 and INV-2026-00003 (removed)",
    ],
    show: "INV-2026-00003",
    download: [7103, "pdf"],
  },
  {
    what: "a file's row deleted",
    bend: (db) => sql(db, [["DELETE FROM register_files WHERE name = 'INV-2026-00002.xml'"]]),
    says: ["document INV-2026-00002: removed: bytes of INV-2026-00002.xml, recorded SHA-256 of INV-2026-00002.xml"],
    show: "INV-2026-00002",
    download: [7102, "pdf"],
  },
];

describe("a register bent outside cloudunits", { timeout: 120_000 }, () => {
  for (const [
    i,
    {
      what,
      bend,
      says,
      show,
      download: [accountId, extension],
    },
  ] of BENDS.entries()) {
    it(`${what}: verify and status name it (exit 10); show, issue, list and the dashboard's download refuse`, async () => {
      const db = copyOfIssued(`bent-${i}.duckdb`);
      await bend(db);
      const documents = await value(db, "SELECT count(*) FROM register_documents");

      const verified = await verify(db);
      expect(verified.code, verified.stdout + verified.stderr).toBe(10);
      for (const line of says) expect(verified.stdout, verified.stdout).toContain(line);
      expect(verified.stdout).not.toMatch(HEAD);
      expect(verified.stderr).toContain("the invoice register was changed outside cloudunits");

      // the hourly health check says it too, whatever else it finds: cron alerts on exit 10, not 0
      const status = await cli(["status", "--db", db, "--format", "json"]);
      expect(status.code, status.stderr).toBe(10);
      const registerProblems = (JSON.parse(status.stdout) as { registerProblems: string[] }).registerProblems;
      for (const line of says) expect(registerProblems.join("\n")).toContain(line);
      const statusText = await cli(["status", "--db", db]);
      expect(statusText.code).toBe(10);
      expect(statusText.stdout).toContain(
        `the invoice register was changed outside cloudunits: ${registerProblems.length}`,
      );
      expect(statusText.stdout).toContain(says[0]);

      const shown = await cli(["invoices", "show", "--db", db, "--number", show, "--out", path(`bent-${i}-show`)]);
      expect(shown.code, shown.stderr).toBe(10);
      expect(shown.stderr).toContain(says[0]);
      expect(existsSync(path(`bent-${i}-show`))).toBe(false);

      // issuing the month again neither writes the bent files nor numbers the account of a removed document again
      const again = await issue(db, path(`bent-${i}-issue`));
      expect(again.code, again.stderr).toBe(10);
      expect(again.stdout).toBe("");
      expect(existsSync(path(`bent-${i}-issue`))).toBe(false);
      expect(await value(db, "SELECT count(*) FROM register_documents")).toBe(documents);

      const listed = await cli(["invoices", "list", "--db", db, "--format", "json"]);
      expect(listed.code).toBe(10);
      expect(listed.stdout).toBe("");

      const dashboard = await download(db, accountId, extension);
      expect(dashboard.status).toBe(409);
      // the overview says it first, in red, with the same lines: not a page of figures as if nothing happened
      expect(dashboard.overview).toContain("Invoice register changed outside cloudunits");
      expect(dashboard.overview).toContain(says[0]); // no character of these lines is escaped in HTML
    });
  }

  it("a gross changed and the whole chain made again: only the head kept outside the warehouse finds it", async () => {
    const db = copyOfIssued("rechained.duckdb");
    const kept = HEAD.exec((await verify(db)).stdout)![1]!;
    await sql(db, [
      ["UPDATE register_documents SET gross = '1.00' WHERE number = 'INV-2026-00002'"],
      ["DELETE FROM register_chain"],
      ["DELETE FROM warehouse_meta WHERE key IN ('register_head', 'register_chained_kinds', 'schema_sql')"],
    ]);
    (await open({ db }, { write: true })).close(); // a writer's open chains the register afresh, as if made before the chain
    const unaware = await verify(db);
    expect(unaware.code, unaware.stdout).toBe(0);
    const checked = await verify(db, ["--head", kept]);
    expect(checked.code).toBe(10);
    expect(checked.stdout).toContain(`the register's first 3 links are not those of the head kept (${kept})`);
  });
});

describe("a register issued before the chain", { timeout: 120_000 }, () => {
  it("is chained when a writer first opens it: verify says so until then, and after it the sequence goes on", async () => {
    const db = copyOfIssued("before-chain.duckdb");
    // as a version before the chain left it: no links, no head
    await sql(db, [
      ["DROP TABLE register_chain"],
      ["DELETE FROM warehouse_meta WHERE key IN ('register_head', 'register_chained_kinds', 'schema_sql')"],
    ]);
    const before = await verify(db);
    expect(before.code).toBe(10);
    expect(before.stdout).toContain(
      "3 documents were issued before the register was chained: chained when the warehouse is next opened to write",
    );
    expect((await cli(["invoices", "list", "--db", db])).code).toBe(0);

    const again = await issue(db, path("before-chain-out"));
    expect(again.code, again.stderr).toBe(0);
    const after = await verify(db);
    expect(after.code, after.stdout).toBe(0);
    expect(after.stdout).toMatch(HEAD);
    // the documents' rows were not touched: the chain made now is the one made at issue
    expect(HEAD.exec(after.stdout)![1]).toBe(HEAD.exec((await verify(copyOfIssued("as-issued.duckdb"))).stdout)![1]);
  });

  it("whose sequence was kept under the issuer's VAT id: correcting goes on with the next numbers of its issuer's sequence", async () => {
    const db = copyOfIssued("vat-keyed.duckdb");
    await sql(db, [
      ["UPDATE register_documents SET issuer = 'DE123456789'"],
      ["DROP TABLE register_chain"],
      ["DELETE FROM warehouse_meta WHERE key IN ('register_head', 'register_chained_kinds', 'schema_sql')"],
    ]);
    const run = await runCli(
      [
        "invoices",
        "correct",
        "--db",
        db,
        "--number",
        "INV-2026-00002",
        "--reason",
        "a test",
        "--statement",
        path("statement.yaml"),
        "--prices",
        path("prices.yaml"),
        "--out",
        path("vat-keyed-out"),
      ],
      { CLOUDUNITS_TEST_NOW: "2026-11-03T08:00:00Z" },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/corrected: credit note CN-2026-00001 \(-[\d.]+\), new invoice INV-2026-00004 /);
    expect((await verify(db)).stdout).toMatch(/^register head 5:/m);
  });
});
