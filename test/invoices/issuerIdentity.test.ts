import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ingest, writeDataset } from "../../src/index.js";
import { runCli } from "../helpers/runCli.js";

// The numbering sequence is the issuer's legal identity's (its peppolId, else its legal name), not
// its VAT id as written: a VAT id put right goes on with the same sequence, and a month issued by
// one issuer is not issued again, nor one of its invoices corrected, with another's config.

const NOW = "2026-11-02T08:00:00Z";
let dir: string;
let base: string;
const path = (...parts: string[]) => join(dir, ...parts);

const issue = (db: string, statement: string, out: string, extra: string[] = []) =>
  runCli(
    [
      "invoices",
      "issue",
      "--db",
      db,
      "--month",
      "2026-10",
      "--statement",
      path(statement),
      "--prices",
      path("prices.yaml"),
      "--out",
      path(out),
      ...extra,
    ],
    { CLOUDUNITS_TEST_NOW: NOW },
  );

/** examples/statement.yaml with its issuer's lines changed. */
function configWith(name: string, replacements: [string, string][]): void {
  let text = readFileSync(path("statement.yaml"), "utf8");
  for (const [from, to] of replacements) {
    expect(text).toContain(from);
    text = text.replaceAll(from, to);
  }
  writeFileSync(path(name), text);
}

function warehouse(name: string): string {
  copyFileSync(base, path(name));
  return path(name);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cloudunits-issuer-identity-"));
  await writeDataset({
    out: path("october"),
    accounts: 2,
    firstAccountId: 7101,
    spaces: 1,
    machines: 1,
    hours: 744,
    start: Date.parse("2026-10-01T00:00:00Z") / 1000,
    seed: 4,
  });
  base = path("base.duckdb");
  await ingest([path("october")], { db: base });
  copyFileSync(join(import.meta.dirname, "../../examples/statement.yaml"), path("statement.yaml"));
  writeFileSync(path("prices.yaml"), "currency: EUR\nprices: { CU: 0.05, SU: { perMonth: 40 }, TU: 0.002, NU: 20 }\n");
  // the VAT id had a typo: the same issuer, the same electronic address
  configWith("vat-fixed.yaml", [["vatId: DE123456789", "vatId: DE123456780"]]);
  // another company's config
  configWith("other-issuer.yaml", [
    ["legalName: Nordlicht Cloud Services GmbH", "legalName: Südwind Rechenzentrum AG"],
    ["vatId: DE123456789", "vatId: DE555555555"],
    ['peppolId: "9930:DE123456789"', 'peppolId: "9930:DE555555555"'],
  ]);
  // another company's config, its documents numbered in patterns of their own
  configWith("other-numbers.yaml", [
    ["legalName: Nordlicht Cloud Services GmbH", "legalName: Südwind Rechenzentrum AG"],
    ["vatId: DE123456789", "vatId: DE555555555"],
    ['peppolId: "9930:DE123456789"', 'peppolId: "9930:DE555555555"'],
    ["pattern: INV-{yyyy}-{seq:05}", "pattern: SW-{yyyy}-{seq:05}"],
    ["creditNotePattern: CN-{yyyy}-{seq:05}", "creditNotePattern: SWC-{yyyy}-{seq:05}"],
  ]);
}, 180_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the issuer's identity keys the sequence", { timeout: 120_000 }, () => {
  it("a VAT id put right in the config goes on with the issuer's sequence: the next account is INV-2026-00002", async () => {
    const db = warehouse("vat.duckdb");
    const first = await issue(db, "statement.yaml", "vat-out", ["--account-id", "7101"]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^issued INV-2026-00001 \(account 7101/m);
    const next = await issue(db, "vat-fixed.yaml", "vat-out", ["--account-id", "7102"]);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stdout).toMatch(/^issued INV-2026-00002 \(account 7102/m);
  });

  it("a month issued by one issuer, issued again with another issuer's config: refused (exit 2) naming who issued it; no file written", async () => {
    const db = warehouse("other.duckdb");
    expect((await issue(db, "statement.yaml", "other-first")).code).toBe(0);
    const run = await issue(db, "other-issuer.yaml", "other-again");
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(
      "2026-10 was issued by Nordlicht Cloud Services GmbH (9930:DE123456789): INV-2026-00001, INV-2026-00002",
    );
    expect(run.stderr).toContain("is of Südwind Rechenzentrum AG (9930:DE555555555)");
    expect(existsSync(path("other-again"))).toBe(false);
    const listed = JSON.parse((await runCli(["invoices", "list", "--db", db, "--format", "json"])).stdout) as {
      number: string;
    }[];
    expect(listed.map((d) => d.number)).toEqual(["INV-2026-00001", "INV-2026-00002"]);
  });

  it("an invoice issued by one issuer, corrected with another issuer's config: refused (exit 2) naming who issued it; nothing numbered, no file written", async () => {
    const db = warehouse("correct-other.duckdb");
    expect((await issue(db, "statement.yaml", "correct-first")).code).toBe(0);
    const correct = (statement: string, out: string) =>
      runCli(
        [
          "invoices",
          "correct",
          "--db",
          db,
          "--number",
          "INV-2026-00002",
          "--reason",
          "wrong prices",
          "--statement",
          path(statement),
          "--prices",
          path("prices.yaml"),
          "--out",
          path(out),
        ],
        { CLOUDUNITS_TEST_NOW: "2026-11-03T08:00:00Z" },
      );
    for (const other of ["other-issuer.yaml", "other-numbers.yaml"]) {
      const run = await correct(other, "correct-other-out");
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toContain("INV-2026-00002 was issued by Nordlicht Cloud Services GmbH (9930:DE123456789)");
      expect(run.stderr).toContain(`${other} is of Südwind Rechenzentrum AG (9930:DE555555555)`);
      expect(existsSync(path("correct-other-out"))).toBe(false);
    }
    const listed = JSON.parse((await runCli(["invoices", "list", "--db", db, "--format", "json"])).stdout) as {
      number: string;
    }[];
    expect(listed.map((d) => d.number)).toEqual(["INV-2026-00001", "INV-2026-00002"]);
    // with the issuer's own config (its VAT id put right) the correction goes into its sequences
    const own = await correct("vat-fixed.yaml", "correct-own-out");
    expect(own.code, own.stderr).toBe(0);
    expect(own.stdout).toMatch(/corrected: credit note CN-2026-00001 \(-[\d.]+\), new invoice INV-2026-00003 /);
  });
});
