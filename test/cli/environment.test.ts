import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateHours, writeDataset } from "../../src/index.js";
import { fakePlatform } from "../fetch/fakePlatform.js";
import { SECRETS, startServer, type FakeServer } from "../fetch/fakeService.js";
import { canMount, withRefusingFolder } from "../helpers/refusingDisk.js";
import { CLI, runCli, type CliRun } from "../helpers/runCli.js";

// Exit 8: the machine refused a write. Every command that writes says so in one line naming the
// path and that nothing committed was lost, never as a bug (exit 1, a stack) nor as bad usage (2).

let dir: string;
let data: string;
let server: FakeServer;
const SESSION = ["--username", SECRETS.username];
const PASSWORD = { CLOUDUNITS_PASSWORD: SECRETS.password };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cloudunits-environment-"));
  data = join(dir, "data.zip");
  await writeDataset({ out: data, accounts: 2, hours: 30, seed: 5 });
  server = await startServer(fakePlatform({ hours: [...generateHours({ accounts: 2, hours: 30, seed: 5 })] }));
}, 60_000);
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The commands that write, each into `folder`. */
const writers = (folder: string): [string, string[], string][] => [
  [
    "ingest",
    ["ingest", data, "--db", join(folder, "new.duckdb"), "--batch-mb", "0.05", "--workers", "0"],
    join(folder, "new.duckdb"),
  ],
  [
    "billing --out",
    [
      "billing",
      data,
      "--start",
      "2026-10-01",
      "--end",
      "2026-10-02T06:00",
      "--per",
      "hour",
      "--format",
      "csv",
      "--out",
      join(folder, "bill.csv"),
    ],
    join(folder, "bill.csv"),
  ],
  [
    "report --out",
    ["report", "top-consumers", data, "--format", "json", "--out", join(folder, "top.json")],
    join(folder, "top.json"),
  ],
  [
    "stats --out",
    [
      "stats",
      "account",
      "--id",
      "1",
      "--from",
      "2026-10-01",
      "--till",
      "2026-10-02",
      "--include",
      "cpu",
      data,
      "--format",
      "csv",
      "--out",
      join(folder, "stats.csv"),
    ],
    join(folder, "stats.csv"),
  ],
  ["export", ["export", data, "--format", "parquet", "--out", join(folder, "parquet")], join(folder, "parquet")],
  [
    "generate",
    ["generate", "--out", join(folder, "generated"), "--accounts", "3", "--hours", "48"],
    join(folder, "generated"),
  ],
  [
    "fetch",
    [
      "fetch",
      "--url",
      server.url,
      "--account-id",
      "1",
      "--start",
      "2026-10-01",
      "--end",
      "2026-10-02",
      "--out",
      join(folder, "dl") + "/",
      ...SESSION,
    ],
    join(folder, "dl"),
  ],
];

/** Shell lines that make a warehouse of 2 account-hours at `held`. */
const setupHeld = (held: string) => [
  `${process.execPath} ${CLI} generate --out ${held}.zip --accounts 1 --hours 2 >/dev/null 2>&1`,
  `${process.execPath} ${CLI} ingest ${held}.zip --db ${held} 2>/dev/null`,
  `rm ${held}.zip`,
];

/** One line on stderr naming the path and the failure, saying nothing committed was lost; no stack, no nesting. */
function expectOneLine(run: CliRun, path: string, failure: RegExp, what: string): void {
  expect(run.code, `${what}: ${run.stderr}`).toBe(8);
  const lines = run.stderr.trimEnd().split("\n");
  expect(lines, `${what}: ${run.stderr}`).toHaveLength(1);
  expect(lines[0]).toMatch(
    new RegExp(`^cloudunits: cannot (write|use) ${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\S*: `),
  );
  expect(lines[0]).toMatch(failure);
  expect(lines[0]).toContain("nothing committed was lost");
  expect(lines[0].match(/cannot (write|use)/g)).toHaveLength(1); // said once, never nested in itself
}

describe("a full disk", () => {
  it("every command that writes exits 8 with one line naming the path; the warehouse keeps its commits", async () => {
    const folder = join(dir, "full");
    const held = join(folder, "held.duckdb");
    const list: [string, string[], string][] = [
      [
        "ingest into a warehouse already there",
        ["ingest", data, "--db", held, "--batch-mb", "0.05", "--workers", "0"],
        held,
      ],
      ...writers(folder),
    ];
    const runs = await withRefusingFolder(
      folder,
      { kind: "full", freeKib: 1 },
      setupHeld(held),
      list.map(([, args]) => args),
      { keep: [`cp ${held} ${dir}/left.duckdb`], env: PASSWORD },
    );
    for (const [i, [what, , path]] of list.entries())
      expectOneLine(runs[i]!, path, /no space left on the device/, what);
    // "nothing committed was lost": the warehouse the full disk stopped opens, with its hours and whole batches of the new ones
    const left = await runCli(["check", "--db", join(dir, "left.duckdb"), "--format", "json"]);
    expect(left.code, left.stderr).toBe(0);
    const report = JSON.parse(left.stdout) as { readable: boolean; accounts: { accountId: number; hours: number }[] };
    expect(report.readable).toBe(true);
    expect(report.accounts.reduce((n, a) => n + a.hours, 0)).toBeGreaterThanOrEqual(2);
  }, 180_000);
});

describe("a write cut short", () => {
  it("a report the disk takes only part of is an error (exit 8), never a cut file and exit 0", async () => {
    // a file size limit takes the first KiB and cuts the write short (as a filling disk does) before it refuses
    const out = join(dir, "cut.csv");
    const run = await new Promise<CliRun>((resolve) => {
      execFile(
        "bash",
        [
          "-c",
          `trap '' XFSZ; ulimit -f 1; exec ${process.execPath} ${CLI} billing ${data} --start 2026-10-01 --end 2026-10-02T06:00 --per hour --format csv --out ${out}`,
        ],
        { env: { ...process.env, CI: "1" } },
        (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
      );
    });
    expectOneLine(run, out, /no space left on the device/, "billing --out");
    expect(existsSync(out)).toBe(false);
  }, 60_000);
});

describe.skipIf(!canMount && process.getuid?.() === 0)("a read-only folder", () => {
  it("every command that writes exits 8 (not 2) with one line naming the path; a warehouse already there too", async () => {
    const folder = join(dir, "ro");
    const held = join(folder, "held.duckdb");
    const list: [string, string[], string][] = [
      ...writers(folder),
      ["ingest into a warehouse already there", ["ingest", data, "--db", held], held],
      ["sync", ["sync", "--url", server.url, "--db", held, "--until", "2026-10-02", ...SESSION], held],
    ];
    const runs = await withRefusingFolder(
      folder,
      { kind: "read-only" },
      setupHeld(held),
      list.map(([, args]) => args),
      { env: PASSWORD },
    );
    for (const [i, [what, , path]] of list.entries())
      expectOneLine(runs[i]!, path, canMount ? /the file system is read-only/ : /permission denied/, what);
  }, 180_000);
});

describe.skipIf(!canMount)("a write-ahead log a reader replays beyond its memory cap", () => {
  it.each([
    [
      "a full disk: nowhere to spill, exit 8 with the one line sync gives (not 2 with DuckDB's words)",
      { kind: "full", freeKib: 1 } as const,
      /no space left on the device/,
    ],
    ["a read-only folder: they spill under TMPDIR and read it (exit 0)", { kind: "read-only" } as const, undefined],
  ])(
    "check and billing --db on %s; status, uncapped, reads it",
    async (name, refusal, failure) => {
      const folder = join(dir, `wal-${refusal.kind}`);
      const held = join(folder, "held.duckdb");
      // a writer killed before its checkpoint leaves its commits in the log (some 90 MB of rows here),
      // which a reader replays on opening, beyond its memory cap into temporary files beside the file (TMPDIR's when the folder is read-only)
      const writer = join(dir, `killedWriter-${refusal.kind}.mjs`);
      writeFileSync(
        writer,
        [
          `import { DuckDBInstance } from ${JSON.stringify(createRequire(import.meta.url).resolve("@duckdb/node-api"))};`,
          "const connection = await (await DuckDBInstance.create(process.argv[2])).connect();",
          "await connection.run(\"SET checkpoint_threshold = '100GB'\");",
          "await connection.run('CREATE TABLE kept (x BIGINT, y VARCHAR)');",
          "for (let k = 0; k < 20; k++) await connection.run(`INSERT INTO kept SELECT range, md5(range::VARCHAR) || md5((range + 1)::VARCHAR) FROM range(${k * 60000}, ${(k + 1) * 60000})`);",
          "process.kill(process.pid, 'SIGKILL');",
        ].join("\n"),
      );
      const setup = [...setupHeld(held), `${process.execPath} ${writer} ${held} || true`, `test -s ${held}.wal`];
      const readers: string[][] = [
        ["check", "--db", held],
        ["billing", "--db", held, "--start", "2026-10-01", "--end", "2026-10-02"],
        ["status", "--db", held],
      ];
      const [check, billing, status] = await withRefusingFolder(folder, refusal, setup, readers, { setupMib: 160 });
      if (failure) {
        expectOneLine(check!, held, failure, `check --db on ${name}`);
        expectOneLine(billing!, held, failure, `billing --db on ${name}`);
      } else {
        // a read-only folder: the reader spills under TMPDIR instead of beside the file, and reads
        expect(check!.code, check!.stderr).toBe(0);
        expect(billing!.code, billing!.stderr).toBe(0);
        // the figures of the same 2 generated account-hours billed from their files
        const again = join(dir, "held-again.zip");
        expect((await runCli(["generate", "--out", again, "--accounts", "1", "--hours", "2"])).code).toBe(0);
        const fromFiles = await runCli(["billing", again, "--start", "2026-10-01", "--end", "2026-10-02"]);
        expect(fromFiles.code, fromFiles.stderr).toBe(0);
        expect(billing!.stdout).toBe(fromFiles.stdout);
      }
      expect([0, 7], status!.stderr).toContain(status!.code);
      expect(status!.stdout).toContain("2 account-hours");
    },
    180_000,
  );
});
