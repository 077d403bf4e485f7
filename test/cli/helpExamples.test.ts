import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import yargs from "yargs";
import { commandName, commands } from "../../src/cli/commands/index.js";
import { shellLines, withExamples } from "../../src/cli/helpExamples.js";
import { generateHours, ingest, writeDataset } from "../../src/index.js";
import { SERIES_CATALOG } from "../../src/stats/seriesCatalog.js";
import { fakePlatform } from "../fetch/fakePlatform.js";
import { SECRETS, startServer, type FakeServer } from "../fetch/fakeService.js";
import { isServing, REPO, runServing, runShell } from "../helpers/shellExamples.js";

// Every command's --help ends with examples, and each one runs as written, in --help order,
// in one folder (its generate example makes the data.zip the others read); only the service's
// addresses go to a loopback fake platform holding that data, the credentials come from the
// variables the examples name.

/** A command's `--help`, as the CLI prints it at a width of 110. */
async function helpOf(entry: (typeof commands)[number]): Promise<string> {
  const parser = yargs([])
    .scriptName("cloudunits")
    .command(withExamples(await entry.load(), entry))
    .help()
    .version("0")
    .wrap(110);
  return new Promise((resolve) => {
    void parser.parse([commandName(entry), "--help"], (_error: unknown, _argv: unknown, output: string) =>
      resolve(output),
    );
  });
}

let cwd: string;
let server: FakeServer;
beforeAll(async () => {
  cwd = mkdtempSync(join(tmpdir(), "cloudunits-help-"));
  // what the generate example writes, held by the platform
  server = await startServer(fakePlatform({ hours: [...generateHours({ accounts: 3, hours: 48 })] }));
  copyFileSync(join(REPO, "examples/prices.yaml"), join(cwd, "prices.yaml")); // the examples bill with the shipped price list
  copyFileSync(join(REPO, "examples/budgets.yaml"), join(cwd, "budgets.yaml")); // and alert with the shipped budgets
  // the invoices examples issue a whole October of the shipped statement config's customers
  copyFileSync(join(REPO, "examples/statement.yaml"), join(cwd, "statement.yaml"));
  await writeDataset({
    out: join(cwd, "october"),
    accounts: 3,
    firstAccountId: 7101,
    spaces: 1,
    machines: 2,
    hours: 744,
    start: 1790812800,
  });
  await ingest([join(cwd, "october")], { db: join(cwd, "october.duckdb") });
});
afterAll(async () => {
  await server?.close();
  rmSync(cwd, { recursive: true, force: true });
});

describe("cloudunits alone", () => {
  it("prints the command list, as --help does, and exits 0", async () => {
    const [bare, help] = await Promise.all([runShell("cloudunits", cwd), runShell("cloudunits --help", cwd)]);
    expect(bare.code).toBe(0);
    expect(bare.stdout).toBe(help.stdout);
    for (const c of commands) expect(bare.stdout).toContain(`cloudunits ${c.command}`);
  });
});

describe("--help", () => {
  for (const entry of commands) {
    it(`${commandName(entry)} --help ends with its examples, each whole, to copy`, async () => {
      expect(entry.examples.length).toBeGreaterThan(0);
      const help = await helpOf(entry);
      const examples = `${help.slice(help.indexOf("\nExamples:\n"))}\n`;
      expect(help).toContain("\nExamples:\n");
      for (const [line, description] of entry.examples) {
        expect(line.startsWith(`cloudunits ${commandName(entry)} `)).toBe(true);
        expect(examples).toContain(`  ${description}:\n${shellLines(line, 96).join("\n")}\n`);
        // the shown lines, continuations joined, are the example
        expect(
          shellLines(line, 96)
            .map((l) => l.trim().replace(/ \\$/, ""))
            .join(" "),
        ).toBe(line);
      }
    });
  }

  it("stats --help lists every series of each entity", async () => {
    const help = (await helpOf(commands.find((c) => commandName(c) === "stats")!)).replace(/\s+/g, " ");
    for (const [entity, series] of Object.entries(SERIES_CATALOG)) {
      expect(help).toContain(`${entity}: ${series.map((d) => d.name).join(", ")}`);
    }
  });
});

describe("every --help example runs as written", () => {
  const examples = commands.flatMap((entry) => entry.examples.map(([line]) => line));
  for (const [i, line] of examples.entries()) {
    it(`${i + 1}: ${line}`, { timeout: 180_000 }, async () => {
      const run = await (isServing(line) ? runServing : runShell)(
        line.replaceAll("https://cloud.example", server.url).replaceAll("https://iam.example", `${server.url}/idp`),
        cwd,
        // demo --keep keeps its folder in this run's folder
        { CLOUDUNITS_CLIENT_ID: SECRETS.clientId, CLOUDUNITS_CLIENT_SECRET: SECRETS.clientSecret, TMPDIR: cwd },
      );
      // alerts exits 7 when it lists an active alert (the generated data has machines created late: new in the last 24 h)
      const active = line.startsWith("cloudunits alerts ")
        ? Number(
            /: (\d+) active\n/.exec(run.stdout)?.[1] ?? (JSON.parse(run.stdout) as { alerts: unknown[] }).alerts.length,
          )
        : 0;
      expect(run.code, `${line}\n${run.stderr}`).toBe(active > 0 ? 7 : 0);
      if ("page" in run)
        expect((run as { page?: { status: number } }).page?.status, "the dashboard answers its overview").toBe(200);
      const out = / --out (\S+)/.exec(line)?.[1];
      if (out !== undefined) expect(existsSync(join(cwd, out)), `${out} written`).toBe(true);
      if (out?.endsWith("/")) expect(readdirSync(join(cwd, out)).length).toBeGreaterThan(0);
      if (out === undefined && !line.includes(" --db ") && !line.startsWith("cloudunits ingest"))
        expect(run.stdout.length).toBeGreaterThan(0);
    });
  }
});
