// What sync's cadences cost an hourly run of 100 accounts (1 cloud space × 2 machines each, a
// month held), from the loopback fake of the platform, as whole CLI processes from dist/:
//   plain        an hourly run of a warehouse missing nothing (the baseline);
//   no retention the same with --retention 72 (the look-back): what never giving up costs when nothing is missing;
//   holes, waiting  an hourly run of a warehouse missing one hour per account 10 days back, its daily asking not due;
//   holes, asked    the same run when it is due (once a day): one more download per account;
//   --verify 7   the nightly verification of the recipe (the held hours of 7 days downloaded and compared);
//   --verify 35  the one before the month is billed (once a month).
// Each run starts from a copy of the same warehouse, synced to the hour before; runs go in turn,
// ROUNDS times, so a busy machine weighs on all alike; medians. Printed: seconds, downloads and
// bytes of each, its ratio to the plain run, and what it adds to an hourly run over a day or a
// month at the recipe's cadence. Load averages before and after: quote them with the figures.
import { spawn, spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const cli = join(root, "dist/cli/main.js");
const H = 3600;
const START = 1790812800; // 2026-10-01T00:00Z
const HOURS = 31 * 24;
const ACCOUNTS = Number(process.env.CADENCE_BENCH_ACCOUNTS ?? 100); // each run's work is per account: fewer on a busy machine, the ratios stay
const UNTIL = START + HOURS * H; // the measured runs' hour; the warehouses are synced to the hour before
const HOLE = UNTIL - 10 * 24 * H; // never written, of every account: older than the 72-hour look-back
const ROUNDS = Number(process.env.CADENCE_BENCH_ROUNDS ?? 3);
const load = () => loadavg()[0].toFixed(1);
const load0 = load();
const env = { ...process.env, CI: "1", CLOUDUNITS_USERNAME: "user-q8w2e6", CLOUDUNITS_PASSWORD: "pa55-w0rd-x7y1z3" };

/** A loopback platform of the accounts in its own process; `holes`: hours it never writes. */
async function platform(...holes) {
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      join(root, "test/bench/syncServer.ts"),
      String(ACCOUNTS),
      "1",
      "2",
      String(HOURS),
      String(START),
      ...holes.map(String),
    ],
    {
      cwd: root,
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const url = await new Promise((resolve) => child.stdout.once("data", (d) => resolve(d.toString().trim())));
  return { url, stop: () => child.kill() };
}

/** Runs a sync; its wall-clock seconds and what it downloaded. */
function sync(url, db, ...more) {
  const began = performance.now();
  const r = spawnSync(process.execPath, [cli, "sync", "--url", url, "--db", db, "--format", "json", ...more], {
    env,
    encoding: "utf8",
    maxBuffer: 256 << 20,
  });
  const seconds = (performance.now() - began) / 1000;
  if (r.status !== 0) throw new Error(`sync ${more.join(" ")} exited ${r.status}: ${r.stderr}`);
  const report = JSON.parse(r.stdout);
  return {
    seconds,
    chunks: report.accounts.reduce((n, a) => n + a.chunks, 0),
    bytes: report.accounts.reduce((n, a) => n + a.bytes, 0),
    missingAsked: report.accounts.reduce((n, a) => n + a.missingAsked, 0),
    loaded: report.accounts.reduce((n, a) => n + a.accountHoursLoaded, 0),
  };
}

const dir = mkdtempSync(join(tmpdir(), "cloudunits-bench-cadence-"));
const full = await platform();
const holey = await platform(HOLE);
try {
  // the warehouses: a month synced to the hour before, whole or missing the hole; the holey one's missing hours just asked
  const whole = join(dir, "whole.duckdb");
  const holed = join(dir, "holed.duckdb");
  const began = performance.now();
  // (a month per download: 100 downloads, not 3,100; the measured runs ask by the day, the default)
  sync(full.url, whole, "--since", String(START), "--until", String(UNTIL - H), "--chunk", "month");
  sync(holey.url, holed, "--since", String(START), "--until", String(UNTIL - H), "--chunk", "month");
  // a backfill asks the hole as a new hour, and marks no asking of the missing hours: the run after it does
  const asked = sync(holey.url, holed, "--until", String(UNTIL - H));
  // the figures of the holed runs mean something only if the hole is missing there
  if (asked.missingAsked !== ACCOUNTS || asked.loaded !== 0)
    throw new Error(`the holed warehouse is not missing its hole: ${JSON.stringify(asked)}`);
  console.log(
    `two warehouses of ${ACCOUNTS} accounts × ${HOURS} hours synced in ${((performance.now() - began) / 1000).toFixed(0)} s`,
  );

  const until = ["--until", String(UNTIL)];
  const runs = {
    plain: () => [whole, ...until],
    "no retention": () => [whole, ...until, "--retention", "72"],
    "holes, waiting": () => [holed, ...until],
    "holes, asked": () => [holed, ...until, "--ask-missing-every", "1"],
    "--verify 7": () => [whole, ...until, "--verify", "7"],
    "--verify 35": () => [whole, ...until, "--verify", "35"],
  };
  const results = Object.fromEntries(Object.keys(runs).map((name) => [name, []]));
  for (let n = 0; n < ROUNDS; n++) {
    for (const [name, args] of Object.entries(runs)) {
      const [source, ...more] = args();
      const db = join(dir, "run.duckdb");
      copyFileSync(source, db);
      const result = sync(holey.url, db, ...more);
      results[name].push(result);
      // as it goes, so a run cut short still says what it measured
      console.log(
        `  round ${n + 1} ${name.padEnd(15)} ${result.seconds.toFixed(2).padStart(7)} s  ${String(result.chunks).padStart(5)} downloads  load ${load()}`,
      );
    }
  }
  const median = (list) => {
    const sorted = [...list].sort((a, b) => a - b);
    const middle = Math.floor(sorted.length / 2);
    return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  };
  const m = Object.fromEntries(
    Object.entries(results).map(([name, list]) => [name, { ...list[0], seconds: median(list.map((r) => r.seconds)) }]),
  );
  const plain = m.plain.seconds;
  console.log(
    `an hourly run of ${ACCOUNTS} accounts, ${ROUNDS} rounds in turn, medians; load ${load0} before, ${load()} after:`,
  );
  for (const [name, r] of Object.entries(m)) {
    console.log(
      `  ${name.padEnd(15)} ${r.seconds.toFixed(2).padStart(6)} s  ${String(r.chunks).padStart(5)} downloads ${(r.bytes / 1e6).toFixed(1).padStart(6)} MB  ${(r.seconds / plain).toFixed(2)}× plain  (${results[name].map((x) => x.seconds.toFixed(2)).join(", ")})`,
    );
  }
  const perHour = (extra, runs) => `+${((extra / runs / plain) * 100).toFixed(1)}% of a plain hourly run`;
  console.log("at the recipe's cadences, what each adds to an hourly run:");
  console.log(
    `  missing hours older than the look-back, asked once a day: ${perHour(23 * (m["holes, waiting"].seconds - plain) + (m["holes, asked"].seconds - plain), 24)} (with one hour missing per account)`,
  );
  console.log(`  never giving up, when nothing is missing: ${perHour(m.plain.seconds - m["no retention"].seconds, 1)}`);
  console.log(`  --verify 7 every night: ${perHour(m["--verify 7"].seconds - plain, 24)}`);
  console.log(`  --verify 35 once a month: ${perHour(m["--verify 35"].seconds - plain, 30 * 24)}`);
} finally {
  full.stop();
  holey.stop();
  rmSync(dir, { recursive: true, force: true });
}
