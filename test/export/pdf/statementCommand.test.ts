import { execFileSync } from "node:child_process";
import { mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, expect, it } from "vitest";
import { describeWith } from "../../helpers/prerequisites.js";
import { runCli } from "../../helpers/runCli.js";

let root: string;
let db: string;
let prices: string;
let statement: string;

const text = (file: string) =>
  execFileSync("pdftotext", ["-raw", file, "-"], { encoding: "utf8" }).replace(/\s+/g, " ");

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "cu-statement-cli-"));
  const data = join(root, "data");
  db = join(root, "w.duckdb");
  expect(
    (
      await runCli([
        "generate",
        "--out",
        data,
        "--accounts",
        "2",
        "--first-account-id",
        "7101",
        "--spaces",
        "1",
        "--machines",
        "2",
        "--hours",
        "48",
        "--start",
        "2026-10-31T00:00Z",
      ])
    ).code,
  ).toBe(0);
  expect((await runCli(["ingest", data, "--db", db])).code).toBe(0);
  prices = join(root, "prices.yaml");
  await writeFile(prices, "currency: EUR\nprices:\n  CU: 0.0125\n  NU: 20\n");
  statement = join(root, "statement.yaml");
  await writeFile(
    statement,
    [
      "issuer: { legalName: Nordlicht Cloud Services GmbH, address: [Hafenstraße 12, 20457 Hamburg], tax: { category: S, ratePercent: 19 } }",
      "numbering: { pattern: 'INV-{yyyy}-{seq:05}' }",
      "issueDate: 2026-11-02",
      "customers:",
      "  '7101': { legalName: Lumière SARL, address: [69001 Lyon], country: FR, vatId: FR1, tax: { category: AE } }",
    ].join("\n"),
  );
}, 120_000);

describeWith("poppler", "billing --format pdf --statement: drafts", () => {
  it("writes each account's draft, named by account and month: DRAFT, no number, the customer's tax; the same again byte for byte", async () => {
    const args = [
      "billing",
      "--db",
      db,
      "--prices",
      prices,
      "--statement",
      statement,
      "--format",
      "pdf",
      "--month",
      "2026-10",
    ];
    const first = await runCli([...args, "--out", join(root, "oct")]);
    expect(first.code, first.stderr).toBe(0);
    expect((await readdir(join(root, "oct"))).sort()).toEqual(["draft-7101-2026-10.pdf", "draft-7102-2026-10.pdf"]);
    const lumiere = text(join(root, "oct", "draft-7101-2026-10.pdf"));
    for (const words of [
      "Invoice (DRAFT)",
      "Invoice number DRAFT, not numbered",
      "BILL TO Lumière SARL",
      "Reverse charge: VAT to be accounted for by the customer",
      "Period 1 Oct 2026 – 31 Oct 2026",
    ]) {
      expect(lumiere).toContain(words);
    }
    expect(lumiere).not.toMatch(/INV-\d/);
    expect(text(join(root, "oct", "draft-7102-2026-10.pdf"))).toMatch(/VAT 19% on [\d.,]+ [\d.,]+ Amount due \(EUR\)/);
    expect(first.stderr).toContain(
      `${statement} has no customer entry (legal name, address, country) for account 7102: the draft is addressed by the account's name, and an invoice cannot be issued`,
    );
    const again = await runCli([...args, "--out", join(root, "oct-again")]);
    expect(again.code, again.stderr).toBe(0);
    for (const f of ["draft-7101-2026-10.pdf", "draft-7102-2026-10.pdf"]) {
      expect((await readFile(join(root, "oct-again", f))).equals(await readFile(join(root, "oct", f)))).toBe(true);
    }
  }, 120_000);

  it("--out pdf-nov2/ (a folder not yet made) with one account: the folder is made and the draft written there, no stack trace", async () => {
    const run = await runCli([
      "billing",
      "--db",
      db,
      "--prices",
      prices,
      "--statement",
      statement,
      "--format",
      "pdf",
      "--month",
      "2026-11",
      "--account-id",
      "7102",
      "--out",
      join(root, "pdf-nov2") + "/",
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toMatch(/ENOTDIR|\n\s+at /);
    expect(await readdir(join(root, "pdf-nov2"))).toEqual(["draft-7102-2026-11.pdf"]);
    expect(text(join(root, "pdf-nov2", "draft-7102-2026-11.pdf"))).toContain("Period 1 Nov 2026 – 30 Nov 2026");
    // a file in a folder not yet made: the folder is made
    const file = await runCli([
      "billing",
      "--db",
      db,
      "--prices",
      prices,
      "--statement",
      statement,
      "--format",
      "pdf",
      "--month",
      "2026-11",
      "--account-id",
      "7102",
      "--out",
      join(root, "new", "deep", "nov.pdf"),
    ]);
    expect(file.code, file.stderr).toBe(0);
    expect(await readdir(join(root, "new", "deep"))).toEqual(["nov.pdf"]);
  }, 60_000);

  it("from files too: the same draft", async () => {
    const run = await runCli([
      "billing",
      join(root, "data"),
      "--month",
      "2026-10",
      "--account-id",
      "7101",
      "--prices",
      prices,
      "--statement",
      statement,
      "--format",
      "pdf",
      "--out",
      join(root, "draft.pdf"),
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(text(join(root, "draft.pdf"))).toContain("Invoice number DRAFT, not numbered");
  }, 60_000);

  it("the --per-account pack gets each account's draft beside its workbook", async () => {
    const out = join(root, "pack");
    const run = await runCli([
      "billing",
      "--db",
      db,
      "--month",
      "2026-10",
      "--prices",
      prices,
      "--statement",
      statement,
      "--format",
      "xlsx",
      "--per-account",
      "--out",
      out,
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect((await readdir(out)).sort()).toEqual([
      "account-7101.xlsx",
      "account-7102.xlsx",
      "draft-7101-2026-10.pdf",
      "draft-7102-2026-10.pdf",
      "summary.xlsx",
    ]);
  }, 60_000);

  it.each([
    {
      what: "pdf without --statement",
      args: ["--format", "pdf", "--out", "x"],
      message: /--format pdf needs --prices FILE, --statement FILE/,
    },
    {
      what: "--statement with csv",
      args: ["--format", "csv", "--statement", "s.yaml"],
      message: /--statement applies to --format pdf/,
    },
  ])(
    "exits 2 on $what",
    async ({ args, message }) => {
      const run = await runCli(["billing", "--db", db, "--month", "2026-10", "--prices", prices, ...args]);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(message);
    },
    60_000,
  );

  it("exits 3 and writes nothing for an account without hours in the period (no draft of nothing)", async () => {
    const out = join(root, "none.pdf");
    const run = await runCli([
      "billing",
      "--db",
      db,
      "--month",
      "2026-12",
      "--account-id",
      "7101",
      "--prices",
      prices,
      "--statement",
      statement,
      "--format",
      "pdf",
      "--out",
      out,
    ]);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(
      "no hours held in 2026-12 for account 7101: the inputs hold none of it, so there is nothing to bill",
    );
    expect((await readdir(root)).includes("none.pdf")).toBe(false);
  }, 60_000);

  it.each([
    {
      what: "a pattern without {seq}",
      config: "issuer: { legalName: X, tax: { category: S, ratePercent: 19 } }\nnumbering: { pattern: INV-2026 }\n",
      message: 'numbering.pattern "INV-2026" has no {seq}',
    },
    {
      what: "no tax at all",
      config: "issuer: { legalName: X }\n",
      message:
        "no tax for account 7101: set issuer.tax (the default, e.g. { category: S, ratePercent: 19 }) or customers.7101.tax",
    },
  ])(
    "exits 2 naming the file and key of a statement config with $what",
    async ({ config, message }) => {
      const bad = join(root, "bad.yaml");
      await writeFile(bad, config);
      const run = await runCli([
        "billing",
        "--db",
        db,
        "--month",
        "2026-10",
        "--account-id",
        "7101",
        "--prices",
        prices,
        "--statement",
        bad,
        "--format",
        "pdf",
        "--out",
        join(root, "bad.pdf"),
      ]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`${bad}: ${message}`);
    },
    60_000,
  );

  it("reads the older taxes list and says what to write instead", async () => {
    const old = join(root, "old.yaml");
    await writeFile(old, "issuer: { legalName: X }\ntaxes: [{ label: VAT 21%, ratePercent: 21 }]\n");
    const run = await runCli([
      "billing",
      "--db",
      db,
      "--month",
      "2026-10",
      "--account-id",
      "7102",
      "--prices",
      prices,
      "--statement",
      old,
      "--format",
      "pdf",
      "--out",
      join(root, "old.pdf"),
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(
      `note: ${old}: taxes is the older form of issuer.tax: write issuer.tax: { category: S, ratePercent: 21 }`,
    );
    expect(text(join(root, "old.pdf"))).toMatch(/VAT 21% on /);
  }, 60_000);
});
