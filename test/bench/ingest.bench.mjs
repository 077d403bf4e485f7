// Warehouse loading, measured in one run on generated data (a week of 10 accounts × 200
// machines, about 100 MB of Cap'n Proto):
// 1. `ingest` into a .duckdb file: MB/s of input, end to end (read, hash, decode on workers,
//    append, commit);
// 2. `billing` straight from the files, as the command computes it (load the columns billing
//    reads in memory, then the billing report of the week: every level, data quality, CSV)
//    vs decoding the same files with capnp-es alone (read + decode, every field
//    materialized): target ≥ 10×; then, for reference, billing/calculate for the environment
//    and each of the 10 accounts on the loaded tables;
// 3. peak RSS of ingest for four input sizes (3, 7, 14 and 28 days) and of an in-memory load
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
const dist = pathToFileURL(join(root, "dist/index.js")).href;
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
    const { BILLING_COLUMNS, BILLING_TABLES } = await import(${JSON.stringify(pathToFileURL(join(root, "dist/billing/billingCtes.js")).href)});
    const { capnpEsDecoder } = await import(${JSON.stringify(pathToFileURL(join(root, "test/bench/capnpEs.mjs")).href)});
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

  // 1. ingest, 2. billing from the files (the report, then calculate for reference), capnp-es decoding alone
  const week_ = JSON.stringify(week);
  const period = JSON.stringify({ start: START, end: START + 168 * 3600 });
  const runs = medians(dir, {
    ingest: `const { rmSync } = await import("node:fs"); const db = ${JSON.stringify(join(dir, "week.duckdb"))};
      rmSync(db, { force: true }); await api.ingest([${week_}], { db });`,
    billing: `const store = await api.open([${week_}], { tables: BILLING_TABLES, columns: BILLING_COLUMNS });
      const loaded = performance.now();
      const r = await api.billingReport(store.connection, ${period}, {}, { load: store.load });
      let chars = 0;
      for await (const chunk of api.toBillingCsv(r)) chars += chunk.length;
      const reported = performance.now();
      const reportedCpu = process.cpuUsage(cpu);
      await store.calculate(${period});
      for (let accountId = 1; accountId <= 10; accountId++) await store.calculate({ ...${period}, accountId });
      const calculated = performance.now();
      store.close();
      return { lines: r.lines.length, chars, loadSeconds: (loaded - wall) / 1000, reportSeconds: (reported - loaded) / 1000,
        billingCpuSeconds: (reportedCpu.user + reportedCpu.system) / 1e6, calculateSeconds: (calculated - reported) / 1000 };`,
    capnpEs: `const { readFileSync, readdirSync } = await import("node:fs");
      const { join } = await import("node:path");
      const decode = await capnpEsDecoder(${JSON.stringify(dir)});
      const files = [];
      const walk = (d) => { for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) e.isDirectory() ? walk(join(d, e.name)) : files.push(join(d, e.name)); };
      walk(${week_});
      const cpu0 = process.cpuUsage(); const wall0 = performance.now();
      let machines = 0;
      for (const file of files) for (const cs of decode(new Uint8Array(readFileSync(file))).cloudspaces) machines += cs.machines.length;
      const used = process.cpuUsage(cpu0);
      return { machines, decodeSeconds: (performance.now() - wall0) / 1000, decodeCpuSeconds: (used.user + used.system) / 1e6 };`,
  });
  const ing = runs.ingest;
  console.log(
    `ingest       ${(mb(weekSize.bytes) / ing.wallSeconds).toFixed(1).padStart(6)} MB/s wall clock, ` +
      `${(mb(weekSize.bytes) / ing.cpuSeconds).toFixed(1)} MB per CPU second (${ing.wallSeconds.toFixed(2)} s, ${ing.cpuSeconds.toFixed(2)} CPU s; target ≥ 50 MB/s)`,
  );
  const b = runs.billing.result;
  // The billing figure is the load and the report: what `cloudunits billing` computes.
  const billingWall = b.loadSeconds + b.reportSeconds;
  const billingCpu = b.billingCpuSeconds;
  const es = { wallSeconds: runs.capnpEs.result.decodeSeconds, cpuSeconds: runs.capnpEs.result.decodeCpuSeconds };
  console.log(
    `billing from files  ${billingWall.toFixed(2)} s wall clock, ${billingCpu.toFixed(2)} CPU s ` +
      `(load ${b.loadSeconds.toFixed(2)} s, then the report, ${b.lines} lines, ${(b.chars / 1e3).toFixed(0)} kB of CSV: ${b.reportSeconds.toFixed(2)} s)`,
  );
  console.log(`capnp-es decode     ${es.wallSeconds.toFixed(2)} s wall clock, ${es.cpuSeconds.toFixed(2)} CPU s (read + decode only)`);
  console.log(
    `ratio        ${(es.wallSeconds / billingWall).toFixed(1)}× wall clock, ${(es.cpuSeconds / billingCpu).toFixed(1)}× per CPU second ` +
      `(billing vs capnp-es decoding alone; target ≥ 10×)`,
  );
  console.log(`calculate    for the environment and each of 10 accounts on the loaded tables: ${b.calculateSeconds.toFixed(2)} s`);

  // 3. peak RSS vs input size (the 14- and 28-day sets are written only now, so they weigh on nothing above)
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
