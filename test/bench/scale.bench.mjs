// A provider's scale, measured: every road a provider uses each day, as whole processes of the
// built CLI, at a size and at a tenth of it in the same run, so each line says how the road grows
// against its data (time ratio ÷ data ratio: 1.0 grows with the data, more grows faster).
//
//   machines  A accounts × 200 machines (4 cloud spaces × 50) × DAYS days (full: 100 × 200 =
//             20,000 machines × 31 days), against A/10 accounts: ingest; billing of the month
//             from the files and from --db (the environment, and every level as CSV); forecast;
//             alerts; top; the dashboard's first pages (`serve` started, then the overview of the
//             month, then an account's page, each the first time).
//   hours     100 accounts × 1 cloud space × 2 machines × YEAR_HOURS hours (full: a year), against
//             a tenth of the hours: ingest, billing from the files and from --db.
//   sync      an hourly `sync` of SYNC accounts (full: 1,000; 1 cloud space × 2 machines each, 4
//             days held) against the loopback fake of the platform, against SYNC/10 accounts.
// One generated day is hard-linked under the later days (as benchData.mjs does with a week), into
// the temp folder, kept between runs (keyed by its shape). Each figure: wall seconds, CPU seconds
// and peak RSS of the process; runs of a road alternate small, big (CLOUDUNITS_SCALE_ROUNDS
// rounds, default 1; medians). It takes long at full scale: the knobs are
//   CLOUDUNITS_SCALE_ACCOUNTS (default 100), CLOUDUNITS_SCALE_DAYS (31), CLOUDUNITS_SCALE_YEAR_HOURS
//   (8760), CLOUDUNITS_SCALE_SYNC (1000), CLOUDUNITS_SCALE_ONLY (machines,hours,sync: the sets to run).
// Load averages are printed before and after: quote them with the figures.
import { spawn, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { CLI, fmt, linkPeriods, median, root, run, START, treeSize, work } from "./benchData.mjs";

const H = 3600;
const ACCOUNTS = Number(process.env.CLOUDUNITS_SCALE_ACCOUNTS ?? 100);
const DAYS = Number(process.env.CLOUDUNITS_SCALE_DAYS ?? 31);
const YEAR_HOURS = Number(process.env.CLOUDUNITS_SCALE_YEAR_HOURS ?? 8760);
const SYNC = Number(process.env.CLOUDUNITS_SCALE_SYNC ?? 1000);
const ROUNDS = Number(process.env.CLOUDUNITS_SCALE_ROUNDS ?? 1);
const ONLY = (process.env.CLOUDUNITS_SCALE_ONLY ?? "machines,hours,sync").split(",");
const MONTH = new Date(START * 1000).toISOString().slice(0, 7); // 2026-10: the days from START
const PRICES = join(root, "examples/prices.yaml");
const cache = join(tmpdir(), "cloudunits-bench-scale");
mkdirSync(cache, { recursive: true });
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");
console.log(
  `scale bench: ${ACCOUNTS} accounts × 200 machines × ${DAYS} days, 100 accounts × 2 machines × ${YEAR_HOURS} hours, sync of ${SYNC} accounts; load ${load()}`,
);

/** `days` days of `shape`: one generated day, hard-linked (or copied) under each later day; made once. */
async function days(shape, n) {
  const key = `a${shape.accounts}-s${shape.spaces}-m${shape.machines}`;
  const day = join(cache, `${key}-day`);
  if (!existsSync(day)) {
    const { writeDataset } = await import(join(root, "dist/index.js"));
    rmSync(`${day}.partial`, { recursive: true, force: true });
    await writeDataset({ out: `${day}.partial`, hours: 24, start: START, seed: 7, ...shape });
    renameSync(`${day}.partial`, day);
  }
  return n === 1 ? day : linkPeriods(day, join(cache, `${key}-days${n}`), n, 24);
}

/** The warehouse of `dir`, ingested once and kept beside it; the ingest's run when it was made now. */
function warehouse(dir) {
  const db = `${dir}.duckdb`;
  if (existsSync(db)) return { db, ingest: undefined };
  rmSync(`${db}.partial`, { force: true });
  const ingest = run([CLI, "ingest", dir, "--db", `${db}.partial`]);
  renameSync(`${db}.partial`, db);
  return { db, ingest };
}

/** One line: the small and big runs' medians, and how the big grows against the data (time ratio ÷ data ratio). */
function line(name, small, big, dataRatio) {
  const m = (list, key) => median(list.map((r) => r[key]));
  const s = { wall: m(small, "wallSeconds"), cpu: m(small, "cpuSeconds"), rss: m(small, "peakRssBytes") / 2 ** 20 };
  const b = { wall: m(big, "wallSeconds"), cpu: m(big, "cpuSeconds"), rss: m(big, "peakRssBytes") / 2 ** 20 };
  const grows = b.cpu / s.cpu / dataRatio;
  const verdict = grows > 1.25 ? "FASTER than the data" : grows < 0.8 ? "slower than the data" : "with the data";
  console.log(
    `  ${name.padEnd(26)} small ${fmt(s.wall).padStart(7)} s, CPU ${fmt(s.cpu).padStart(7)} s, peak ${fmt(s.rss, 0).padStart(5)} MiB | ` +
      `big ${fmt(b.wall).padStart(8)} s, CPU ${fmt(b.cpu).padStart(8)} s, peak ${fmt(b.rss, 0).padStart(5)} MiB | ` +
      `×${fmt(b.wall / s.wall, 1)} wall, ×${fmt(b.cpu / s.cpu, 1)} CPU, ×${fmt(b.rss / s.rss, 2)} peak for ×${fmt(dataRatio, 1)} data: ${fmt(grows)} (${verdict})`,
  );
}

/** Runs each road on the small and big inputs in turn, `ROUNDS` times, and prints its line. */
function compare(name, small, big, dataRatio, options) {
  const runs = { small: [], big: [] };
  for (let i = 0; i < ROUNDS; i++) {
    runs.small.push(run(small, options));
    runs.big.push(run(big, options));
  }
  line(name, runs.small, runs.big, dataRatio);
}

/** A process's CPU seconds and peak RSS from /proc (for `serve`, which runs until stopped). */
function usageOf(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const cpuSeconds = (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in clock ticks (100 a second)
  const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "latin1"));
  return { cpuSeconds, peakRssBytes: Number(hwm?.[1] ?? NaN) * 1024 };
}

/** The dashboard's first pages: `serve` started, the overview of the month, then account 1's page, each the first time. */
async function dashboard(db) {
  const started = performance.now();
  const child = spawn(process.execPath, [CLI, "serve", "--db", db, "--port", "0", "--prices", PRICES], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, CI: "1" },
  });
  try {
    const url = await new Promise((resolve, reject) => {
      let out = "";
      child.stdout.on("data", (d) => {
        out += d.toString();
        const url = /(http:\/\/\S+\/)/.exec(out)?.[1];
        if (url) resolve(url);
      });
      child.on("exit", (code) => reject(new Error(`serve exited ${code}`)));
    });
    const get = async (path) => {
      const r = await fetch(`${url}${path}`);
      await r.arrayBuffer();
      if (r.status !== 200) throw new Error(`GET ${path}: ${r.status}`);
    };
    await get(`?month=${MONTH}`);
    const overview = { wallSeconds: (performance.now() - started) / 1000, ...usageOf(child.pid) };
    const before = performance.now();
    await get(`account/1?month=${MONTH}`);
    const after = usageOf(child.pid);
    const account = {
      wallSeconds: (performance.now() - before) / 1000,
      cpuSeconds: after.cpuSeconds - overview.cpuSeconds,
      peakRssBytes: after.peakRssBytes,
    };
    return { overview, account };
  } finally {
    child.kill("SIGTERM");
  }
}

const machines = () => {
  console.log(
    `\nmachines: ${ACCOUNTS} vs ${Math.max(1, ACCOUNTS / 10)} accounts × 200 machines × ${DAYS} days (${MONTH})`,
  );
  return (async () => {
    const shape = (accounts) => ({ accounts, spaces: 4, machines: 50 });
    const smallDir = await days(shape(Math.max(1, ACCOUNTS / 10)), DAYS);
    const bigDir = await days(shape(ACCOUNTS), DAYS);
    const size = { small: treeSize(smallDir), big: treeSize(bigDir) };
    const ratio = size.big.bytes / size.small.bytes;
    console.log(
      `  data: ${size.small.files} files, ${fmt(size.small.bytes / 1e6, 0)} MB vs ${size.big.files} files, ${fmt(size.big.bytes / 1e6, 0)} MB; load ${load()}`,
    );
    const small = warehouse(smallDir);
    const big = warehouse(bigDir);
    if (small.ingest && big.ingest) line("ingest", [small.ingest], [big.ingest], ratio);
    else
      console.log(
        "  ingest                     (warehouses made by an earlier run: remove them from the temp folder to measure it)",
      );
    const month = ["--month", MONTH];
    compare(
      "billing files, environment",
      [CLI, "billing", smallDir, ...month],
      [CLI, "billing", bigDir, ...month],
      ratio,
    );
    compare(
      "billing files, every level",
      [CLI, "billing", smallDir, ...month, "--format", "csv", "--out", join(work, "s.csv")],
      [CLI, "billing", bigDir, ...month, "--format", "csv", "--out", join(work, "b.csv")],
      ratio,
    );
    compare(
      "billing --db, environment",
      [CLI, "billing", "--db", small.db, ...month],
      [CLI, "billing", "--db", big.db, ...month],
      ratio,
    );
    compare(
      "billing --db, every level",
      [CLI, "billing", "--db", small.db, ...month, "--format", "csv", "--out", join(work, "s.csv")],
      [CLI, "billing", "--db", big.db, ...month, "--format", "csv", "--out", join(work, "b.csv")],
      ratio,
    );
    compare(
      "forecast",
      [CLI, "forecast", "--db", small.db, ...month, "--prices", PRICES],
      [CLI, "forecast", "--db", big.db, ...month, "--prices", PRICES],
      ratio,
    );
    const budgets = join(work, "budgets.yaml");
    writeFileSync(
      budgets,
      "budgets:\n  - environment: true\n    amount: 100000\n  - account: 1\n    amount: 1000\n    thresholds: [50, 80, 100]\n",
    );
    const alerts = (db) => [CLI, "alerts", "--db", db, "--budgets", budgets, "--prices", PRICES, "--format", "json"];
    compare("alerts", alerts(small.db), alerts(big.db), ratio, { codes: [0, 7] });
    compare("top", [CLI, "top", "--db", small.db, ...month], [CLI, "top", "--db", big.db, ...month], ratio);
    const pages = { small: [], big: [] };
    for (let i = 0; i < ROUNDS; i++) {
      pages.small.push(await dashboard(small.db));
      pages.big.push(await dashboard(big.db));
    }
    line(
      "dashboard: start, overview",
      pages.small.map((p) => p.overview),
      pages.big.map((p) => p.overview),
      ratio,
    );
    line(
      "dashboard: then an account",
      pages.small.map((p) => p.account),
      pages.big.map((p) => p.account),
      ratio,
    );
  })();
};

const hours = async () => {
  const small = Math.max(24, Math.round(YEAR_HOURS / 10 / 24) * 24);
  console.log(`\nhours: 100 accounts × 2 machines × ${YEAR_HOURS} vs ${small} hours`);
  const shape = { accounts: 100, spaces: 1, machines: 2 };
  const smallDir = await days(shape, small / 24);
  const bigDir = await days(shape, YEAR_HOURS / 24);
  const size = { small: treeSize(smallDir), big: treeSize(bigDir) };
  const ratio = size.big.bytes / size.small.bytes;
  console.log(
    `  data: ${size.small.files} files, ${fmt(size.small.bytes / 1e6, 0)} MB vs ${size.big.files} files, ${fmt(size.big.bytes / 1e6, 0)} MB; load ${load()}`,
  );
  const s = warehouse(smallDir);
  const b = warehouse(bigDir);
  if (s.ingest && b.ingest) line("ingest", [s.ingest], [b.ingest], ratio);
  const period = (n) => ["--start", String(START), "--end", String(START + n * H)];
  compare(
    "billing files, environment",
    [CLI, "billing", smallDir, ...period(small)],
    [CLI, "billing", bigDir, ...period(YEAR_HOURS)],
    ratio,
  );
  compare(
    "billing --db, environment",
    [CLI, "billing", "--db", s.db, ...period(small)],
    [CLI, "billing", "--db", b.db, ...period(YEAR_HOURS)],
    ratio,
  );
};

/** The loopback fake of the platform: `accounts` × 1 cloud space × 2 machines, `hours` hours from START, in its own process. */
async function platform(accounts, hours) {
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      join(root, "test/bench/syncServer.ts"),
      String(accounts),
      "1",
      "2",
      String(hours),
      String(START),
    ],
    {
      cwd: root,
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const url = await new Promise((resolve) => child.stdout.once("data", (d) => resolve(d.toString().trim())));
  return { url, stop: () => child.kill() };
}

const syncs = async () => {
  const HOURS = 4 * 24;
  const UNTIL = START + HOURS * H;
  const sizes = [Math.max(1, SYNC / 10), SYNC];
  console.log(`\nsync: an hourly run of ${sizes[1]} vs ${sizes[0]} accounts × 2 machines, ${HOURS - 1} hours held`);
  const env = { CLOUDUNITS_USERNAME: "user-q8w2e6", CLOUDUNITS_PASSWORD: "pa55-w0rd-x7y1z3" };
  Object.assign(process.env, env);
  const servers = [];
  try {
    const runs = {};
    for (const n of sizes) {
      const server = await platform(n, HOURS);
      servers.push(server);
      const held = join(work, `sync-${n}.duckdb`);
      // the warehouse synced to the hour before: a month per download, one download per account
      const began = performance.now();
      const prep = spawnSync(
        process.execPath,
        [
          CLI,
          "sync",
          "--url",
          server.url,
          "--db",
          held,
          "--since",
          String(START),
          "--until",
          String(UNTIL - H),
          "--chunk",
          "month",
        ],
        { env: { ...process.env, CI: "1" }, encoding: "utf8" },
      );
      if (prep.status !== 0) throw new Error(`sync of ${n} accounts failed: ${prep.stderr}`);
      console.log(
        `  (${n} accounts × ${HOURS - 1} hours synced by one backfill in ${fmt((performance.now() - began) / 1000, 0)} s; load ${load()})`,
      );
      runs[n] = { server, held, list: [] };
    }
    for (let i = 0; i < ROUNDS; i++) {
      for (const n of sizes) {
        const { server, held, list } = runs[n];
        const db = join(work, "sync-run.duckdb");
        copyFileSync(held, db);
        list.push(run([CLI, "sync", "--url", server.url, "--db", db, "--until", String(UNTIL), "--format", "json"]));
        const report = JSON.parse(list.at(-1).stdout);
        const loaded = report.accounts.reduce((sum, a) => sum + a.accountHoursLoaded, 0);
        if (loaded !== n)
          throw new Error(`the hourly sync of ${n} accounts loaded ${loaded} account-hours, not one each`);
        rmSync(db, { force: true });
      }
    }
    line("sync, an hour", runs[sizes[0]].list, runs[sizes[1]].list, sizes[1] / sizes[0]);
  } finally {
    for (const s of servers) s.stop();
  }
};

try {
  if (ONLY.includes("machines")) await machines();
  if (ONLY.includes("hours")) await hours();
  if (ONLY.includes("sync")) await syncs();
  console.log(`\nload ${load()} after`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
