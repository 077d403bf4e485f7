import { access, copyFile, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BadFileError,
  BadInputError,
  bill,
  ImpossibleValuesError,
  ingest,
  IssuedInvoiceDiffersError,
  loadBudgets,
  loadNames,
  loadPrices,
  loadStatementConfig,
  loadUnits,
  MissingHoursError,
  monthPeriod,
  open,
  RegisterBrokenError,
  StaleWarehouseError,
  UsageError,
  WarehouseBusyError,
} from "../../src/index.js";
import { webhookAddress } from "../../src/forecast/notify.js";
import { checkAccess } from "../../src/serve/access.js";
import { flagWords, OPTION_FLAGS } from "../../src/cli/flagWords.js";
import { REPO } from "../helpers/shellExamples.js";
import { Exact } from "../../src/billing/exact.js";
import { runCli } from "../helpers/runCli.js";

// Each surface in its own words: the library names its options (`skipBad: true`), the command
// line its flags (`--skip-bad`); a missing file is INPUT_NOT_FOUND whatever its role; a warehouse
// given as input points at --db; a misspelt flag gets the nearest one.

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "cloudunits-words-"));
  expect(
    (
      await runCli([
        "generate",
        "--out",
        join(dir, "data.zip"),
        "--accounts",
        "1",
        "--spaces",
        "1",
        "--machines",
        "2",
        "--hours",
        "3",
      ])
    ).code,
  ).toBe(0);
  expect((await runCli(["ingest", join(dir, "data.zip"), "--db", join(dir, "warehouse.duckdb")])).code).toBe(0);
  await writeFile(join(dir, "bad.zip"), "PK\x03\x04 not really a zip archive");
  await copyFile(join(REPO, "examples", "prices.yaml"), join(dir, "prices.yaml"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const caught = async (work: () => Promise<unknown>): Promise<Error & { code?: string }> => {
  try {
    await work();
  } catch (error) {
    return error as Error & { code?: string };
  }
  throw new Error("expected a refusal");
};

describe("a missing file is INPUT_NOT_FOUND, whatever its role", () => {
  const missing = (name: string) => join(dir, "missing", name);
  it.each([
    { role: "price list", load: () => loadPrices(missing("prices.yaml")), file: "prices.yaml" },
    { role: "units file", load: () => loadUnits(missing("units.yaml")), file: "units.yaml" },
    { role: "names file", load: () => loadNames(missing("names.csv")), file: "names.csv" },
    { role: "statement config", load: () => loadStatementConfig(missing("statement.yaml")), file: "statement.yaml" },
    { role: "budgets file", load: () => loadBudgets(missing("budgets.yaml")), file: "budgets.yaml" },
    { role: "warehouse", load: () => open({ db: missing("warehouse.duckdb") }), file: "warehouse.duckdb" },
  ])("library: the $role", async ({ role, load, file }) => {
    const error = await caught(load);
    expect(error).toBeInstanceOf(UsageError);
    expect([error.code, error.message]).toEqual([
      "INPUT_NOT_FOUND",
      expect.stringMatching(new RegExp(`^${role} not found: \\S*/missing/${file}\\b`)),
    ]);
  });

  it.each([
    { role: "price list", args: ["billing", "data.zip", "--month", "2026-10", "--prices", "nope.yaml"] },
    { role: "units file", args: ["billing", "data.zip", "--month", "2026-10", "--units", "nope.yaml"] },
    { role: "names file", args: ["billing", "data.zip", "--month", "2026-10", "--names", "nope.yaml"] },
    { role: "budgets file", args: ["alerts", "--db", "warehouse.duckdb", "--budgets", "nope.yaml"] },
    {
      role: "statement config",
      args: [
        "billing",
        "data.zip",
        "--month",
        "2026-10",
        "--account-id",
        "1",
        "--prices",
        "prices.yaml",
        "--format",
        "pdf",
        "--statement",
        "nope.yaml",
        "--out",
        "x.pdf",
      ],
    },
    { role: "input", args: ["billing", "nope.yaml", "--month", "2026-10"] },
  ])("cloudunits: the $role, exit 2 and one line saying so", async ({ role, args }) => {
    const run = await runCli(args.map((a) => (/\.(zip|duckdb|yaml|pdf)$/.test(a) ? join(dir, a) : a)));
    expect([run.code, run.stdout]).toEqual([2, ""]);
    expect(run.stderr).toMatch(new RegExp(`^cloudunits: ${role} not found: \\S*/nope\\.yaml( \\(.*\\))?\\n$`));
  });
});

describe("the library names options, the command line flags", () => {
  // every option the CLI translates, in an error the library throws, as the library words it
  const LIBRARY: { option: string; error: () => Error | Promise<Error> }[] = [
    {
      option: "skipBad: true",
      error: () => new BadInputError([new BadFileError("ARCHIVE_CORRUPT", "a.zip", "not a zip archive")]),
    },
    { option: "skipBad: true", error: () => new ImpossibleValuesError([], []) },
    {
      option: "acceptMissing: true",
      error: () =>
        new MissingHoursError([{ accountId: 7, hours: [1790812800] }], "2026-10", ["account 7: 2026-10-01T00:00:00Z"]),
    },
    { option: "replace: true", error: () => caught(() => ingestTwice()) },
    { option: "waitSeconds: ", error: () => new WarehouseBusyError("w.duckdb", undefined, 60) },
    {
      option: "correctInvoice({ number, reason })",
      error: () =>
        new IssuedInvoiceDiffersError(
          [
            {
              number: "INV-2026-00001",
              accountId: 7,
              issued: Exact.amount("1.00"),
              now: Exact.amount("2.00"),
              currency: "EUR",
            },
          ],
          ["INV-2026-00001"],
        ),
    },
    {
      option: "db: ",
      error: () => caught(() => bill({ source: [join(dir, "warehouse.duckdb")], period: monthPeriod("2026-10") })),
    },
    {
      option: "skipBad: true",
      error: () => caught(() => bill({ source: [join(dir, "bad.zip")], period: monthPeriod("2026-10") })),
    },
    { option: "bad webhook address", error: () => caught(async () => webhookAddress("not a url")) },
    { option: "token: SECRET", error: () => caught(async () => checkAccess("0.0.0.0", undefined)) },
    { option: "the token option", error: () => caught(async () => checkAccess("127.0.0.1", "short")) },
    {
      option: "verifyRegister() names every one",
      error: () => new RegisterBrokenError(["INV-2026-00001: its net changed"]),
    },
    {
      option: "since: T",
      error: () => new StaleWarehouseError({ stale: [], maxLagHours: undefined, incomplete: [], empty: true }),
    },
    {
      option: "correctInvoice({ number })",
      error: () =>
        new StaleWarehouseError({
          stale: [],
          maxLagHours: undefined,
          incomplete: [],
          invoicesToCorrect: ["INV-2026-00001"],
        }),
    },
    {
      option: "db: ",
      error: () => caught(() => ingest([join(dir, "warehouse.duckdb")], { db: join(dir, "other.duckdb") })),
    },
  ];

  it.each(LIBRARY)("the library says $option, never a flag; the CLI says the flag", async ({ option, error }) => {
    const { message } = await error();
    const flag = OPTION_FLAGS.find((o) => o.option === option)!.flag;
    expect(message).toContain(option);
    expect(message).not.toMatch(/(^|\s|\()--[a-z]/);
    expect(flagWords(message)).toContain(flag);
    expect(flagWords(message)).not.toContain(option);
  });

  it.each([
    ['bad per: "x" (use hour or month)', 'bad --per "x" (use hour or month)'],
    ['bad by: "x" (use CU, SU, TU, NU, cost)', 'bad --by "x" (use CU, SU, TU, NU, cost)'],
    ["bad limit: 0 (a whole number, 1 or more)", "bad --limit 0 (a whole number, 1 or more)"],
    ['bad month: "2026-13" (use YYYY-MM, e.g. 2026-10)', 'bad --month: "2026-13" (use YYYY-MM, e.g. 2026-10)'],
    ["ranking by cost needs a price list (the prices option)", "ranking by cost needs a price list (--prices FILE)"],
    [
      "a.zip: timed out: no data for 60 s; try again later or raise timeoutMs",
      "a.zip: timed out: no data for 60 s; try again later or raise --timeout",
    ],
    // the CLI's words as they were before the library named options
    [
      "2026-12 has not ended (…): only an ended month is issued; a draft meanwhile: writeStatements() of the bill of month 2026-12",
      "2026-12 has not ended (…): only an ended month is issued; a draft meanwhile: cloudunits billing --db FILE --format pdf --prices FILE --statement FILE --out DIR --month 2026-12",
    ],
    [
      "no document INV-1 in the register (invoiceRegister() lists them)",
      "no document INV-1 in the register (cloudunits invoices list --db FILE lists them)",
    ],
    [
      "no document INV-9 in the register (the last issued: INV-1; all: invoiceRegister())",
      "no document INV-9 in the register (the last issued: INV-1; all: cloudunits invoices list)",
    ],
    [
      "the out folder /srv/a: /srv/a is a file: give a folder (made when missing)",
      "--out /srv/a: /srv/a is a file: give a folder (made when missing)",
    ],
    [
      "/srv/a/INV-1.pdf is not a file the register wrote: move it away or write to another folder (the out option)",
      "/srv/a/INV-1.pdf is not a file the register wrote: move it away or write to another folder (--out)",
    ],
    [
      "cannot write /srv/d: read-only (choose a writable out option)",
      "cannot write /srv/d: read-only (choose a writable --out)",
    ],
    [
      "cannot write b/: it names a folder, and a workbook is one file: give a file name (e.g. b/billing.xlsx), or writeInvoicePack() to write the pack into the folder",
      "cannot write b/: it names a folder, and a workbook is one file: give a file name (e.g. b/billing.xlsx), or --per-account to write the pack into the folder",
    ],
    [
      "cannot listen on 127.0.0.1:80: the port is in use (pick another with the port option)",
      "cannot listen on 127.0.0.1:80: the port is in use (pick another with --port)",
    ],
    [
      "w.duckdb holds no hours yet: give since: T (the first hour to download) for the first sync",
      "w.duckdb holds no hours yet: give --since T (the first hour to download) for the first sync",
    ],
    [
      "no inputs: name zip files or directories, or pass db: FILE",
      "no inputs: name zip files or directories, or pass --db FILE",
    ],
    [
      "w.duckdb is not a cloudunits database (no manifest): make it with ingest()",
      "w.duckdb is not a cloudunits database (no manifest): make it with `cloudunits ingest`",
    ],
    [
      "the database is damaged (x): restore it from a backup, or build it again with ingest() or sync()",
      "the database is damaged (x): restore it from a backup, or build it again with `cloudunits ingest` or `sync`",
    ],
    [
      "a budget of an amount needs a price list (the prices option)",
      "a budget of an amount needs a price list (--prices FILE)",
    ],
    [
      "a units file (the units option) with these keys makes NU agree:",
      "a units file (--units) with these keys makes NU agree:",
    ],
    [
      "pays INV-1 in USD (1.00): the invoice is in EUR; record it with recordPayment()",
      "pays INV-1 in USD (1.00): the invoice is in EUR; record it with invoices pay",
    ],
    // a word more than before: `bad`, as for --per, --by, --limit (an option alone, `date: `, is in too many sentences: `month to date: `)
    ['bad amount: "x": give the amount paid in EUR', 'bad --amount "x": give the amount paid in EUR'],
    ['bad date: "x": give the day it was paid as YYYY-MM-DD', 'bad --date "x": give the day it was paid as YYYY-MM-DD'],
    [
      'bad to: "x": give the access point\'s endpoint as an http or https URL',
      'bad --to "x": give the access point\'s endpoint as an http or https URL',
    ],
  ])("the CLI says %s as %s", (library, cli) => {
    expect(flagWords(library)).toBe(cli);
  });

  it.each([
    "cannot write /srv/warehouse.db: permission denied",
    "my-db: locked",
    "/srv/db: read-only",
    "the account's accountIds: 7, 8",
    "skipBad: truer",
  ])("a file name or a longer word is left as it is: %s", (message) => {
    expect(flagWords(message)).toBe(message);
  });

  it("every option the CLI translates is said by the library (src/ outside src/cli/), so no entry is dead", async () => {
    const { readdir, readFile } = await import("node:fs/promises");
    const files = (await readdir(join(REPO, "src"), { recursive: true })).filter(
      (f) => f.endsWith(".ts") && !f.startsWith("cli/"),
    );
    const library = (await Promise.all(files.map((f) => readFile(join(REPO, "src", f), "utf8")))).join("\n");
    // `bad url`, `bad month: `: or the name a checker is given, said as `bad ${what}`
    for (const { option } of OPTION_FLAGS) {
      const named = /^bad (\w+)/.exec(option)?.[1];
      expect(
        library.includes(option.trimEnd()) || (named !== undefined && library.includes(`"${named}"`)),
        option,
      ).toBe(true);
    }
  });

  it("cloudunits billing of a bad file says --skip-bad, not skipBad (exit 3)", async () => {
    const run = await runCli(["billing", join(dir, "bad.zip"), "--month", "2026-10"]);
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/^cloudunits: 1 bad input file \(use --skip-bad to go on without them\):\n/);
    expect(run.stderr).not.toContain("skipBad");
  });

  /** Two different files of one account-hour ingested one after the other: a conflict. */
  async function ingestTwice(): Promise<void> {
    const db = join(dir, "twice.duckdb");
    for (const seed of ["1", "2"]) {
      expect(
        (
          await runCli([
            "generate",
            "--out",
            join(dir, `seed${seed}`),
            "--accounts",
            "1",
            "--hours",
            "1",
            "--seed",
            seed,
          ])
        ).code,
      ).toBe(0);
    }
    await ingest([join(dir, "seed1")], { db });
    await ingest([join(dir, "seed2")], { db });
  }
});

describe("a warehouse given where inputs are read", () => {
  it("library: INPUT_IS_WAREHOUSE, naming the file and the db option", async () => {
    const error = await caught(() => bill({ source: [join(dir, "warehouse.duckdb")], period: monthPeriod("2026-10") }));
    expect([error.code, error.message]).toEqual([
      "INPUT_IS_WAREHOUSE",
      expect.stringMatching(
        /warehouse\.duckdb is a DuckDB warehouse, not consumption files: read it as a warehouse, db: \S*warehouse\.duckdb$/,
      ),
    ]);
  });

  // before: exit 3, "not an archive of a kind read (zip): not a zip archive", no word of --db
  it("cloudunits billing X.duckdb: exit 2, suggesting --db X.duckdb", async () => {
    const db = join(dir, "warehouse.duckdb");
    const run = await runCli(["billing", db, "--month", "2026-10"]);
    expect([run.code, run.stdout]).toEqual([2, ""]);
    expect(run.stderr).toBe(
      `cloudunits: ${db} is a DuckDB warehouse, not consumption files: read it as a warehouse, --db ${db}\n`,
    );
  });
});

describe("a warehouse given to ingest as an input", () => {
  // before: "read it as a warehouse, --db X.duckdb": advice for billing, wrong for ingest, which writes --db
  it("library: INPUT_IS_WAREHOUSE, saying ingest reads zips and folders into the db it writes; that db is not made", async () => {
    const other = join(dir, "other.duckdb");
    const error = await caught(() => ingest([join(dir, "warehouse.duckdb")], { db: other }));
    expect([error.code, error.message]).toEqual([
      "INPUT_IS_WAREHOUSE",
      `${join(dir, "warehouse.duckdb")} is a DuckDB warehouse, not an input: ingest reads consumption zips and folders, into the warehouse it writes (db: ${other})`,
    ]);
    expect(error.message).not.toContain("read it as a warehouse");
    await expect(access(other)).rejects.toThrow();
  });

  it("cloudunits ingest X.duckdb --db Y: exit 2, saying X.duckdb is a warehouse, not an input", async () => {
    const [db, other] = [join(dir, "warehouse.duckdb"), join(dir, "other2.duckdb")];
    const run = await runCli(["ingest", join(dir, "data.zip"), db, "--db", other]);
    expect([run.code, run.stdout]).toEqual([2, ""]);
    expect(run.stderr).toBe(
      `cloudunits: ${db} is a DuckDB warehouse, not an input: ingest reads consumption zips and folders, into the warehouse it writes (--db ${other})\n`,
    );
  });
});

describe("a misspelt flag", () => {
  it.each([
    { args: ["billing", "data.zip", "--mnth", "2026-10"], said: "Unknown argument: mnth; did you mean --month?" },
    {
      args: ["billing", "data.zip", "--month", "2026-10", "--prise", "p.yaml", "--acount-id", "1"],
      said: "Unknown arguments: prise, acount-id; did you mean --prices (for --prise), --account-id (for --acount-id)?",
    },
    // a required flag misspelt: yargs says it is missing; the one given is named with the nearest
    {
      args: ["forecast", "--db", "warehouse.duckdb", "--mnth", "2026-10"],
      said: "Missing required argument: month; --mnth is not a flag of this command: did you mean --month?",
    },
    {
      args: [
        "stats",
        "machine",
        "data.zip",
        "--id",
        "1",
        "--from",
        "2026-10-01",
        "--till",
        "2026-10-02",
        "--inclde",
        "cpu",
      ],
      said: "Missing required argument: include; --inclde is not a flag of this command: did you mean --include?",
    },
    // nothing near: yargs' words alone
    { args: ["billing", "data.zip", "--month", "2026-10", "--zzzzzz"], said: "Unknown argument: zzzzzz" },
  ])("$said", async ({ args, said }) => {
    const run = await runCli(args.map((a) => (/\.(zip|duckdb)$/.test(a) ? join(dir, a) : a)));
    expect([run.code, run.stdout, run.stderr]).toEqual([2, "", `cloudunits: ${said}\n`]);
  });
});
