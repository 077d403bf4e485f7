import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { Exact, generateHours, loadBudgets, loadPrices } from "../src/index.js";
import { fakePlatform } from "./fetch/fakePlatform.js";
import { SECRETS, startServer, type FakeServer } from "./fetch/fakeService.js";
import { CLI, type CliRun } from "./helpers/runCli.js";
import { codeBlocks, crontabOf, readDoc, REPO, runAsCron, runShell, section } from "./helpers/shellExamples.js";

// Every command example of README.md runs here as written, in the order written, against the
// data its own `generate` line makes: the README cannot drift from the code. Read when the
// tests run; an example this table does not know fails the test.

const README = readDoc("README.md");

/** The commands of the ```sh blocks, `\` continuations joined, in order. */
const EXAMPLES = codeBlocks(README, "sh")
  .flatMap((block) => block.replace(/\\\n/g, " ").split("\n"))
  .map((line) => line.trim())
  .filter((line) => line !== "" && !line.startsWith("#"));

/** What cannot run offline, replaced (and nothing else): the service's addresses go to the loopback fake service. */
const substitute = (line: string, server: FakeServer): string =>
  line.replaceAll("https://cloud.example", server.url).replaceAll("https://iam.example", `${server.url}/idp`);

/** Secrets through the variables the README names (`$ID` is the shell variable of its fetch line, `$LOGIN` of its session-key crontab line). */
const ENV = {
  ID: SECRETS.clientId,
  CLOUDUNITS_CLIENT_SECRET: SECRETS.clientSecret,
  LOGIN: SECRETS.username,
  CLOUDUNITS_PASSWORD: SECRETS.password,
};

const isZip = (file: string): boolean => readFileSync(file).subarray(0, 4).equals(Buffer.from("PK\x03\x04", "latin1"));
const filesUnder = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) => statSync(join(dir, f)).isFile());

interface Known {
  /** Matches the example's line as the README writes it. */
  line: RegExp;
  /** Instead of running it, why not (asserted to be true where it can be). */
  notRun?: string;
  /** The line to run instead, when the README's cannot run in a test (and why). */
  instead?: string;
  /** What the README says it produces. */
  check?: (run: CliRun, cwd: string) => void;
}

const KNOWN: Known[] = [
  {
    // `npm ci` would reinstall this checkout's node_modules; `npm start` is `demo` (asserted below)
    line: /^npm ci && npm start\b/,
    instead: "npx cloudunits demo",
    check: (run) => {
      expect(
        (JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { scripts: { start: string } }).scripts.start,
      ).toBe("node dist/cli/main.js demo");
      expect(run.stdout).toMatch(/CU/);
    },
  },
  // setup, then the suite this test is part of (test/prerequisites.test.ts holds what the script runs)
  { line: /^npm run test:all\b/, notRun: "the test suite this test is part of" },
  {
    // the finance examples' files, copied from the checkout's examples/ as a reader does
    line: /^cp examples\/prices\.yaml examples\/statement\.yaml examples\/budgets\.yaml \.\s/,
    check: (_, cwd) => {
      for (const file of ["prices.yaml", "statement.yaml", "budgets.yaml"])
        expect(readFileSync(join(cwd, file), "utf8")).toBe(readFileSync(join(REPO, "examples", file), "utf8"));
    },
  },
  {
    line: /^npx cloudunits generate --out data\.zip /,
    check: (_, cwd) => expect(isZip(join(cwd, "data.zip"))).toBe(true),
  },
  {
    line: /^npx cloudunits billing data\.zip .*--account-id 1 --format json$/,
    check: (run) => {
      const bill = JSON.parse(run.stdout) as {
        account: { id: number; consumption: Record<string, number>; cloudspaces: Record<string, unknown> };
      };
      expect(bill.account.id).toBe(1);
      expect(Object.keys(bill.account.consumption)).toEqual(["CU", "SU", "TU", "NU"]);
      expect(bill.account.consumption.CU).toBeGreaterThan(0);
      expect(Object.keys(bill.account.cloudspaces).length).toBeGreaterThan(0);
    },
  },
  {
    line: /^npx cloudunits billing data\.zip .*--prices prices\.yaml --format xlsx --out october\.xlsx$/,
    check: (_, cwd) => expect(isZip(join(cwd, "october.xlsx"))).toBe(true),
  },
  {
    line: /^npx cloudunits billing data\.zip --month 2026-10 --format text\b/,
    check: (run) => {
      expect(run.stdout).toMatch(/2026-10-01.*2026-11-01/);
      expect(run.stdout).toMatch(/\bCU\b/);
    },
  },
  {
    // one workbook per account (the data has 3) plus the summary workbook
    line: /^npx cloudunits billing data\.zip --month 2026-10 --prices prices\.yaml --format xlsx --per-account --out invoices\/$/,
    check: (_, cwd) => {
      const books = filesUnder(join(cwd, "invoices")).filter((f) => f.endsWith(".xlsx"));
      expect(books.length).toBe(4);
      for (const book of books) expect(isZip(join(cwd, "invoices", book))).toBe(true);
    },
  },
  // the month end, on a whole October of examples/statement.yaml's customers
  {
    line: /^npx cloudunits generate --out october\/ --accounts 4 --first-account-id 7101 /,
    check: (_, cwd) => expect(readdirSync(join(cwd, "october")).sort()).toEqual(["7101", "7102", "7103", "7104"]),
  },
  { line: /^npx cloudunits ingest october\/ --db october\.duckdb$/ },
  {
    line: /^npx cloudunits billing --db october\.duckdb --month 2026-10 --prices prices\.yaml --format pdf --statement statement\.yaml --out drafts\/$/,
    check: (_, cwd) =>
      expect(readdirSync(join(cwd, "drafts")).sort()).toEqual([
        "draft-7101-2026-10.pdf",
        "draft-7102-2026-10.pdf",
        "draft-7103-2026-10.pdf",
        "draft-7104-2026-10.pdf",
      ]),
  },
  {
    line: /^npx cloudunits invoices issue --db october\.duckdb --month 2026-10 .*--out invoices-2026-10\/ --issue-date 2026-11-02$/,
    check: (run, cwd) => {
      expect(run.stdout).toMatch(/^issued INV-2026-00001 \(account 7101, 2026-11-02\): amount due \d+\.\d\d EUR/m);
      expect(run.stdout).toMatch(/^issued INV-2026-00003 \(account 7103, 2026-11-02\)/m);
      // the customer paying in yen, from the same price list: whole yen, taxed at 19%
      expect(run.stdout).toMatch(
        /^issued INV-2026-00004 \(account 7104, 2026-11-02\): amount due \d+ JPY \(net \d+, tax \d+\)/m,
      );
      const [, net, tax] = /account 7104, 2026-11-02\): amount due \d+ JPY \(net (\d+), tax (\d+)\)/.exec(run.stdout)!;
      // VAT 19% of the net, rounded half-even to the yen
      expect(tax).toBe(Exact.parse(net!)!.mul(Exact.parse("0.19")!).toFixed(0));
      // its VAT also in EUR (BT-6, BT-111): the yen VAT × 0.0061 (statement.yaml's rate of 2026-11-02), rounded to the cent
      const xml = readFileSync(join(cwd, "invoices-2026-10", "INV-2026-00004.xml"), "utf8");
      expect(xml).toContain("<cbc:TaxCurrencyCode>EUR</cbc:TaxCurrencyCode>");
      expect(xml).toContain(
        `<cbc:TaxAmount currencyID="EUR">${Exact.parse(tax!)!.mul(Exact.parse("0.0061")!).toFixed(2)}</cbc:TaxAmount>`,
      );
      expect(
        readdirSync(join(cwd, "invoices-2026-10"))
          .filter((f) => f.endsWith(".xml"))
          .sort(),
      ).toEqual(["INV-2026-00001.xml", "INV-2026-00002.xml", "INV-2026-00003.xml", "INV-2026-00004.xml"]);
    },
  },
  {
    line: /^npx cloudunits invoices list --db october\.duckdb --month 2026-10\b/,
    check: (run) => {
      expect(run.stdout).toMatch(
        /^INV-2026-00002 +invoice +account 7102 +2026-10-01\.\.2026-10-31 +2026-11-02 +due 2026-12-02 +net [\d.]+ +tax [\d.]+ +amount due [\d.]+ EUR +(open, [\d.]+ outstanding|overdue \d+ d, [\d.]+ outstanding) +not delivered$/m,
      );
      // each currency's total apart: EUR and JPY are never added
      expect(run.stdout).toMatch(/^4 documents; amount due, credit notes deducted: [\d.]+ EUR, \d+ JPY$/m);
    },
  },
  {
    line: /^npx cloudunits invoices verify --db october\.duckdb \| tail -n 1 > head-2026-10\.txt /,
    check: (_, cwd) =>
      expect(readFileSync(join(cwd, "head-2026-10.txt"), "utf8")).toMatch(/^register head 4:[0-9a-f]{64}\n$/),
  },
  {
    line: /^npx cloudunits invoices verify --db october\.duckdb --head "\$\(cat head-2026-10\.txt\)" /,
    check: (run) => {
      // the correction is dated today: its credit note and new invoice in this year's sequences (2026's invoices, or new ones)
      expect(run.stdout).toMatch(
        /^6 documents in [23] sequences verified: every one as issued, its files byte for byte, no number missing; its first 4 links are those of the head kept$/m,
      );
      expect(run.stdout).toMatch(/^register head 6:[0-9a-f]{64}$/m);
    },
  },
  {
    line: /^npx cloudunits invoices correct --db october\.duckdb --number INV-2026-00002 --reason "corrected on the customer's request" /,
    check: (run, cwd) => {
      expect(run.stdout).toMatch(
        /^INV-2026-00002 \(amount due ([\d.]+) EUR\) corrected: credit note CN-\d{4}-00001 \(-\1\), new invoice INV-\d{4}-0000[15] \(\1\)$/m,
      );
      expect(readdirSync(join(cwd, "invoices-2026-10")).some((f) => /^CN-\d{4}-00001\.xml$/.test(f))).toBe(true);
    },
  },
  {
    line: /^npx cloudunits stats machine data\.zip --id 4392 .*--include cpu --include network$/,
    check: (run) => {
      const stats = JSON.parse(run.stdout) as { time: number[]; series: Record<string, unknown> };
      expect(stats.time.length).toBe(24);
      expect(Object.keys(stats.series)).toEqual(["cpu", "network"]);
    },
  },
  {
    line: /^npx cloudunits ingest data\.zip --db warehouse\.duckdb\b/,
    check: (_, cwd) => expect(statSync(join(cwd, "warehouse.duckdb")).size).toBeGreaterThan(0),
  },
  {
    line: /^npx cloudunits check --db warehouse\.duckdb\b/,
    check: (run) => expect(run.stdout).toMatch(/^accounts: 3\n/),
  },
  {
    line: /^npx cloudunits export --db warehouse\.duckdb --format parquet --out parquet\/$/,
    check: (_, cwd) => {
      const files = filesUnder(join(cwd, "parquet"));
      expect(files).toEqual(
        expect.arrayContaining(["files.parquet", "manifest.json", "machines/year=2026/month=10/part-0.parquet"]),
      );
    },
  },
  {
    line: /^npx cloudunits report top-consumers --db warehouse\.duckdb --format csv$/,
    check: (run) => expect(run.stdout.split(/\r?\n/).filter((l) => l !== "").length).toBeGreaterThan(1),
  },
  {
    line: /^npx cloudunits fetch --url https:\/\/cloud\.example --account-id 7 --start 2026-10-01 --end 2026-11-01 --out dl\/ .*--auth-url https:\/\/iam\.example --client-id "\$ID"/,
    check: (run, cwd) => {
      expect(isZip(join(cwd, "dl", "consumption-7-20261001T000000Z-20261101T000000Z.zip"))).toBe(true);
      for (const secret of [SECRETS.clientSecret, SECRETS.token]) expect(run.stdout + run.stderr).not.toContain(secret);
    },
  },
  {
    line: /^npx cloudunits sync --url https:\/\/cloud\.example --db warehouse\.duckdb --since 2026-10-01 --until 2026-11-01 .*--auth-url https:\/\/iam\.example --client-id "\$ID"/,
    check: (run) => {
      // the README's own data is already in (ingest above): only account 7 is new
      // nothing new for account 1, whose platform wrote nothing after 2026-10-02: never "up to date" then
      expect(run.stderr).toMatch(/account 1: nothing new, hours not written yet \(744 hours asked again\)/);
      expect(run.stderr).toMatch(/account 7: synced .*: 3 new account-hours/);
      expect(run.stderr).toMatch(/now holds 147 account-hours; names stored: 4 accounts, \d+ cloud spaces/);
      for (const secret of [SECRETS.clientSecret, SECRETS.token]) expect(run.stdout + run.stderr).not.toContain(secret);
    },
  },
  {
    line: /^npx cloudunits forecast --db warehouse\.duckdb --month 2026-10 --prices prices\.yaml$/,
    check: (run) => {
      expect(run.stdout).toContain("Method: The rest of the month repeats the last 7 days held hour by hour");
      expect(run.stdout).toMatch(
        /^account 1 \(Account 1\): as of 2026-10-03T00:00:00Z, 48 h of the month held, 696 h to go/m,
      );
      expect(run.stdout).toMatch(
        /^ {2}amount due so far {2}\d+\.\d\d EUR; forecast for the month end \d+\.\d\d \(\d+\.\d\d to \d+\.\d\d\)$/m,
      );
    },
  },
  {
    line: /^npx cloudunits alerts --db warehouse\.duckdb --budgets budgets\.yaml --prices prices\.yaml \|\| echo "alerts \(exit \$\?\)" >&2/,
    check: (run) => {
      // the README's data has machines created late: new in the last 24 h, so alerts are active and the exit is 7
      const active = Number(/: (\d+) active\n/.exec(run.stdout)?.[1]);
      expect(active).toBeGreaterThan(0);
      expect(run.stdout).toMatch(/^machine-new: machine \d+ .*new since 2026-10-0/m);
      expect(run.stderr).toContain("alerts (exit 7)");
    },
  },
  {
    line: /^npx cloudunits top --db warehouse\.duckdb --month 2026-10 --prices prices\.yaml --limit 5$/,
    check: (run) => {
      expect(run.stdout).toMatch(
        /^top 5 of \d+ machines by cost \(EUR\), 2026-10-01T00:00:00Z to 2026-11-01T00:00:00Z/,
      );
      // the README's warehouse holds October 2026: behind the clock once it has passed, and said so on a line of its own
      const lines = run.stdout.trim().split("\n");
      for (const warning of lines.filter((l) => l.startsWith("warning: ")))
        expect(warning).toMatch(
          /^warning: the warehouse holds hours up to 2026-10-\d\dT\d\d:00:00Z, \d+ (h|days) behind: the figures end there$/,
        );
      expect(lines.filter((l) => !l.startsWith("warning: "))).toHaveLength(6);
    },
  },
  {
    line: /^npx cloudunits reconcile --db warehouse\.duckdb --url https:\/\/cloud\.example --start 2026-10-01 --end 2026-11-01 .*--auth-url https:\/\/iam\.example --client-id "\$ID"/,
    check: (run) => {
      expect(run.stdout).toContain("platform period rule: half-open [start, end), like ours");
      expect(run.stdout).toMatch(/compared: \d+ entities \(the environment and 4 accounts: 1, 2, 3, 7\)/);
      expect(run.stdout).toMatch(/our bill and the platform's agree/);
    },
  },
];

let cwd: string;
let server: FakeServer;
beforeAll(async () => {
  cwd = mkdtempSync(join(tmpdir(), "cloudunits-readme-"));
  // the examples run in a checkout: its examples/ folder, which the README's finance examples copy from
  symlinkSync(join(REPO, "examples"), join(cwd, "examples"));
  // the platform holds the README's own data (its generate line) and an account 7 for its fetch line
  const hours = [
    ...generateHours({ accounts: 3, hours: 48 }),
    ...generateHours({ accounts: 1, firstAccountId: 7, spaces: 1, machines: 2, hours: 3, start: 1790812800 }),
  ];
  server = await startServer(fakePlatform({ hours }));
});
afterAll(async () => {
  await server?.close();
  rmSync(cwd, { recursive: true, force: true });
});

describe("README.md", () => {
  it("reads in one sitting: 280 lines at most (detail goes to docs/), and says the package is an ES module only", () => {
    expect(README.split("\n").length - 1).toBeLessThanOrEqual(280);
    expect(README).toContain("The package is an ES module only");
  });

  it("has its command examples, each known to this test", () => {
    expect(EXAMPLES.length).toBeGreaterThanOrEqual(KNOWN.length);
    for (const example of EXAMPLES) {
      expect(
        KNOWN.filter((k) => k.line.test(example)).length,
        `an example this test does not know how to run: ${example}`,
      ).toBe(1);
    }
  });

  it("every file its examples and crontab read by flag is in examples/, or copied from there by an example before", () => {
    const copied = new Set<string>();
    for (const line of [...EXAMPLES, ...crontabOf(README).jobs.map((job) => job.command)]) {
      const cp = /^cp ((?:examples\/\S+ )+)\.(\s|$)/.exec(line);
      if (cp) for (const file of cp[1]!.trim().split(" ")) copied.add(file.replace(/^examples\//, ""));
      for (const [, flag, file] of line.matchAll(/ --(prices|statement|budgets|units|names) (\S+)/g)) {
        expect(file!.startsWith("examples/") || copied.has(file!), `--${flag} ${file} in: ${line}`).toBe(true);
        if (file!.startsWith("examples/")) expect(existsSync(join(REPO, file!)), file).toBe(true);
      }
    }
    expect([...copied].sort()).toEqual(["budgets.yaml", "prices.yaml", "statement.yaml"]);
  });

  it("the price list the README shows is examples/prices.yaml, which its examples copy and bill with, a price list the CLI reads", async () => {
    const [yaml] = codeBlocks(README, "yaml");
    expect(parse(yaml!)).toEqual(parse(readFileSync(join(REPO, "examples", "prices.yaml"), "utf8")));
    const list = await loadPrices(join(REPO, "examples", "prices.yaml"));
    expect(list.accounts.get(2)?.CU?.[0]?.text).toBe("0.04");
    expect(list.prices.CU?.[0]?.text).toBe("0.05");
  });

  it("the budgets its alerts example and crontab read are examples/budgets.yaml (copied by its finance examples), budgets the CLI reads", async () => {
    expect(README).toContain("`budgets.yaml`, copied above");
    expect(await loadBudgets(join(REPO, "examples", "budgets.yaml"))).toEqual([
      { accountId: 1, limit: { kind: "amount", amount: Exact.amount("100000") }, thresholds: [50, 80, 100] },
      { accountId: 2, limit: { kind: "quantity", unit: "CU", quantity: 500000 }, thresholds: [80, 100] },
      { accountId: null, limit: { kind: "amount", amount: Exact.amount("250000") }, thresholds: [50, 80, 100] },
    ]);
  });

  it("the price list fragments of docs/formulas.md's Money section, as written there, are a price list the CLI reads (per-account override included)", async () => {
    const money = section(readDoc("docs/formulas.md"), /^## Money/);
    // a fragment wrapped over two lines of the page is one line of YAML
    const fragment = (key: string) => new RegExp(`\`(${key}: \\{[^\`]*\\})\``).exec(money)?.[1]?.replace(/\s+/g, " ");
    const prices = fragment("prices");
    const accounts = fragment("accounts");
    expect([prices, accounts]).toEqual([expect.any(String), expect.any(String)]);
    // placeholders only: the currency the list needs, and the page's `{...}` for an account's prices
    const yaml = ["currency: EUR", prices!, accounts!.replace("{...}", "{ CU: 0.04 }")].join("\n");
    const file = join(cwd, "formulas-prices.yaml");
    writeFileSync(file, `${yaml}\n`);
    const list = await loadPrices(file);
    const [id] = [...list.accounts.keys()];
    expect(list.accounts.get(id!)?.CU?.[0]?.text).toBe("0.04");
    expect(list.prices.CU?.[0]?.text).toBeDefined();
  });

  it("docs/operations.md's cron recipe is the README's: the installed bin first on PATH, never npx, last month issued with its price list and statement config, alerts and the forecast", () => {
    const recipe = crontabOf(README);
    expect(crontabOf(readDoc("docs/operations.md"))).toEqual(recipe);
    expect(recipe.env.PATH).toMatch(/^\/srv\/billing\/node_modules\/\.bin:/);
    for (const job of recipe.jobs)
      expect(job.command).toMatch(
        /^cd \/srv\/billing && (out="\$\()?cloudunits (sync|status|alerts|invoices issue|forecast) /,
      );
    // hourly alerts with a budgets file, a forecast of the month by the clock, and the sync with a session key too
    expect(
      recipe.jobs.filter((job) => /\bcloudunits alerts .*--budgets \S+/.test(job.command)).map((job) => job.schedule),
    ).toEqual(["25 * * * *"]);
    expect(
      recipe.jobs.filter((job) => / cloudunits forecast .*--month "\$\(date -u \+%Y-%m\)"/.test(job.command)),
    ).toHaveLength(1);
    expect(recipe.jobs.filter((job) => / cloudunits sync .*--username "\$LOGIN"$/.test(job.command))).toHaveLength(1);
    const issue = recipe.jobs.find((job) => job.command.includes(" invoices issue "));
    expect(issue!.command).toContain(" --prices prices.yaml ");
    expect(issue!.command).toContain(" --statement statement.yaml ");
  });

  for (const [i, example] of EXAMPLES.entries()) {
    it(`example ${i + 1}: ${example}`, { timeout: 180_000 }, async () => {
      const known = KNOWN.find((k) => k.line.test(example));
      expect(known, `an example this test does not know how to run: ${example}`).toBeDefined();
      if (known!.notRun !== undefined) return;
      const run = await runShell(substitute(known!.instead ?? example, server), cwd, ENV);
      expect(run.code, `${example}\n${run.stderr}`).toBe(0);
      known!.check?.(run, cwd);
    });
  }
});

/** What each line of the README's crontab prints and exits, run as cron runs it, in order, after the examples above made the warehouse. */
const CRON: { command: RegExp; check: (run: CliRun, cwd: string) => void }[] = [
  {
    // hourly: the fake platform has nothing after October, and those hours come after every
    // account's last hour held: "not yet synced", not missing; nothing needs a human (status says the lag)
    command: / cloudunits sync .* --quiet --auth-url /,
    check: (run) => expect([run.code, run.stderr, run.stdout]).toEqual([0, "", ""]),
  },
  {
    command: / cloudunits status --db warehouse\.duckdb --max-lag 3 >\/dev\/null$/,
    check: (run) => {
      expect([run.code, run.stdout]).toEqual([7, ""]);
      expect(run.stderr).toMatch(/^cloudunits: 4 accounts are more than 3 h behind: account 1 \(\d+ h\)/);
    },
  },
  {
    // hourly: silent unless an alert is active; then its list and the count, on stdout for cron to mail. The README's
    // warehouse has machines new and gone in its last 24 h held (alerts are of the hours held, not of the clock)
    command:
      / out="\$\(cloudunits alerts --db warehouse\.duckdb --budgets budgets\.yaml --prices prices\.yaml 2>&1\)" \|\| echo "\$out"$/,
    check: (run) => {
      expect([run.code, run.stderr]).toEqual([0, ""]);
      const active = Number(
        /^alerts as of 2026-10-0\dT\d\d:00:00Z \(budgets of 2026-10; anomalies and machine changes of the last 24 h\): (\d+) active$/m.exec(
          run.stdout,
        )?.[1],
      );
      expect(active).toBeGreaterThan(0);
      expect(run.stdout).toMatch(/^machine-new: machine \d+ .*\[machine-new:\d+:\d+:\d+:2026-10-0\dT\d\d:00:00Z\]$/m);
      expect(
        run.stdout.endsWith(`cloudunits: ${active} alert${active === 1 ? " is" : "s are"} active (listed above)\n`),
      ).toBe(true);
    },
  },
  // nightly and on the 2nd: the held hours of the last 7 and 35 days, compared: none changed (and none held so late here)
  { command: / --verify 7 /, check: (run) => expect([run.code, run.stderr, run.stdout]).toEqual([0, "", ""]) },
  { command: / --verify 35 /, check: (run) => expect([run.code, run.stderr, run.stdout]).toEqual([0, "", ""]) },
  {
    // on the 2nd, last month is issued; the README's warehouse holds 2 days of October, so nothing is issued and a human is
    // told why, whatever the date: October lacks hours; any later month holds none (the clock is this process's, which
    // scripts/test.mjs sets with faketime for its runs at other dates, and runAsCron keeps for the shell's `date`)
    command:
      / cloudunits invoices issue --db warehouse\.duckdb --month "\$\(date -u -d 'last month' \+%Y-%m\)" --statement statement\.yaml --prices prices\.yaml --out issued\/$/,
    check: (run, cwd) => {
      const now = new Date();
      const last = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1)).toISOString().slice(0, 7);
      expect(run.code, run.stderr).toBe(3);
      expect(run.stderr).toMatch(
        last === "2026-10"
          ? /2026-10: \d+ accounts? lacks? hours, so nothing was issued/
          : new RegExp(
              `^cloudunits: no hours held in ${last}: the inputs hold none of it, so there is nothing to bill; they hold \\[2026-10-01T00:00:00Z, 2026-10-03T00:00:00Z\\)\n$`,
            ),
      );
      expect(existsSync(join(cwd, "issued"))).toBe(false);
    },
  },
  {
    // every Monday, the month's forecast, mailed to whoever reads it: this month by the clock (faketime's in
    // scripts/test.mjs's runs at other dates); the README's warehouse holds October 2026 only, so any later month
    // is refused saying how far behind the warehouse is (exit 3), which is what a human must hear then
    command: / cloudunits forecast --db warehouse\.duckdb --month "\$\(date -u \+%Y-%m\)" --prices prices\.yaml$/,
    check: (run) => {
      const month = new Date().toISOString().slice(0, 7);
      if (month === "2026-10") {
        expect([run.code, run.stderr]).toEqual([0, ""]);
        expect(run.stdout).toMatch(/^Forecast of 2026-10 \(2026-10-01T00:00:00Z to /);
        return;
      }
      expect([run.code, run.stdout]).toEqual([3, ""]);
      expect(run.stderr).toMatch(
        new RegExp(
          `^cloudunits: no hour of ${month} is held: the warehouse holds hours up to 2026-10-0\\dT\\d\\d:00:00Z, \\d+ days behind; nothing to forecast \\(sync the warehouse, or forecast a month it holds\\)\n$`,
        ),
      );
    },
  },
  {
    // the hourly sync with a session key instead (user name from cron's environment, password in CLOUDUNITS_PASSWORD):
    // logged in, nothing new, silent
    command: / cloudunits sync --url https:\/\/cloud\.example --db warehouse\.duckdb --quiet --username "\$LOGIN"$/,
    check: (run) => expect([run.code, run.stderr, run.stdout]).toEqual([0, "", ""]),
  },
];

describe("README.md's crontab, as cron runs it with the installed bin", () => {
  const recipe = crontabOf(README);

  it("has its lines, each known to this test", () => {
    expect(recipe.jobs.map((job) => CRON.filter((c) => c.command.test(job.command)).length)).toEqual(
      recipe.jobs.map(() => 1),
    );
  });

  for (const job of recipe.jobs) {
    it(`${job.schedule}  ${job.command}`, { timeout: 300_000 }, async () => {
      // the folder of the recipe is this test's; its installed bin runs the tool built from the sources
      const bin = join(cwd, "node_modules", ".bin");
      mkdirSync(bin, { recursive: true });
      writeFileSync(
        join(bin, "cloudunits"),
        `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} "$@"\n`,
        { mode: 0o755 },
      );
      const at = (text: string) => substitute(text.replaceAll("/srv/billing", cwd), server);
      const env = Object.fromEntries(Object.entries(recipe.env).map(([key, value]) => [key, at(value)]));
      const run = await runAsCron(at(job.command), cwd, { ...env, ...ENV });
      CRON.find((c) => c.command.test(job.command))!.check(run, cwd);
    });
  }
});
