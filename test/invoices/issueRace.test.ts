import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerListItem, type RegisterListItem } from "../../src/invoices/render/registerReport.js";
import { jsonOf, type JsonOf } from "../helpers/jsonOf.js";
import { ingest, open } from "../../src/index.js";
import type { IssueStep } from "../../src/invoices/recordDocuments.js";
import { LIBRARY, runCli } from "../helpers/runCli.js";
import { writeOctober } from "../helpers/octoberWarehouse.js";

// Numbers stay gapless and records whole when two `issue` runs race, and when a run is killed
// (SIGKILL) at any step: before numbering, with numbers taken, documents rendered, rows written,
// after the commit, and after its first file. A run again then leaves the register a clean run leaves.

const NOW = "2026-11-02T08:00:00Z";
let dir: string;
let base: string;
const path = (...parts: string[]) => join(dir, ...parts);
const sha256 = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex");
const folder = (out: string) =>
  Object.fromEntries(
    readdirSync(out)
      .sort()
      .map((name) => [name, sha256(join(out, name))]),
  );

/** The register of a warehouse, as `invoices list --format json` gives it. */
async function register(db: string): Promise<JsonOf<RegisterListItem>[]> {
  const store = await open({ db });
  try {
    return jsonOf((await store.invoiceRegister()).map(registerListItem));
  } finally {
    store.close();
  }
}

/** A copy of the month's warehouse, nothing issued yet. */
function warehouse(name: string): string {
  copyFileSync(base, path(name));
  return path(name);
}

const issue = (db: string, out: string, extra: string[] = []) =>
  runCli(
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
      out,
      ...extra,
    ],
    { CLOUDUNITS_TEST_NOW: NOW },
  );

/** Issues October through the library in a child process that SIGKILLs itself when `onStep` reports `step` (its `nth` report of it). */
function killedAt(db: string, out: string, step: IssueStep, nth = 1): Promise<NodeJS.Signals | null> {
  const script = path(`kill-${step}.mjs`);
  writeFileSync(
    script,
    `
    const { open } = await import(${JSON.stringify(LIBRARY)});
    const store = await open({ db: ${JSON.stringify(db)} }, { write: true });
    let seen = 0;
    await store.issueInvoices({
      month: "2026-10", statement: ${JSON.stringify(path("statement.yaml"))}, prices: ${JSON.stringify(path("prices.yaml"))},
      out: ${JSON.stringify(out)}, nowEpoch: Date.parse(${JSON.stringify(NOW)}) / 1000,
      onStep: (step) => { if (step === ${JSON.stringify(step)} && ++seen === ${nth}) process.kill(process.pid, "SIGKILL"); },
    });
    process.exit(3); // not killed: the step never came
  `,
  );
  const child = spawn(process.execPath, [script], { stdio: "ignore" });
  return new Promise((resolve) => child.on("exit", (_code, signal) => resolve(signal)));
}

let clean: { register: JsonOf<RegisterListItem>[]; files: Record<string, string> };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cloudunits-issue-race-"));
  await writeOctober(path("october"), 3);
  base = path("base.duckdb");
  await ingest([path("october")], { db: base });
  copyFileSync(join(import.meta.dirname, "../../examples/statement.yaml"), path("statement.yaml"));
  writeFileSync(path("prices.yaml"), "currency: EUR\nprices: { CU: 0.05, SU: { perMonth: 40 }, TU: 0.002, NU: 20 }\n");
  const db = warehouse("clean.duckdb");
  const run = await issue(db, path("clean-out"));
  expect(run.code, run.stderr).toBe(0);
  clean = { register: await register(db), files: folder(path("clean-out")) };
  expect(clean.register.map((d) => [d.number, d.accountId])).toEqual([
    ["INV-2026-00001", 7101],
    ["INV-2026-00002", 7102],
    ["INV-2026-00003", 7103],
  ]);
}, 180_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("two issue runs at once", { timeout: 120_000 }, () => {
  it("the month: one numbers every account, the other waits its turn and writes the same files; no number twice, none skipped", async () => {
    const db = warehouse("race.duckdb");
    const [a, b] = await Promise.all([issue(db, path("race-a")), issue(db, path("race-b"))]);
    expect([a.code, b.code], a.stderr + b.stderr).toEqual([0, 0]);
    const issued = [a, b].map((r) => (r.stdout.match(/^issued /gm) ?? []).length).sort();
    expect(issued).toEqual([0, 3]);
    expect(await register(db)).toEqual(clean.register);
    expect(folder(path("race-a"))).toEqual(clean.files);
    expect(folder(path("race-b"))).toEqual(clean.files);
  });

  it("two accounts apart: each gets its own number, together 1 and 2", async () => {
    const db = warehouse("race-accounts.duckdb");
    const [a, b] = await Promise.all([
      issue(db, path("race-7101"), ["--account-id", "7101"]),
      issue(db, path("race-7102"), ["--account-id", "7102"]),
    ]);
    expect([a.code, b.code], a.stderr + b.stderr).toEqual([0, 0]);
    const numbers = (await register(db)).map((d) => [d.accountId, d.number]).sort();
    expect(numbers.map(([, n]) => n).sort()).toEqual(["INV-2026-00001", "INV-2026-00002"]);
    expect(numbers.map(([id]) => id)).toEqual([7101, 7102]);
  });
});

describe("a run killed at any step, then run again", { timeout: 120_000 }, () => {
  const steps: { step: IssueStep; recorded: boolean }[] = [
    { step: "computed", recorded: false },
    { step: "numbered", recorded: false },
    { step: "rendered", recorded: false },
    { step: "recorded", recorded: false },
    { step: "committed", recorded: true },
    { step: "file", recorded: true },
  ];
  for (const { step, recorded } of steps) {
    it(`killed when ${step}: ${recorded ? "all three invoices recorded" : "nothing recorded"}; run again, the register and the files are a clean run's`, async () => {
      const db = warehouse(`killed-${step}.duckdb`);
      const out = path(`killed-${step}`);
      expect(await killedAt(db, out, step, step === "file" ? 2 : 1)).toBe("SIGKILL");
      const after = await register(db);
      expect(after, "all or nothing").toEqual(recorded ? clean.register : []);
      if (step === "file")
        expect(Object.keys(folder(out))).toHaveLength(2); // two files in place, the rest not yet
      else if (!recorded)
        expect(
          existsSync(out) ? readdirSync(out) : [],
          "no file: the folder is made and tried before numbering",
        ).toEqual([]);
      const again = await issue(db, out);
      expect(again.code, again.stderr).toBe(0);
      expect(await register(db)).toEqual(clean.register);
      expect(folder(out)).toEqual(clean.files);
    });
  }
});

describe("the library: store.issueInvoices, store.correctInvoice, store.invoiceRegister", { timeout: 120_000 }, () => {
  const request = (out: string) => ({
    month: "2026-10",
    statement: path("statement.yaml"),
    prices: path("prices.yaml"),
    out: path(out),
    nowEpoch: Date.parse(NOW) / 1000,
  });
  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: unknown) => error as Error & { code?: string },
    );

  it("issues into a warehouse file opened to write, and refuses a store that is read-only or of inputs", async () => {
    const db = warehouse("library.duckdb");
    const reader = await open({ db });
    try {
      expect((await failure(reader.issueInvoices(request("lib-refused"))))?.code).toBe("STORE_READ_ONLY");
    } finally {
      reader.close();
    }
    const inputs = await open([path("october")]);
    try {
      expect((await failure(inputs.issueInvoices(request("lib-refused"))))?.code).toBe("STORE_READ_ONLY");
    } finally {
      inputs.close();
    }
    expect(existsSync(path("lib-refused"))).toBe(false);
    const missing = await failure(open({ db: path("no-such.duckdb") }, { write: true }));
    expect(missing?.code).toBe("INPUT_NOT_FOUND");
    expect(existsSync(path("no-such.duckdb"))).toBe(false);

    const store = await open({ db }, { write: true });
    try {
      const result = await store.issueInvoices(request("lib-out"));
      expect(result.issued.map((d) => d.entry.document.number)).toEqual([
        "INV-2026-00001",
        "INV-2026-00002",
        "INV-2026-00003",
      ]);
      expect(result.issued.flatMap((d) => d.files.map((f) => f.written))).toEqual([true, true, true, true, true, true]);
      expect(jsonOf((await store.invoiceRegister({ month: "2026-10" })).map(registerListItem))).toEqual(clean.register);
      expect((await store.invoiceRegister({ accountId: 7102 })).map((e) => e.document.number)).toEqual([
        "INV-2026-00002",
      ]);
      expect(await store.invoiceRegister({ month: "2026-09" })).toEqual([]);
      const corrected = await store.correctInvoice({
        number: "INV-2026-00002",
        reason: "test",
        statement: path("statement.yaml"),
        prices: path("prices.yaml"),
        out: path("lib-out"),
        nowEpoch: Date.parse("2026-11-03T00:00:00Z") / 1000,
      });
      expect([corrected.creditNote.entry.document.number, corrected.replacement.entry.document.number]).toEqual([
        "CN-2026-00001",
        "INV-2026-00004",
      ]);
      expect(corrected.corrected.correctedBy).toBe("CN-2026-00001");
    } finally {
      store.close();
    }
  });

  it.each([
    {
      what: "an issue date before the month's last day",
      extra: { issueDate: "2026-10-30" },
      code: "BAD_TIME",
      message: "issueDate: 2026-10-30 is before 2026-10-31, the last day billed",
    },
    {
      what: "an issue date that is not a date",
      extra: { issueDate: "2026-11-31" },
      code: "BAD_TIME",
      message: 'bad issueDate: "2026-11-31"',
    },
    {
      what: "a month not ended",
      extra: { nowEpoch: Date.parse("2026-10-31T23:59:59Z") / 1000 },
      code: "MONTH_RUNNING",
      message: "2026-10 has not ended",
    },
    {
      what: "an account never seen",
      extra: { accountIds: [9999] },
      code: "UNKNOWN_ID",
      message: "unknown account 9999",
    },
    {
      what: "a month the warehouse holds no hour of",
      extra: { month: "2026-09" },
      code: "EMPTY_PERIOD",
      message: "no hours held in 2026-09: the inputs hold none of it",
    },
  ])("refuses $what, numbering nothing", async ({ extra, code, message }) => {
    const db = warehouse("library-refused.duckdb");
    const store = await open({ db }, { write: true });
    try {
      const error = await failure(store.issueInvoices({ ...request("lib-refused"), ...extra }));
      expect(error?.code).toBe(code);
      expect(error?.message).toContain(message);
      expect(await store.invoiceRegister()).toEqual([]);
    } finally {
      store.close();
    }
  });

  it("keeps numbers in the order of their dates: an issue date before the sequence's last is refused", async () => {
    const db = warehouse("library-dates.duckdb");
    const store = await open({ db }, { write: true });
    try {
      const later = { ...request("lib-dates"), nowEpoch: Date.parse("2026-11-06T09:00:00Z") / 1000 };
      await store.issueInvoices({ ...later, accountIds: [7101], issueDate: "2026-11-05" });
      const error = await failure(store.issueInvoices({ ...later, accountIds: [7102], issueDate: "2026-11-04" }));
      expect(error?.code).toBe("ISSUE_DATE_ORDER");
      expect(error?.message).toContain(
        "issue date 2026-11-04 is before 2026-11-05, the date of the last invoice numbered in 2026",
      );
      await store.issueInvoices({ ...later, accountIds: [7102], issueDate: "2026-11-05" });
      expect((await store.invoiceRegister()).map((e) => e.document.number)).toEqual([
        "INV-2026-00001",
        "INV-2026-00002",
      ]);
    } finally {
      store.close();
    }
  });

  it("refuses a numbering pattern without {yyyy}: each year's sequence starts at 1 again", async () => {
    const db = warehouse("library-pattern.duckdb");
    writeFileSync(
      path("no-year.yaml"),
      readFileSync(path("statement.yaml"), "utf8").replace("pattern: INV-{yyyy}-{seq:05}", "pattern: INV-{seq:05}"),
    );
    const store = await open({ db }, { write: true });
    try {
      const error = await failure(store.issueInvoices({ ...request("lib-pattern"), statement: path("no-year.yaml") }));
      expect(error?.message).toContain(
        'numbering.pattern "INV-{seq:05}" has no {yyyy}: a sequence starts again at 1 each year',
      );
      expect(await store.invoiceRegister()).toEqual([]);
    } finally {
      store.close();
    }
  });
});
