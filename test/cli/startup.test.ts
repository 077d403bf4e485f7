import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import yargs from "yargs";
import { commandName, commands } from "../../src/cli/commands/index.js";
import { topHelp } from "../../src/cli/topHelp.js";
import { CLI, LIBRARY } from "../helpers/runCli.js";

const HOOKS = join(import.meta.dirname, "../helpers/logPackages.mjs");
let root: string;
let runs = 0;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "cloudunits-startup-"));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Runs `cloudunits ARGS` (built from the sources); returns its stdout and the packages it loaded. */
function run(args: string[]): Promise<{ code: number; stdout: string; packages: Set<string> }> {
  return runNode([CLI, ...args]);
}

/** Runs `node ARGS`; returns its stdout and the packages it loaded. */
function runNode(args: string[]): Promise<{ code: number; stdout: string; packages: Set<string> }> {
  const log = join(root, `packages-${runs++}.txt`);
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", HOOKS, ...args],
      {
        env: { ...process.env, CI: "1", CLOUDUNITS_TEST_PACKAGE_LOG: log },
      },
      async (error, stdout) => {
        const text = await readFile(log, "utf8").catch(() => "");
        resolve({ code: error ? Number(error.code) : 0, stdout, packages: new Set(text.split("\n").filter(Boolean)) });
      },
    );
  });
}

describe("start-up: a command loads only what it uses", () => {
  it("--version prints the package's version without loading any package", async () => {
    const { version } = JSON.parse(await readFile(join(import.meta.dirname, "../../package.json"), "utf8")) as {
      version: string;
    };
    const { code, stdout, packages } = await run(["--version"]);
    expect(code).toBe(0);
    expect(stdout).toBe(`${version}\n`);
    expect([...packages]).toEqual([]);
  });

  it("--help lists every command without loading any package, exactly as the argument parser would", async () => {
    const { code, stdout, packages } = await run(["--help"]);
    expect(code).toBe(0);
    expect([...packages]).toEqual([]);
    for (const c of commands) expect(stdout).toContain(`cloudunits ${c.command}`);
    const stubs = commands.map((c) => ({ command: c.command, describe: c.describe, handler: () => {} }));
    const parser = yargs([]).scriptName("cloudunits").command(stubs).demandCommand(1).help().version("0").wrap(110);
    expect(topHelp(commands, 110)).toBe(`${await parser.getHelp()}\n`);
  });

  it("generate, fetch and check --help load neither DuckDB nor exceljs; billing --help loads no exceljs", async () => {
    for (const name of ["generate", "fetch", "check", "billing"]) {
      const { code, stdout, packages } = await run([name, "--help"]);
      expect(code).toBe(0);
      expect(stdout).toContain(`cloudunits ${commands.find((c) => commandName(c) === name)!.command}`);
      expect(packages.has("exceljs")).toBe(false);
      expect(packages.has("yaml")).toBe(false);
      if (name !== "billing") expect(packages.has("@duckdb/node-bindings")).toBe(false);
    }
  });

  it("billing from files prints its figures without loading DuckDB, exceljs or arquero; from --db it loads DuckDB", async () => {
    const { writeDataset } = await import("../../src/index.js");
    const data = join(root, "data");
    await writeDataset({ out: data, accounts: 1, hours: 2 });
    const period = ["--start", "2026-10-01", "--end", "2026-10-02"];
    for (const format of ["json", "text", "csv"]) {
      const { code, stdout, packages } = await run(["billing", data, ...period, "--format", format]);
      expect(code).toBe(0);
      expect(stdout).toMatch(format === "json" ? /^\{"consumption":\{"CU":[1-9]/ : /CU/);
      for (const heavy of ["@duckdb/node-api", "@duckdb/node-bindings", "exceljs", "arquero"])
        expect(packages.has(heavy)).toBe(false);
    }
    const db = join(root, "data.duckdb");
    expect((await run(["ingest", data, "--db", db])).code).toBe(0);
    const fromDb = await run(["billing", "--db", db, ...period]);
    expect(fromDb.stdout).toBe((await run(["billing", data, ...period])).stdout);
    expect(fromDb.packages.has("@duckdb/node-bindings")).toBe(true);
  });
});

describe("the library loads the heavy packages only where a function needs them", () => {
  it("importing cloudunits and billing files load neither DuckDB, exceljs nor arquero; open() loads DuckDB, a query arquero", async () => {
    const { writeDataset } = await import("../../src/index.js");
    const data = join(root, "library-data");
    await writeDataset({ out: data, accounts: 1, hours: 2 });
    const heavy = ["@duckdb/node-api", "@duckdb/node-bindings", "exceljs", "arquero"];
    const script = async (name: string, body: string) => {
      const file = join(root, `${name}.mjs`);
      await writeFile(file, `const cu = await import(${JSON.stringify(LIBRARY)});\n${body}\n`);
      return runNode([file]);
    };
    const imported = await script("import", `console.log(typeof cu.bill, typeof cu.open);`);
    expect(imported.stdout).toBe("function function\n");
    for (const p of heavy) expect(imported.packages.has(p)).toBe(false);

    const billed = await script(
      "bill",
      `const { report: r } = await cu.bill({ source: [${JSON.stringify(data)}], period: { start: cu.parseTime("2026-10-01"), end: cu.parseTime("2026-10-02") } });
console.log(r.lines.find((l) => l.level === "environment").quantities.CU > 0);`,
    );
    expect(billed.stdout).toBe("true\n");
    for (const p of heavy) expect(billed.packages.has(p)).toBe(false);

    const queried = await script(
      "query",
      `const store = await cu.open([${JSON.stringify(data)}]);
try { console.log((await store.query("SELECT count(*)::INTEGER AS n FROM account_hours")).get("n", 0)); } finally { store.close(); }`,
    );
    expect(queried.stdout).toBe("2\n");
    expect(queried.packages.has("@duckdb/node-api")).toBe(true);
    expect(queried.packages.has("arquero")).toBe(true);
    expect(queried.packages.has("exceljs")).toBe(false);
  });
});
