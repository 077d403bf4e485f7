// Backfill: a month of 4 accounts × 100 machines (4 cloud spaces × 25) synced from the loopback
// fake of the platform (`sync --since --until`, with --chunk day, week and month) against the
// same month done by hand: `fetch` of each account's month (one zip each), then one `ingest` of
// the four zips. Whole CLI processes from dist/, into a new warehouse each time, run in turn
// (by hand, day, week, month, then again) so a busy machine weighs on all alike; the median of
// the rounds is shown (of an even number, the slower middle one), and each sync's ratio to the
// by-hand figure of the same rounds against the target (issue 20: within 1.5×); the default
// chunk is marked. Load averages before and after are printed: quote them with the figures.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const cli = join(root, "dist/cli/main.js");
const START = 1790812800; // 2026-10-01T00:00Z
const DAYS = 31;
const END = START + DAYS * 24 * 3600;
const ACCOUNTS = 4;
const ROUNDS = Number(process.env.SYNC_BENCH_ROUNDS ?? 2);
const TARGET = 1.5;
const DEFAULT_CHUNK = "day"; // sync's --chunk default (src/cli/commands/sync.ts)
const load = () => loadavg()[0].toFixed(1);
const load0 = load();
const env = { ...process.env, CI: "1", CLOUDUNITS_USERNAME: "user-q8w2e6", CLOUDUNITS_PASSWORD: "pa55-w0rd-x7y1z3" };

const server = spawn(
  process.execPath,
  [
    "--import",
    "tsx",
    join(root, "test/bench/syncServer.ts"),
    String(ACCOUNTS),
    "4",
    "25",
    String(DAYS * 24),
    String(START),
  ],
  {
    cwd: root,
    stdio: ["ignore", "pipe", "inherit"],
  },
);
const url = await new Promise((resolve) => server.stdout.once("data", (d) => resolve(d.toString().trim())));
const dir = mkdtempSync(join(tmpdir(), "cloudunits-bench-sync-"));

/** Runs the CLI commands one after another; returns their wall-clock seconds together. */
function timed(commands) {
  const began = performance.now();
  for (const args of commands) {
    const r = spawnSync(process.execPath, [cli, ...args], { env, encoding: "utf8" });
    if (r.status !== 0) throw new Error(`cloudunits ${args.join(" ")} exited ${r.status}: ${r.stderr}`);
  }
  return (performance.now() - began) / 1000;
}

const ids = Array.from({ length: ACCOUNTS }, (_, i) => i + 1);
const period = ["--start", String(START), "--end", String(END)];
const runs = {
  "fetch + ingest": (n) => {
    const out = join(dir, `hand${n}`) + "/";
    const began = performance.now();
    timed([["fetch", "--url", url, ...ids.flatMap((id) => ["--account-id", String(id)]), ...period, "--out", out]]);
    const zips = readdirSync(out)
      .filter((f) => f.endsWith(".zip"))
      .map((f) => join(out, f));
    if (zips.length !== ACCOUNTS) throw new Error(`fetch wrote ${zips.length} zips, not ${ACCOUNTS}`);
    timed([["ingest", ...zips, "--db", join(dir, `hand${n}.duckdb`)]]);
    return (performance.now() - began) / 1000;
  },
  ...Object.fromEntries(
    ["day", "week", "month"].map((chunk) => [
      `sync --chunk ${chunk}`,
      (n) =>
        timed([
          [
            "sync",
            "--url",
            url,
            "--db",
            join(dir, `${chunk}${n}.duckdb`),
            "--since",
            String(START),
            "--until",
            String(END),
            "--chunk",
            chunk,
          ],
        ]),
    ]),
  ),
};
try {
  const seconds = Object.fromEntries(Object.keys(runs).map((name) => [name, []]));
  for (let n = 0; n < ROUNDS; n++) for (const [name, run] of Object.entries(runs)) seconds[name].push(run(n));
  const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
  const hand = median(seconds["fetch + ingest"]);
  console.log(
    `a month (${DAYS} days) of ${ACCOUNTS} accounts × 100 machines from the loopback fake, ${ROUNDS} rounds in turn, medians; load ${load0} before, ${load()} after:`,
  );
  for (const [name, list] of Object.entries(seconds)) {
    const m = median(list);
    const ratio =
      name === "fetch + ingest"
        ? ""
        : `  ${(m / hand).toFixed(2)}× by hand, target ≤ ${TARGET}×: ${m / hand <= TARGET ? "met" : "NOT met"}`;
    const mark = name === `sync --chunk ${DEFAULT_CHUNK}` ? " (default)" : "";
    console.log(
      `  ${(name + mark).padEnd(28)} ${m.toFixed(1).padStart(6)} s  (${list.map((s) => s.toFixed(1)).join(", ")})${ratio}`,
    );
  }
} finally {
  server.kill();
  rmSync(dir, { recursive: true, force: true });
}
