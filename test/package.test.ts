/**
 * The package as a user gets it: built and packed as `npm pack` does, installed from the
 * tarball into an empty TypeScript app (no overrides: only what package.json says), a script
 * type-checked against the published `.d.ts` with `strict` and `skipLibCheck: false`, then run.
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chargeOf, DEFAULT_UNITS, Exact, loadPrices, monthPeriod, open, parsePrices, parseTime } from "../src/index.js";
import { runCli } from "./helpers/runCli.js";

const ROOT = join(import.meta.dirname, "..");
const TSC = join(ROOT, "node_modules/typescript/bin/tsc");

/**
 * The user's script: generated data (accounts 6 and 7, October's first day, as october.zip in
 * the app's folder, where the README's example finds it), `open`, `calculate`, a query,
 * `machineStats` and money.
 */
const USER_SCRIPT = `
import { chargeOf, DEFAULT_UNITS, open, parsePrices, parseTime, writeDataset, type StatsResponse } from "cloudunits";

const start = parseTime("2026-10-01");
const end = parseTime("2026-10-02");
await writeDataset({ out: "october.zip", accounts: 2, firstAccountId: 6, spaces: 2, machines: 3, hours: 24, start, seed: 7 });
const store = await open(["october.zip"]);
try {
  const { account } = await store.calculate({ start, end, accountId: 7 });
  const busiest = await store.query(
    "SELECT machine_id, count(*) AS hours FROM machines WHERE account_id = 7 AND type = 'vm' GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 1");
  const machineId = Number(busiest.get("machine_id"));
  const stats: StatsResponse = await store.machineStats({ machineId, from: start, till: end, include: ["cpu", "memory"] });
  const prices = parsePrices({ currency: "EUR", prices: { CU: 0.05 } });
  const cuHours = account.consumption.CU ?? 0;
  const charge = chargeOf("CU", cuHours, account.id, prices, DEFAULT_UNITS);
  console.log(JSON.stringify({ cuHours, machineId, stats, currency: prices.currency, amount: charge?.amount.toFixed(prices.decimals) }));
} finally {
  store.close();
}
`;

/**
 * A script of `cloudunits/internal`: its published types must need nothing the package does not
 * install (PDFKit's types are a development dependency). It lays out a name in the documents'
 * fonts, which the package ships beside the module that reads them.
 */
const INTERNAL_SCRIPT = `
import { DEFAULT_INPUT_LIMITS, fontRuns } from "cloudunits/internal";

console.log(JSON.stringify({ limits: typeof DEFAULT_INPUT_LIMITS, runs: fontRuns("Zoë 東京", "regular") }));
`;

const USER_TSCONFIG = {
  compilerOptions: {
    target: "ES2022",
    module: "NodeNext",
    moduleResolution: "NodeNext",
    lib: ["ES2023"],
    types: ["node"],
    strict: true,
    skipLibCheck: false,
    outDir: "out",
    rootDir: "src",
  },
  include: ["src"],
};

interface Run {
  stdout: string;
  stderr: string;
}

/** Runs a command; npm's own `npm_*` variables of `npm test` are left out so the child npm sees only the app. */
function run(command: string, args: string[], cwd: string): Promise<Run> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.toLowerCase().startsWith("npm_")));
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd, env, maxBuffer: 64 << 20 }, (error, stdout, stderr) => {
      if (error)
        reject(new Error(`${command} ${args.join(" ")} failed in ${cwd}:\n${stdout}\n${stderr}`, { cause: error }));
      else resolve({ stdout, stderr });
    });
  });
}

/** Every ```ts block of the README's "Library" section, as written, in order. */
function readmeLibraryExamples(readme: string): string[] {
  const start = readme.indexOf("\n## Library\n");
  const end = readme.indexOf("\n## ", start + 1);
  const section = readme.slice(start, end === -1 ? undefined : end);
  const blocks = [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] ?? "");
  if (start === -1 || blocks.length === 0) throw new Error("README.md: no ```ts block under ## Library");
  return blocks;
}

/** The TypeScript library scripts of examples/. */
const EXAMPLE_SCRIPTS = ["month-invoices.ts", "cloudspace-cost.ts", "busiest-machine.ts"];

let readmeExamples: string[] = [];
let installed: Run;
let dir: string;
let app: string;
const seconds: Record<string, number> = {};
async function timed<T>(step: string, work: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  try {
    return await work();
  } finally {
    seconds[step] = Math.round(performance.now() - t0) / 1000;
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "cloudunits-package-"));
  // Packed as a release is, by `npm run pack` (scripts/pack.mjs: built into a stage, so the repo's
  // own dist/ is never rewritten under tests running beside this one)
  await timed("build and pack", () => run("npm", ["run", "pack", "--", "--destination", dir], ROOT));
  const [tarball] = (await readdir(dir)).filter((f) => f.endsWith(".tgz"));
  if (!tarball) throw new Error("npm pack wrote no tarball");

  app = join(dir, "app");
  await mkdir(join(app, "src"), { recursive: true });
  await writeFile(
    join(app, "package.json"),
    JSON.stringify({ name: "user-app", version: "1.0.0", private: true, type: "module" }),
  );
  await writeFile(join(app, "tsconfig.json"), JSON.stringify(USER_TSCONFIG));
  await writeFile(join(app, "src/main.ts"), USER_SCRIPT);
  await writeFile(join(app, "src/internal.ts"), INTERNAL_SCRIPT);
  // a CommonJS app beside it (npm init -y: no "type"), resolving the same node_modules
  await mkdir(join(app, "cjs/src"), { recursive: true });
  await writeFile(join(app, "cjs/package.json"), JSON.stringify({ name: "cjs-app", version: "1.0.0", private: true }));
  await writeFile(join(app, "cjs/tsconfig.json"), JSON.stringify(USER_TSCONFIG));
  await writeFile(
    join(app, "cjs/src/main.ts"),
    'import { parseTime } from "cloudunits";\nconsole.log(parseTime("2026-10-01"));\n',
  );
  readmeExamples = readmeLibraryExamples(await readFile(join(ROOT, "README.md"), "utf8"));
  for (const [i, example] of readmeExamples.entries()) await writeFile(join(app, `src/readme${i + 1}.ts`), example);
  await writeFile(join(app, "prices.yaml"), await readFile(join(ROOT, "examples/prices.yaml"), "utf8")); // the README's price list
  // the library scripts of examples/, as a user copies them into an app
  await mkdir(join(app, "src/examples"));
  for (const script of EXAMPLE_SCRIPTS)
    await writeFile(join(app, "src/examples", script), await readFile(join(ROOT, "examples", script), "utf8"));
  // A TypeScript app on Node has @types/node; the repo's version is already in npm's cache.
  const typesNode = JSON.parse(await readFile(join(ROOT, "node_modules/@types/node/package.json"), "utf8")) as {
    version: string;
  };
  installed = await timed("install", () =>
    run(
      "npm",
      [
        "install",
        join(dir, tarball),
        `@types/node@${typesNode.version}`,
        "--prefer-offline",
        "--no-audit",
        "--no-fund",
      ],
      app,
    ),
  );
}, 600_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("packing and installing in the repository", () => {
  it("npm run pack packs (above); a plain npm pack is refused, saying to use it", async () => {
    const refused = await run("npm", ["pack", "--dry-run"], ROOT).then(
      () => null,
      (error: Error) => error.message,
    );
    expect(refused).toContain("cloudunits: pack with npm run pack");
  });

  it("npm ci has no install script left unreviewed (npm 11 warned of esbuild's on every install)", async () => {
    const { stdout } = await run("npm", ["install-scripts", "ls"], ROOT);
    expect(stdout.trim()).toBe("No packages with unreviewed install scripts.");
  });
});

describe("the packed package, installed into an empty app", () => {
  it("installs without a warning: its package.json has no scripts (the repo's prepare stays home), and ships no source map that points outside it", async () => {
    expect(`${installed.stdout}\n${installed.stderr}`).not.toMatch(/npm warn/i);
    const installedDir = join(app, "node_modules/cloudunits");
    expect(
      (JSON.parse(await readFile(join(installedDir, "package.json"), "utf8")) as { scripts?: unknown }).scripts,
    ).toBeUndefined();
    const files = (await readdir(installedDir, { recursive: true })).map(String);
    expect(files).toContain("dist/index.js");
    expect(files).toContain("docs/cli.md"); // the README's links work in the installed package
    for (const map of files.filter((f) => f.endsWith(".map"))) {
      const { sources, sourcesContent } = JSON.parse(await readFile(join(installedDir, map), "utf8")) as {
        sources: string[];
        sourcesContent?: string[];
      };
      for (const [i, source] of sources.entries()) {
        const shipped = await readFile(join(installedDir, dirname(map), source), "utf8").then(
          () => true,
          () => false,
        );
        expect(shipped || typeof sourcesContent?.[i] === "string", `${map}: ${source}`).toBe(true);
      }
    }
  });

  it("installs what it needs with no overrides: arquero's @uwdata/flechette is the pinned one", async () => {
    const flechette = JSON.parse(await readFile(join(app, "node_modules/@uwdata/flechette/package.json"), "utf8")) as {
      version: string;
    };
    const pinned = (
      JSON.parse(await readFile(join(ROOT, "package.json"), "utf8")) as { dependencies: Record<string, string> }
    ).dependencies;
    expect(flechette.version).toBe(pinned["@uwdata/flechette"]);
    await expect(
      readFile(join(app, "node_modules/@duckdb/node-bindings-linux-x64/package.json"), "utf8"),
    ).resolves.toContain("1.5.6");
  });

  it("type-checks a script, one of cloudunits/internal and the README's Library examples against the published .d.ts, strict, skipLibCheck false", async () => {
    await timed("typecheck", () => run(process.execPath, [TSC, "-p", app], app));
  }, 300_000);

  it("is ESM only: a CommonJS app fails tsc on its import, naming the file that says so, and require() throws that it is ESM only", async () => {
    const refused = await run(process.execPath, [TSC, "-p", join(app, "cjs")], join(app, "cjs")).then(
      () => "",
      (error: Error) => error.message,
    );
    expect(refused).toMatch(
      /src\/main\.ts\(1,27\): error TS2306: File '.*cloudunits-is-ESM-only\.d\.cts' is not a module/,
    );
    const required = await run(process.execPath, ["-e", 'require("cloudunits")'], join(app, "cjs")).then(
      () => "",
      (error: Error) => error.message,
    );
    expect(required).toContain("cloudunits is an ES module only: load it with import from an ES module");
    expect(required).not.toContain("ERR_PACKAGE_PATH_NOT_EXPORTED");
  }, 300_000);

  it("ships the five font files documents use (no font package installed), and lays text out in them", async () => {
    const dist = join(app, "node_modules/cloudunits/dist");
    const fontDirs = (await readdir(dist, { recursive: true })).map(String).filter((f) => f.endsWith("/fonts"));
    expect(fontDirs).toHaveLength(1); // beside the module that reads them
    const fonts = (await readdir(join(dist, fontDirs[0]!))).sort();
    expect(fonts).toEqual([
      "DejaVuSans-Bold.ttf",
      "DejaVuSans.ttf",
      "DejaVuSansCondensed-Bold.ttf",
      "DejaVuSansCondensed.ttf",
      "LICENSE-dejavu-fonts-ttf",
      "LICENSE-unifontex",
      "unifontex-latin-400-normal.woff",
    ]);
    for (const pkg of ["dejavu-fonts-ttf", "@fontsource/unifontex", "yargs"])
      await expect(readFile(join(app, "node_modules", pkg, "package.json")), pkg).rejects.toThrow();
    const { stdout } = await run(process.execPath, [join(app, "out/internal.js")], app);
    // DejaVu has the Latin, UnifontEX the Japanese
    expect(JSON.parse(stdout)).toEqual({
      limits: "object",
      runs: [
        { font: "regular", text: "Zoë " },
        { font: "fallback", text: "東京" },
      ],
    });
  }, 300_000);

  it("has no unused runtime dependency: each is loaded by dist/ or its declarations, or pins a dependency's own", async () => {
    const installedDir = join(app, "node_modules/cloudunits");
    const { dependencies } = JSON.parse(await readFile(join(installedDir, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    const dist = join(installedDir, "dist");
    const texts = await Promise.all(
      (await readdir(dist, { recursive: true }))
        .map(String)
        .filter((f) => /\.(js|d\.ts)$/.test(f))
        .map((f) => readFile(join(dist, f), "utf8")),
    );
    const pinned = new Set<string>();
    for (const name of Object.keys(dependencies)) {
      const own = JSON.parse(await readFile(join(app, "node_modules", name, "package.json"), "utf8")) as {
        dependencies?: Record<string, string>;
      };
      for (const dep of Object.keys(own.dependencies ?? {})) pinned.add(dep);
    }
    const unused = Object.keys(dependencies).filter(
      (name) =>
        !pinned.has(name) &&
        !texts.some(
          (t) => t.includes(`"${name}"`) || t.includes(`"${name}/`) || t.includes(`"${name.replace("@types/", "")}"`),
        ),
    );
    expect(unused).toEqual([]);
  });

  it("runs the script: its bill, statistics and money are the sources' answers over the same data", async () => {
    const { stdout } = await timed("run", () => run(process.execPath, [join(app, "out/main.js")], app));
    const printed = JSON.parse(stdout) as {
      cuHours: number;
      machineId: number;
      stats: { time: number[]; series: Record<string, unknown> };
      currency: string;
      amount: string;
    };

    const start = parseTime("2026-10-01");
    const end = parseTime("2026-10-02");
    const store = await open([join(app, "october.zip")]);
    try {
      const { account } = await store.calculate({ start, end, accountId: 7 });
      expect(printed.cuHours).toBeGreaterThan(0);
      expect(printed.cuHours).toBe(account.consumption.CU);
      const stats = await store.machineStats({
        machineId: printed.machineId,
        from: start,
        till: end,
        include: ["cpu", "memory"],
      });
      expect(printed.stats.time).toHaveLength(24);
      expect(Object.keys(printed.stats.series).sort()).toEqual(["cpu", "memory"]);
      expect(printed.stats).toEqual(stats);
    } finally {
      store.close();
    }
    const prices = parsePrices({ currency: "EUR", prices: { CU: 0.05 } });
    expect(printed.currency).toBe("EUR");
    expect(printed.amount).toBe(chargeOf("CU", printed.cuHours, 7, prices, DEFAULT_UNITS)?.amount.toFixed(2));
    expect(printed.amount).toMatch(/^\d+\.\d\d$/);
    expect(Math.abs(Number(printed.amount) - printed.cuHours * 0.05)).toBeLessThanOrEqual(0.005 + 1e-9);
  }, 300_000);

  it("installs the command line: `billing` and a report of the shipped reports/ print what the sources print", async () => {
    const bin = join(app, "node_modules/.bin/cloudunits");
    const data = join(app, "october.zip");
    for (const args of [
      ["billing", data, "--start", "2026-10-01", "--end", "2026-10-02", "--account-id", "7", "--format", "json"],
      // the decoding worker, as the built tool starts it
      ["billing", data, "--start", "2026-10-01", "--end", "2026-10-02", "--workers", "1", "--format", "text"],
      ["report", "top-consumers", data, "--format", "csv"],
    ]) {
      const installed = await timed(`cli ${args[0]}`, () => run(bin, args, app));
      const source = await runCli(args);
      expect(source.code).toBe(0);
      expect(installed.stdout.length).toBeGreaterThan(100);
      expect(installed.stdout).toBe(source.stdout);
    }
    // a command's --version is cloudunits', not that of the app's package.json (1.0.0) nearest the working folder
    const { version } = JSON.parse(await readFile(join(ROOT, "package.json"), "utf8")) as { version: string };
    expect(version).not.toBe("1.0.0");
    expect((await run(bin, ["billing", "--version"], app)).stdout.trim()).toBe(version);
  }, 300_000);

  it("ships examples/ with the library scripts, each type-checked above and run here: their figures are the sources' over the same data", async () => {
    const shipped = (await readdir(join(app, "node_modules/cloudunits/examples")))
      .filter((f) => f.endsWith(".ts"))
      .sort();
    expect(shipped).toEqual([...EXAMPLE_SCRIPTS].sort());
    const script = (name: string, ...args: string[]) =>
      timed(`example ${name}`, () => run(process.execPath, [join(app, `out/examples/${name}.js`), ...args], app)).then(
        (r) => r.stdout,
      );
    const data = join(app, "october.zip");
    const pricesFile = join(app, "node_modules/cloudunits/examples/prices.yaml");
    const prices = await loadPrices(pricesFile);
    const store = await open([data]);
    try {
      // month-invoices: a CSV row per invoice line and an amount due per account, those of store.invoice
      const csv = (await script("month-invoices", data, pricesFile, "2026-10"))
        .trim()
        .split("\n")
        .map((row) => row.split(","));
      expect(csv[0]).toEqual([
        "account_id",
        "account_name",
        "unit",
        "quantity",
        "quantity_unit",
        "unit_price",
        "price_unit",
        "amount",
        "currency",
      ]);
      const due = csv.filter((row) => row[2] === "amount due");
      expect(due.map((row) => row[0])).toEqual(["6", "7"]);
      for (const row of due) {
        const invoice = await store.invoice({ ...monthPeriod("2026-10"), accountId: Number(row[0]) }, prices);
        expect(row[7]).toBe(invoice.amountDue.toFixed(2));
        expect(Number(row[7])).toBeGreaterThan(0);
      }
      // cloudspace-cost: each cloud space's share, adding up to the total, which is the accounts' amounts due
      const costs = (await script("cloudspace-cost", data, pricesFile, "2026-10"))
        .trim()
        .split("\n")
        .map((row) => row.split("\t"));
      const total = costs.at(-1)!;
      expect(total[0]).toBe("total");
      expect(total[3]).toBe(due.reduce((a, row) => a.add(Exact.parse(row[7]!)!), Exact.ZERO).toFixed(2));
      const spaces = costs.slice(1, -1);
      expect(spaces).toHaveLength(4); // 2 accounts × 2 cloud spaces
      const costOrder = spaces.map((row) => Exact.parse(row[3]!)!);
      expect(costOrder.every((cost, k) => k === 0 || costOrder[k - 1]!.compare(cost) >= 0)).toBe(true); // largest first
      expect(spaces.reduce((a, row) => a.add(Exact.parse(row[3]!)!), Exact.ZERO).toFixed(2)).toBe(total[3]);
      // busiest-machine: the accounts held and the machine's CPU series, as the store gives them
      const busiest = JSON.parse(await script("busiest-machine", data)) as {
        accounts: { accountId: number; hours: number }[];
        accountId: number;
        machineId: number;
        stats: unknown;
      };
      expect(busiest.accounts).toEqual(
        (await store.accounts()).map((a) => ({ accountId: a.accountId, hours: a.hours, months: a.months })),
      );
      expect(busiest.stats).toEqual(
        await store.machineStats({
          machineId: busiest.machineId,
          accountId: busiest.accountId,
          from: parseTime("2026-10-01"),
          till: parseTime("2026-10-02"),
          include: ["cpu"],
        }),
      );
    } finally {
      store.close();
    }
  }, 300_000);

  it("runs the README's Library examples as written, over october.zip", async () => {
    for (const i of readmeExamples.keys()) {
      await timed(`readme ${i + 1}`, () => run(process.execPath, [join(app, `out/readme${i + 1}.js`)], app));
    }
    console.log(`package check, seconds: ${JSON.stringify(seconds)}`);
  }, 300_000);
});
