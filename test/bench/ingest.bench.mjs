// Warehouse loading, measured in one run on generated data (a week of 10 accounts × 200
// machines, about 100 MB of Cap'n Proto):
// 1. `ingest` into a .duckdb file: MB/s of input, end to end (read, hash, decode on workers,
//    append, commit);
//    (billing as a user runs it, against the capnp-es peer, is billing.bench.mjs);
// 2. peak RSS of ingest for four input sizes (3, 7, 14 and 28 days) and of an in-memory load
//    for two (3 and 7 days), each in its own process.
// Figures are per wall-clock second and per CPU second of the process (all its threads),
// so a busy machine shows in the wall-clock figures only. Each timed part runs in a fresh
// process, as a command would (not in this one, whose heap holds the generated data), three
// times in turn, and the median is shown.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const dist = pathToFileURL(join(root, "dist/internal.js")).href;
const START = 1790812800; // 2026-10-01T00:00Z

function treeBytes(dir) {
  let bytes = 0;
  let files = 0;
  const walk = (d) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, entry.name);
      if (entry.isDirectory()) walk(p);
      else {
        bytes += statSync(p).size;
        files++;
      }
    }
  };
  walk(dir);
  return { bytes, files };
}

// --- measurements in child processes ------------------------------------------------------------
/** Runs `body` (an async function body that returns a JSON-able result) in a fresh process; returns its result, wall and CPU seconds, peak RSS. */
function inChild(dir, name, body) {
  const file = join(dir, `${name}.mjs`);
  writeFileSync(file, `
    const api = await import(${JSON.stringify(dist)});
    const { BILLING_COLUMNS, BILLING_TABLES } = await import(${JSON.stringify(pathToFileURL(join(root, "dist/billing/warehouseFacts.js")).href)});
    const cpu = process.cpuUsage();
    const wall = performance.now();
    const result = await (async () => { ${body} })();
    const used = process.cpuUsage(cpu);
    process.stdout.write(JSON.stringify({ result, wallSeconds: (performance.now() - wall) / 1000, cpuSeconds: (used.user + used.system) / 1e6,
      peakRssMb: process.resourceUsage().maxRSS * 1024 / 1e6 }));`);
  const r = spawnSync(process.execPath, [file], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`bench child ${name} failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/** Runs each of `runs` (name → body) `times` times, in turn; returns name → the run with the median wall-clock time. */
function medians(dir, runs, times = 3) {
  const all = Object.fromEntries(Object.keys(runs).map((name) => [name, []]));
  for (let i = 0; i < times; i++) for (const [name, body] of Object.entries(runs)) all[name].push(inChild(dir, name, body));
  return Object.fromEntries(Object.entries(all).map(([name, list]) => [name, list.sort((x, y) => x.wallSeconds - y.wallSeconds)[Math.floor(list.length / 2)]]));
}

const mb = (bytes) => bytes / 1e6;
const { writeDataset } = await import(dist);
const dir = mkdtempSync(join(tmpdir(), "cloudunits-bench-ingest-"));
try {
  const week = join(dir, "week");
  const days3 = join(dir, "days3");
  const days14 = join(dir, "days14");
  const days28 = join(dir, "days28");
  const shape = { accounts: 10, spaces: 4, machines: 50, start: START, seed: 7 };
  await writeDataset({ out: week, hours: 168, ...shape });
  await writeDataset({ out: days3, hours: 72, ...shape });
  const weekSize = treeBytes(week);
  const days3Size = treeBytes(days3);
  console.log(`data set: a week of 10 accounts × 200 machines, ${weekSize.files} files, ${mb(weekSize.bytes).toFixed(1)} MB`);

  // 1. ingest
  const runs = medians(dir, {
    ingest: `const { rmSync } = await import("node:fs"); const db = ${JSON.stringify(join(dir, "week.duckdb"))};
      rmSync(db, { force: true }); await api.ingest([${JSON.stringify(week)}], { db });`,
  });
  const ing = runs.ingest;
  console.log(
    `ingest       ${(mb(weekSize.bytes) / ing.wallSeconds).toFixed(1).padStart(6)} MB/s wall clock, ` +
      `${(mb(weekSize.bytes) / ing.cpuSeconds).toFixed(1)} MB per CPU second (${ing.wallSeconds.toFixed(2)} s, ${ing.cpuSeconds.toFixed(2)} CPU s; target ≥ 50 MB/s)`,
  );

  // 2. peak RSS vs input size (the 14- and 28-day sets are written only now, so they weigh on nothing above)
  await writeDataset({ out: days14, hours: 336, ...shape });
  await writeDataset({ out: days28, hours: 672, ...shape });
  const days14Size = treeBytes(days14);
  const days28Size = treeBytes(days28);
  const rss = [
    ["ingest", days3, days3Size], ["ingest", week, weekSize], ["ingest", days14, days14Size], ["ingest", days28, days28Size],
    ["in-memory load", days3, days3Size], ["in-memory load", week, weekSize],
  ].map(([kind, input, size], i) => {
    const body = kind === "ingest"
      ? `await api.ingest([${JSON.stringify(input)}], { db: ${JSON.stringify(join(dir, `rss${i}.duckdb`))} });`
      : `(await api.openWarehouse([${JSON.stringify(input)}], { tables: BILLING_TABLES, columns: BILLING_COLUMNS })).close();`;
    return { kind, size, peak: inChild(dir, `rss${i}`, body).peakRssMb };
  });
  for (const r of rss) console.log(`peak RSS     ${r.kind.padEnd(15)} ${mb(r.size.bytes).toFixed(0).padStart(4)} MB input: ${r.peak.toFixed(0)} MB`);
  const growth = (kind) => {
    const runs = rss.filter((r) => r.kind === kind);
    return `${kind}: ` + runs.slice(1).map((big, i) => {
      const small = runs[i];
      return `input ×${(big.size.bytes / small.size.bytes).toFixed(1)} → peak RSS ×${(big.peak / small.peak).toFixed(2)}`;
    }).join(", then ");
  };
  console.log(`             ${growth("ingest")}; ${growth("in-memory load")} (the in-memory tables themselves grow with the data)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
