import { execFileSync } from "node:child_process";
import { mkdtemp, readdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, expect, it } from "vitest";
import { describeWith } from "../../helpers/prerequisites.js";
import { runCli } from "../../helpers/runCli.js";

let root: string;
let db: string;
let prices: string;
let statement: string;

const text = (file: string) => execFileSync("pdftotext", ["-layout", file, "-"], { encoding: "utf8" }).replace(/\s+/g, " ");
const numberOf = (file: string) => /Statement number (\S+)/.exec(text(file))?.[1];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "cu-statement-cli-"));
  const data = join(root, "data");
  db = join(root, "w.duckdb");
  expect((await runCli(["generate", "--out", data, "--accounts", "2", "--first-account-id", "7101", "--spaces", "1", "--machines", "2", "--hours", "48", "--start", "2026-10-31T00:00Z"])).code).toBe(0);
  expect((await runCli(["ingest", data, "--db", db])).code).toBe(0);
  prices = join(root, "prices.yaml");
  await writeFile(prices, "currency: EUR\nprices:\n  CU: 0.0125\n  NU: 20\n");
  statement = join(root, "statement.yaml");
  await writeFile(statement, [
    "issuer: { legalName: Nordlicht Cloud Services GmbH, address: [Hafenstraße 12, Hamburg] }",
    "numbering: { pattern: 'INV-{yyyy}-{seq:05}' }",
    "issueDate: 2026-11-02",
    "customers:",
    "  '7101': { legalName: Lumière SARL, address: [Lyon] }",
  ].join("\n"));
}, 120_000);

describeWith("poppler", "billing --format pdf --statement", () => {
  it("numbers each account's statement in the warehouse; a second run gives the same numbers, another period new ones", async () => {
    const args = ["billing", "--db", db, "--prices", prices, "--statement", statement, "--format", "pdf"];
    const first = await runCli([...args, "--month", "2026-10", "--out", join(root, "oct")]);
    expect(first.code, first.stderr).toBe(0);
    const files = (await readdir(join(root, "oct"))).sort();
    expect(files).toEqual(["account-7101.pdf", "account-7102.pdf"]);
    expect(files.map((f) => numberOf(join(root, "oct", f)))).toEqual(["INV-2026-00001", "INV-2026-00002"]);
    expect(text(join(root, "oct", "account-7101.pdf"))).toContain("BILL TO Lumière SARL");
    expect(first.stderr).toContain(`${statement} has no customer entry (legal name, address, VAT id) for account 7102`);

    const again = await runCli([...args, "--month", "2026-10", "--out", join(root, "oct-again")]);
    expect(again.code, again.stderr).toBe(0);
    expect((await readdir(join(root, "oct-again"))).sort().map((f) => numberOf(join(root, "oct-again", f)))).toEqual(["INV-2026-00001", "INV-2026-00002"]);

    // one account of November: one file, the next number
    const one = await runCli([...args, "--month", "2026-11", "--account-id", "7102", "--out", join(root, "nov-7102.pdf")]);
    expect(one.code, one.stderr).toBe(0);
    expect(numberOf(join(root, "nov-7102.pdf"))).toBe("INV-2026-00003");
    expect(text(join(root, "nov-7102.pdf"))).toContain("Period 2026-11-01 to 2026-11-30 (UTC)");
  }, 120_000);

  it("from files: drafts without a number, and a note saying so", async () => {
    const run = await runCli(["billing", join(root, "data"), "--month", "2026-10", "--account-id", "7101", "--prices", prices, "--statement", statement, "--format", "pdf", "--out", join(root, "draft.pdf")]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain("statements from files are drafts without a number");
    expect(text(join(root, "draft.pdf"))).toContain("Statement number DRAFT, not numbered");
  }, 60_000);

  it("the --per-account pack gets each account's PDF beside its workbook", async () => {
    const out = join(root, "pack");
    const run = await runCli(["billing", "--db", db, "--month", "2026-10", "--prices", prices, "--statement", statement, "--format", "xlsx", "--per-account", "--out", out]);
    expect(run.code, run.stderr).toBe(0);
    expect((await readdir(out)).sort()).toEqual(["account-7101.pdf", "account-7101.xlsx", "account-7102.pdf", "account-7102.xlsx", "summary.xlsx"]);
    expect(numberOf(join(out, "account-7101.pdf"))).toBe("INV-2026-00001");
  }, 60_000);

  it.each([
    { what: "pdf without --statement", args: ["--format", "pdf", "--out", "x"], message: /--format pdf needs --prices FILE, --statement FILE/ },
    { what: "--statement with csv", args: ["--format", "csv", "--statement", "s.yaml"], message: /--statement applies to --format pdf/ },
  ])("exits 2 on $what", async ({ args, message }) => {
    const run = await runCli(["billing", "--db", db, "--month", "2026-10", "--prices", prices, ...args]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
  }, 60_000);

  it("exits 2 and writes nothing for an account without consumption in the period (no statement of nothing)", async () => {
    const out = join(root, "none.pdf");
    const run = await runCli(["billing", "--db", db, "--month", "2026-12", "--account-id", "7101", "--prices", prices, "--statement", statement, "--format", "pdf", "--out", out]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("account 7101 has no consumption in [2026-12-01T00:00:00Z, 2027-01-01T00:00:00Z): no statement to make");
    expect((await readdir(root)).includes("none.pdf")).toBe(false);
  }, 60_000);

  it("warns when a statement already numbered is made again from other figures", async () => {
    const dearer = join(root, "dearer.yaml");
    await writeFile(dearer, "currency: EUR\nprices:\n  CU: 0.5\n  NU: 20\n");
    const run = await runCli(["billing", "--db", db, "--month", "2026-10", "--account-id", "7101", "--prices", dearer, "--statement", statement, "--format", "pdf", "--out", join(root, "dearer.pdf")]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/warning: statement INV-2026-00001 \(account 7101\) was first issued on 2026-11-02 for [\d.]+ EUR; the data now gives [\d.]+ EUR excluding tax/);
    expect(numberOf(join(root, "dearer.pdf"))).toBe("INV-2026-00001");
  }, 60_000);

  it("exits 2 naming the file and key of a bad statement config", async () => {
    const bad = join(root, "bad.yaml");
    await writeFile(bad, "issuer: { legalName: X }\nnumbering: { pattern: INV-2026 }\n");
    const run = await runCli(["billing", "--db", db, "--month", "2026-10", "--prices", prices, "--statement", bad, "--format", "pdf", "--out", join(root, "bad")]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${bad}: numbering.pattern "INV-2026" has no {seq}`);
  }, 60_000);
});
