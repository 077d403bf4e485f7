import { execFileSync } from "node:child_process";
import { ingest } from "../src/store/ingest.js";
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import yargs from "yargs";
import { commandName, commands } from "../src/cli/commands/index.js";
import { generateHours, openWarehouse, writeDataset } from "../src/internal.js";
import { fakePlatform } from "./fetch/fakePlatform.js";
import { SECRETS, startServer, type FakeServer } from "./fetch/fakeService.js";
import { CLI } from "./helpers/runCli.js";
import { codeBlocks, isServing, readDoc, REPO, runServing, runShell, section } from "./helpers/shellExamples.js";
import { startWebhook, type Webhook } from "./helpers/webhook.js";
import { startAccessPoint, type FakeAccessPoint } from "./helpers/fakeAccessPoint.js";
import { camtStatement } from "./helpers/camtStatement.js";

// Every synopsis line of docs/cli.md runs here literally, in its argument order: once with its
// optional parts left out, and once per alternative with all of them in (`a|b` and
// `( x | y )` taking their first, second... choice). Only placeholders are substituted, from
// the table below; a placeholder or form it does not know fails the test. The reference is
// read when the tests run, so it cannot drift from the commands.

const SYNOPSIS = section(readDoc("docs/cli.md"), /^## Synopsis/);

/** The synopses of the section's code block: a line starting `cloudunits`, with its indented continuations. */
const SYNOPSES = codeBlocks(SYNOPSIS, "")
  .join("\n")
  .split(/\n(?=cloudunits )/)
  .map((s) => s.replace(/\s+/g, " ").trim())
  .filter((s) => s.startsWith("cloudunits "));

type Node = { word: string } | { optional: Node[] } | { choice: Node[][] };

/** Parses a synopsis: words, `[optional parts]`, `( a | b )` choices; a `( comment )` with no flag is dropped. */
function parse(text: string): Node[] {
  // `UNIT[@PERIOD]`: an optional part within one word is one placeholder, not an optional word
  const tokens = text
    .replace(/(\w)\[(@\w+)\]/g, "$1\u0001$2\u0002")
    .replace(/([[\]()])/g, " $1 ")
    .split(" ")
    .filter((t) => t !== "")
    .map((t) => t.replace("\u0001", "[").replace("\u0002", "]"));
  let i = 0;
  const seq = (close?: string): Node[][] => {
    const options: Node[][] = [[]];
    while (i < tokens.length) {
      const t = tokens[i++]!;
      if (t === close) return options;
      if (t === "|" && close === ")") options.push([]);
      else if (t === "[") options.at(-1)!.push({ optional: seq("]")[0]! });
      else if (t === "(") {
        const inner = seq(")");
        if (inner.flat().some((n) => "word" in n && n.word.startsWith("--"))) options.at(-1)!.push({ choice: inner });
      } else if (t !== "...") options.at(-1)!.push({ word: t }); // `...`: "more of the same"
    }
    if (close !== undefined) throw new Error(`unclosed ${close} in ${text}`);
    return options;
  };
  return seq()[0]!;
}

/** The words of one run: optional parts in when `full`, the `k`-th choice of each alternative. */
function expand(nodes: Node[], full: boolean, k: number): string[] {
  return nodes.flatMap((n): string[] => {
    if ("optional" in n) return full ? expand(n.optional, full, k) : [];
    if ("choice" in n) return expand(n.choice[k % n.choice.length]!, full, k);
    if (n.word.startsWith("--") && n.word.includes("/")) return n.word.split("/"); // --a/--b: these flags together
    if (n.word.includes("|") && !n.word.startsWith("<")) {
      const alternatives = n.word.split("|");
      return [alternatives[k % alternatives.length]!];
    }
    return [n.word];
  });
}

/** How many runs with everything in a synopsis needs: one per choice of its widest alternative. */
function widest(nodes: Node[]): number {
  return Math.max(
    1,
    ...nodes.map((n) =>
      "optional" in n
        ? widest(n.optional)
        : "choice" in n
          ? Math.max(n.choice.length, ...n.choice.map(widest))
          : n.word.includes("|") && !n.word.startsWith("<")
            ? n.word.split("|").length
            : 1,
    ),
  );
}

/** What the placeholders stand for here, for this run. */
interface Context {
  command: string;
  run: string;
  words: string[];
  server: FakeServer;
  ids: { machine: number; cloudspace: number; account: number };
}
const valueOf = (flag: string, ctx: Context) => ctx.words[ctx.words.indexOf(flag) + 1];

/** Placeholder substitutions, by `command flag placeholder`, then `flag placeholder`; a function gets the run's context. */
const VALUES: Record<string, string | ((ctx: Context, occurrence: number) => string)> = {
  "<inputs...>": "data.zip",
  "--start T": "2026-10-01",
  "--end T": "2026-10-03",
  "--from T": "2026-10-01",
  "--till T": "2026-10-03",
  "--account-id N": "1",
  "invoices --account-id N": "7101", // examples/statement.yaml's customers
  "--since T": "2026-10-01",
  "--until T": "2026-10-03",
  "--month YYYY-MM": "2026-10",
  "--id N": (ctx) => String(ctx.ids[ctx.words[2] as keyof Context["ids"]]),
  "--include S": (_, n) => ["cpu", "network"][n]!,
  "--prices FILE": "prices.yaml",
  "--units FILE": "units.yaml",
  "--names FILE": "names.csv",
  "--statement FILE": "statement.yaml",
  // the shipped budgets hold amounts, which need prices; without, budgets of unit quantities
  "--budgets FILE": (ctx) => (ctx.words.includes("--prices") ? "budgets.yaml" : "budgets-units.yaml"),
  "--limit N": "5",
  // alerts posts to a loopback webhook that counts what it receives
  "--notify URL": () => `${hook.url}/hooks/secret-token`,
  "--out FILE": (ctx) => `${ctx.command}-${ctx.run}.${ctx.command === "fetch" ? "zip" : valueOf("--format", ctx)}`,
  // status reads a warehouse: the one ingest made of data.zip (made here when the ingest lines have not run yet)
  "--db FILE": (ctx) =>
    ["status", "serve", "forecast", "alerts"].includes(ctx.command) ? "status.duckdb" : `warehouse-${ctx.run}.duckdb`,
  // invoices are issued from a whole October of examples/statement.yaml's customers (made below), and issued first
  "invoices --db FILE": "october.duckdb",
  "--number NUMBER": "INV-2026-00001",
  "--customer ID": "7101", // invoices credits: a customer of examples/statement.yaml
  "--reason TEXT": "an hour arrived late",
  "--issue-date YYYY-MM-DD": "2026-11-02",
  // receivables: a payment of the invoice issued first, a bank statement paying it, the loopback access point
  "--amount X": "10.00",
  // invoices credit: a whole line of the invoice issued first (before its correction, which cancels what remains)
  "--line UNIT[@PERIOD]": "CU",
  "--date YYYY-MM-DD": "2026-11-02",
  "--reference TEXT": "bank transfer",
  "--camt FILE.xml": "camt053.xml",
  "--to URL": () => accessPoint.url,
  "--timeout SECONDS": "10",
  // a head kept: the one the register's verify prints now (the runs before issued and corrected)
  "--head HEAD": () =>
    /^register head (\S+)$/m.exec(
      execFileSync(process.execPath, [CLI, "invoices", "verify", "--db", "october.duckdb"], { cwd, encoding: "utf8" }),
    )![1]!,
  // serve listens until stopped: on any free port (it prints its address), asked for its overview, then stopped with Ctrl-C
  "serve --port N": "0",
  "--out DIR": (ctx) => `${ctx.command}-${ctx.run}/`,
  "--out FILE.zip": (ctx) => `${ctx.command}-${ctx.run}.zip`,
  "--accounts N": "2",
  "--hours N": "3",
  "--url BASE": (ctx) => ctx.server.url,
  "--client-id": SECRETS.clientId,
  "--client-secret": SECRETS.clientSecret,
  "--auth-url": (ctx) => `${ctx.server.url}/idp`,
  "--username": SECRETS.username,
  "--password": SECRETS.password,
};
const PLACEHOLDER = /^(<.*>|(?!(CU|SU|TU|NU)$)[A-Z]+(-[A-Z]+)*(\.\w+)?|[A-Z]+\[@[A-Z]+\])$/;
const FLAGS_WITHOUT_PLACEHOLDER = new Set(["--client-id", "--client-secret", "--auth-url", "--username", "--password"]);

/** The command line of one run, placeholders substituted (throws on one it does not know). */
function substitute(words: string[], ctx: Omit<Context, "words">): string[] {
  const out: string[] = [];
  const seen = new Map<string, number>();
  const lookup = (key: string, context: Context): string => {
    const value = VALUES[`${context.command} ${key}`] ?? VALUES[key];
    if (value === undefined) throw new Error(`no substitution for "${key}" in: ${words.join(" ")}`);
    const n = seen.get(key) ?? 0;
    seen.set(key, n + 1);
    return typeof value === "string" ? value : value(context, n);
  };
  for (const [i, word] of words.entries()) {
    const context = { ...ctx, words };
    if (PLACEHOLDER.test(word)) {
      const flag = words[i - 1]?.startsWith("--") ? `${words[i - 1]} ` : "";
      out.push(lookup(`${flag}${word}`, context));
    } else {
      out.push(word);
      if (FLAGS_WITHOUT_PLACEHOLDER.has(word)) out.push(lookup(word, context));
    }
  }
  return out;
}

const quote = (word: string) => (/^[\w./:=-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`);

/** Every run of every synopsis: the minimal one, then one per choice with everything in; identical runs once. */
const RUNS = SYNOPSES.flatMap((synopsis) => {
  const nodes = parse(synopsis);
  const runs = [expand(nodes, false, 0), ...Array.from({ length: widest(nodes) }, (_, k) => expand(nodes, true, k))];
  const unique = [...new Map(runs.map((r) => [r.join(" "), r])).values()];
  return unique.map((words, n) => ({ synopsis, words, run: `${words[1]}-${n}` }));
});

/** What the reference promises of a successful run: exit 0, `--out` written, `--format json` (the default) on stdout parses to the shape. */
function checkOutput(words: string[], stdout: string, cwd: string): void {
  const command = words[1]!;
  const format = words.includes("--format") ? words[words.indexOf("--format") + 1] : "json";
  const out = words.includes("--out") ? words[words.indexOf("--out") + 1]! : undefined;
  if (out !== undefined) {
    expect(existsSync(join(cwd, out)), `${out} written`).toBe(true);
    if (!out.endsWith("/")) expect(statSync(join(cwd, out)).size).toBeGreaterThan(0);
  }
  if (command === "billing" || command === "stats") {
    const text = out === undefined ? stdout : readFileSync(join(cwd, out), "utf8");
    if (format === "json") {
      const shape = JSON.parse(text) as Record<string, unknown>;
      if (command === "stats") expect(Object.keys(shape)).toEqual(["time", "series"]);
      else expect(Object.keys(shape)).toEqual([words.includes("--account-id") ? "account" : "consumption"]);
      // examples/names.csv names account 1
      if (command === "billing" && words.includes("--names"))
        expect((shape.account as { name: string }).name).toBe("Acme Corporation");
    }
    if (format === "csv") expect(text.split(/\r?\n/).filter((l) => l !== "").length).toBeGreaterThan(1);
    if (format === "xlsx") expect(readFileSync(join(cwd, out!)).subarray(0, 2).toString("latin1")).toBe("PK");
    if (format === "pdf") expect(readFileSync(join(cwd, out!)).subarray(0, 5).toString("latin1")).toBe("%PDF-");
  }
  if (command === "invoices" && words[2] === "list" && words.includes("--format") && format === "json")
    expect((JSON.parse(stdout) as { number: string }[]).map((d) => d.number)).toContain("INV-2026-00001");
  if (command === "invoices" && out !== undefined)
    expect(
      readdirSync(join(cwd, out)).some((f) =>
        f.startsWith(["correct", "credit"].includes(words[2]!) ? "CN-2026-" : "INV-2026-"),
      ),
    ).toBe(true);
}

/** How many alerts `alerts` printed as active (text or JSON). */
function activeAlerts(stdout: string): number {
  const text = /: (\d+) active\n/.exec(stdout);
  return text ? Number(text[1]) : (JSON.parse(stdout) as { alerts: unknown[] }).alerts.length;
}

/** The data set the placeholders stand for: `<inputs...>` is it as a zip, and the platform serves it. */
const DATA = { accounts: 2, spaces: 2, machines: 3, hours: 48, start: 1790812800, seed: 5 };

let cwd: string;
let server: FakeServer;
let hook: Webhook;
let accessPoint: FakeAccessPoint;
let ids: Context["ids"];
beforeAll(async () => {
  cwd = mkdtempSync(join(tmpdir(), "cloudunits-spec-"));
  hook = await startWebhook();
  accessPoint = await startAccessPoint();
  writeFileSync(
    join(cwd, "camt053.xml"),
    camtStatement([
      { ref: "BANK-1", amount: "12.00", text: "INV-2026-00002" },
      { ref: "BANK-2", amount: "3.00", text: "not ours" },
    ]),
  );
  await writeDataset({ out: join(cwd, "data.zip"), ...DATA });
  // the platform holds data.zip's hours: fetch, sync and reconcile ask it for them
  server = await startServer(fakePlatform({ hours: [...generateHours(DATA)] }));
  // the files FILE names: the price list, units file and names file the repository ships in examples/
  for (const file of ["prices.yaml", "units.yaml", "names.csv", "budgets.yaml", "statement.yaml"])
    copyFileSync(join(REPO, "examples", file), join(cwd, file));
  await ingest([join(cwd, "data.zip")], { db: join(cwd, "status.duckdb") });
  await writeDataset({
    out: join(cwd, "october"),
    accounts: 3,
    firstAccountId: 7101,
    spaces: 1,
    machines: 2,
    hours: 744,
    start: 1790812800,
    seed: 5,
  });
  await ingest([join(cwd, "october")], { db: join(cwd, "october.duckdb") });
  writeFileSync(
    join(cwd, "budgets-units.yaml"),
    "budgets:\n  - account: 1\n    unit: CU\n    quantity: 1000000\n  - environment: true\n    unit: NU\n    quantity: 1000\n",
  );
  const w = await openWarehouse([join(cwd, "data.zip")]);
  try {
    const row = (
      await w.connection.runAndReadAll(
        "SELECT machine_id, cloudspace_id FROM machines WHERE account_id = 1 GROUP BY ALL ORDER BY count(*) DESC, machine_id LIMIT 1",
      )
    ).getRowObjectsJS()[0]!;
    ids = { machine: Number(row.machine_id), cloudspace: Number(row.cloudspace_id), account: 1 };
  } finally {
    w.close();
  }
});
afterAll(async () => {
  hook?.close();
  await accessPoint?.close();
  await server?.close();
  rmSync(cwd, { recursive: true, force: true });
});

describe("docs/cli.md, every synopsis line as written", () => {
  it("has a synopsis of every command, each run here", () => {
    // every command of the CLI has its line (a new command documents itself here)
    expect([...new Set(SYNOPSES.map((s) => s.split(" ")[1]))].sort()).toEqual(commands.map(commandName).sort());
    expect(RUNS.length).toBeGreaterThanOrEqual(SYNOPSES.length);
  });

  for (const { synopsis, words, run } of RUNS) {
    it(`${words.join(" ")}`, { timeout: 180_000 }, async () => {
      const line = substitute(words, { command: words[1]!, run, server, ids });
      // TMPDIR: what `demo --keep` keeps stays in this run's folder
      const text = line.map(quote).join(" ");
      // invoices: at a fixed time after October (the tests' clock, which the command notes on stderr)
      // invoices send: the access point's token
      const env = {
        TMPDIR: cwd,
        ...(line[1] === "invoices"
          ? { CLOUDUNITS_TEST_NOW: "2026-11-02T08:00:00Z", CLOUDUNITS_AP_TOKEN: "ap-token-for-tests" }
          : {}),
      };
      const result = isServing(text) ? await runServing(text, cwd, env) : await runShell(text, cwd, env);
      // alerts exits 7 when it lists an active alert (data.zip has machines created late: new in the last 24 h)
      const expected = line[1] === "alerts" && activeAlerts(result.stdout) > 0 ? 7 : 0;
      expect(result.code, `${synopsis}\n${line.join(" ")}\n${result.stderr}`).toBe(expected);
      if ("page" in result)
        expect((result as { page?: { status: number } }).page?.status, "the dashboard answers its overview").toBe(200);
      if (expected === 7 && line.includes("--notify"))
        expect(
          hook.bodies.some(
            (p) => (JSON.parse(p) as { alerts: unknown[] }).alerts.length === activeAlerts(result.stdout),
          ),
        ).toBe(true);
      checkOutput(line, result.stdout, cwd);
    });
  }
});

/** A command's `--help` text (or its subcommand's: `invoices issue`), as the CLI prints it (its module's options, parsed in process). */
async function helpOf(entry: (typeof commands)[number], sub: string[] = []): Promise<string> {
  const parser = yargs([])
    .scriptName("cloudunits")
    .command(await entry.load())
    .help()
    .version("0")
    .wrap(200);
  return new Promise((resolve) => {
    void parser.parse([commandName(entry), ...sub, "--help"], (_error: unknown, _argv: unknown, output: string) =>
      resolve(output),
    );
  });
}

/** The subcommands a command's help lists (`invoices`: issue, correct, list, show); none for most. */
const subcommandsOf = (help: string, name: string): string[] =>
  [...help.matchAll(new RegExp(`^ {2}cloudunits ${name} (\\w+)`, "gm"))].map((m) => m[1]!);

describe("docs/cli.md, the flags of every command", () => {
  for (const entry of commands) {
    it(`${commandName(entry)}: every flag of --help has its row in the command's table, and no other`, async () => {
      const name = commandName(entry);
      const subcommands = subcommandsOf(await helpOf(entry), name);
      // a command of subcommands (invoices) documents each in a section of its own
      for (const sub of subcommands.length > 0 ? subcommands.map((c) => [c]) : [[]]) {
        const table = section(readDoc("docs/cli.md"), new RegExp(`^### \`cloudunits ${[name, ...sub].join(" ")}\``));
        const documented = [...table.matchAll(/^\| `(--[\w-]+)` \|/gm)].map((m) => m[1]);
        const flags = [...(await helpOf(entry, sub)).matchAll(/^ {2}(--[\w-]+)/gm)]
          .map((m) => m[1])
          .filter((f) => f !== "--help" && f !== "--version");
        expect(documented, [name, ...sub].join(" ")).toEqual(flags);
      }
    });
  }
});
