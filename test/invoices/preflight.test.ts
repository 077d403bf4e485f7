import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ingest, open, writeDataset } from "../../src/index.js";
import { runCli, type CliRun } from "../helpers/runCli.js";

// Everything an issue needs is checked before a number is given (docs/billing.md, the
// refusals): each case below is a run a user made by mistake, and each leaves the register empty, the
// year's sequence free and nothing half-written, with one line saying what to change.

const NOW = "2026-12-03T09:00:00Z";
let dir: string;
let base: string;
const path = (...parts: string[]) => join(dir, ...parts);

/** The issuer and the two customers of the month: account 1 in France (reverse charge), account 2 in Germany. */
const STATEMENT = [
  "issuer: { legalName: Nordlicht Cloud Services GmbH, address: [Hafenstraße 12, 20457 Hamburg], country: DE, vatId: DE123456789,",
  "  peppolId: '9930:DE123456789', tax: { category: S, ratePercent: 19 }, contact: [billing@nordlicht.example, Tel. +49 40 1234567],",
  "  bank: [IBAN DE89 3704 0044 0532 0130 00] }",
  "numbering: { pattern: 'INV-{yyyy}-{seq:05}', creditNotePattern: 'CN-{yyyy}-{seq:05}' }",
  "customers:",
  "  '1': { legalName: Lumière Énergie SARL, address: [12 rue de la Gare, 69001 Lyon], country: FR, vatId: FR12345678901, peppolId: '9957:FR12345678901', tax: { category: AE } }",
  "  '2': { legalName: Hanse Logistik AG, address: [Am Sandtorkai 1, 20457 Hamburg], country: DE, vatId: DE987654321, peppolId: '9930:DE987654321' }",
].join("\n");

/** The register of a warehouse: each document's number and files. */
async function register(db: string): Promise<[string, string[]][]> {
  const store = await open({ db });
  try {
    return (await store.invoiceRegister()).map((e) => [e.document.number, e.files.map((f) => f.name)]);
  } finally {
    store.close();
  }
}

let copies = 0;
/** A copy of October's warehouse, nothing issued yet. */
function warehouse(): string {
  const db = path(`w${++copies}.duckdb`);
  copyFileSync(base, db);
  return db;
}

/** `invoices issue` of October with a statement config of this text (YAML, or JSON when `name` ends in .json). */
async function issue(
  db: string,
  statement: string,
  out: string,
  extra: string[] = [],
  name = `s${copies}-${Math.random().toString(16).slice(2)}.yaml`,
): Promise<CliRun> {
  writeFileSync(path(name), statement);
  return runCli(
    [
      "invoices",
      "issue",
      "--db",
      db,
      "--month",
      "2026-10",
      "--statement",
      path(name),
      "--prices",
      path("prices.yaml"),
      "--out",
      out,
      ...extra,
    ],
    { CLOUDUNITS_TEST_NOW: NOW },
  );
}

/** A refused run: exit `code`, one line on stderr (beside the test clock's note) holding `message`, nothing numbered. */
async function expectRefused(run: CliRun, db: string, code: number, message: string): Promise<void> {
  expect(run.code, run.stderr).toBe(code);
  const lines = run.stderr.split("\n").filter((l) => l !== "" && !l.includes("CLOUDUNITS_TEST_NOW"));
  expect(lines, run.stderr).toHaveLength(1);
  expect(lines[0]).toContain(message);
  expect(lines[0]).not.toMatch(/^\s+at /);
  expect(await register(db)).toEqual([]);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cloudunits-preflight-"));
  await writeDataset({
    out: path("october"),
    accounts: 2,
    firstAccountId: 1,
    spaces: 1,
    machines: 1,
    hours: 744,
    start: Date.parse("2026-10-01T00:00:00Z") / 1000,
    seed: 5,
  });
  base = path("base.duckdb");
  await ingest([path("october")], { db: base });
  writeFileSync(path("prices.yaml"), "currency: EUR\nprices: { CU: 0.05, SU: { perMonth: 40 }, TU: 0.002, NU: 20 }\n");
}, 180_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("checked before a number is given", { timeout: 60_000 }, () => {
  it("an issue date after today (a typo) is refused (exit 2), and the year's sequence stays free for the invoices dated today", async () => {
    const db = warehouse();
    await expectRefused(
      await issue(db, STATEMENT, path("future"), ["--issue-date", "2027-06-01"]),
      db,
      2,
      "--issue-date 2027-06-01 is after today, 2026-12-03 (UTC)",
    );
    expect(existsSync(path("future"))).toBe(false);
    const today = await issue(db, STATEMENT, path("today"), ["--issue-date", "2026-12-03"]);
    expect(today.code, today.stderr).toBe(0);
    expect(await register(db)).toEqual([
      ["INV-2026-00001", ["INV-2026-00001.pdf", "INV-2026-00001.xml"]],
      ["INV-2026-00002", ["INV-2026-00002.pdf", "INV-2026-00002.xml"]],
    ]);
  });

  it("an invoice between German parties needs the issuer's telephone: without one, refused (exit 2) rather than numbered as a PDF without its e-invoice", async () => {
    const db = warehouse();
    const noPhone = STATEMENT.replace(", Tel. +49 40 1234567]", "]");
    await expectRefused(
      await issue(db, noPhone, path("no-phone")),
      db,
      2,
      "issuer.contact: an e-mail line and a telephone line",
    );
    expect(existsSync(path("no-phone"))).toBe(false);
  });

  it.each([["Tel. +49 40 1234567"], ["+32 (0)2 555 12 12"], ["Telefon: 040 123456"]])(
    "a telephone written %s is one: both files are issued",
    async (phone) => {
      const db = warehouse();
      const run = await issue(
        db,
        STATEMENT.replace("Tel. +49 40 1234567", JSON.stringify(phone)),
        path(`phone-${copies}`),
      );
      expect(run.code, run.stderr).toBe(0);
      expect(readdirSync(path(`phone-${copies}`)).sort()).toEqual([
        "INV-2026-00001.pdf",
        "INV-2026-00001.xml",
        "INV-2026-00002.pdf",
        "INV-2026-00002.xml",
      ]);
    },
  );

  it.each([
    [
      "{seq:300}",
      "INV-{yyyy}-{seq:300}",
      'numbering.pattern "INV-{yyyy}-{seq:300}": {seq:300} pads to 300 digits; at most {seq:20}',
    ],
    ["{seq:999999999}", "INV-{yyyy}-{seq:999999999}", "{seq:999999999} pads to 999999999 digits"],
    [
      "a number longer than a file name",
      `${"X".repeat(190)}-{yyyy}-{seq:05}`,
      "its numbers can take 208 bytes, and a number names its files (<number>.pdf): at most 200",
    ],
  ])("a pattern whose numbers cannot name a file, %s, is refused (exit 2)", async (_what, pattern, message) => {
    const db = warehouse();
    await expectRefused(
      await issue(db, STATEMENT.replace("INV-{yyyy}-{seq:05}", pattern), path("pattern")),
      db,
      2,
      message,
    );
  });

  it("an --out that is a file is refused (exit 2) in one line, before any number", async () => {
    const db = warehouse();
    writeFileSync(path("a-file"), "x");
    await expectRefused(
      await issue(db, STATEMENT, path("a-file")),
      db,
      2,
      `--out ${path("a-file")}: ${path("a-file")} is a file: give a folder`,
    );
  });

  it("an --out under /proc is refused at once (exit 2), not spun on", async () => {
    const db = warehouse();
    const started = Date.now();
    await expectRefused(
      await issue(db, STATEMENT, "/proc/nope/out"),
      db,
      2,
      "--out /proc/nope/out: /proc/nope cannot be made there",
    );
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it("an --out the system refuses to write (exit 8), before any number", async () => {
    const db = warehouse();
    // root may write any folder but not one of sysfs; another user may not write a folder without write permission
    const locked = path("locked");
    mkdirSync(locked, { mode: 0o555 });
    const refused = process.getuid?.() === 0 ? "/sys/kernel/cloudunits-out" : join(locked, "out");
    await expectRefused(
      await issue(db, STATEMENT, refused),
      db,
      8,
      `cannot use ${refused}: permission denied; nothing committed was lost (nothing was numbered)`,
    );
  });

  it.each([
    ["400 decimals", `0.${"0".repeat(399)}1`],
    ["20,000 decimals", `0.${"0".repeat(19_999)}1`],
    ["5 decimals", "19.00001"],
    ["above 100", "100.5"],
  ])("a rate of %s is refused at once (exit 2) naming the key", async (_what, rate) => {
    const db = warehouse();
    const started = Date.now();
    await expectRefused(
      await issue(db, STATEMENT.replace("ratePercent: 19 }", `ratePercent: "${rate}" }`), path("rate")),
      db,
      2,
      "issuer.tax.ratePercent: a percentage from 0 to 100 with at most 4 decimals",
    );
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it.each([
    ["a named pipe (FIFO)", (file: string) => execFileSync("mkfifo", [file])],
    ["a symbolic link", (file: string) => symlinkSync("/dev/zero", file)],
    ["a folder", (file: string) => mkdirSync(file)],
  ])(
    "%s at the next number's name in --out is refused (exit 2) without waiting on it or reading through it",
    async (what, plant) => {
      const db = warehouse();
      const out = path(`planted-${copies}`);
      mkdirSync(out);
      plant(join(out, "INV-2026-00001.xml"));
      const started = Date.now();
      await expectRefused(await issue(db, STATEMENT, out), db, 2, `${join(out, "INV-2026-00001.xml")} is ${what}`);
      expect(Date.now() - started).toBeLessThan(20_000);
      expect(readdirSync(out)).toEqual(["INV-2026-00001.xml"]);
    },
  );

  it("a lone surrogate in a JSON config's name is issued as U+FFFD, not a crash", async () => {
    const db = warehouse();
    const json = JSON.stringify({
      issuer: {
        legalName: "Nordlicht Cloud Services GmbH",
        address: ["Hafenstraße 12", "20457 Hamburg"],
        country: "DE",
        vatId: "DE123456789",
        peppolId: "9930:DE123456789",
        tax: { category: "S", ratePercent: 19 },
      },
      customers: {
        1: {
          legalName: "Lumière Énergie SARL",
          address: ["12 rue de la Gare", "69001 Lyon"],
          country: "FR",
          vatId: "FR12345678901",
          peppolId: "9957:FR12345678901",
          tax: { category: "AE" },
        },
      },
    }).replace("Lumière", "Lumi\\ud800re");
    const run = await issue(db, json, path("surrogate"), ["--account-id", "1"], "surrogate.json");
    expect(run.code, run.stderr).toBe(0);
    const store = await open({ db });
    try {
      expect((await store.invoiceRegister()).map((e) => e.document.customer.legalName)).toEqual([
        "Lumi\uFFFDre Énergie SARL",
      ]);
    } finally {
      store.close();
    }
  });
});
