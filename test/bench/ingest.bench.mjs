// Warehouse loading, measured in one run on generated data (a week of 10 accounts × 200
// machines, about 100 MB of Cap'n Proto):
// 1. `ingest` into a .duckdb file: MB/s of input, end to end (read, hash, decode on workers,
//    append, commit);
// 2. `billing` straight from the files, as the command computes it (load the columns billing
//    reads in memory, then the billing report of the week: every level, data quality, CSV)
//    vs decoding the same files with capnp-es alone (read + decode, every field
//    materialized): target ≥ 10×; then, for reference, billing/calculate for the environment
//    and each of the 10 accounts on the loaded tables;
// 3. peak RSS of ingest for three input sizes (3, 7 and 14 days) and of an in-memory load for
//    two (3 and 7 days), each in its own process.
// Figures are per wall-clock second and per CPU second of the process (all its threads),
// so a busy machine shows in the wall-clock figures only.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { capnpEsDecoder } from "./capnpEs.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const dist = pathToFileURL(join(root, "dist/index.js")).href;
const START = 1790812800; // 2026-10-01T00:00Z

/** Runs `fn`, returning its result with wall-clock and CPU seconds (every thread of this process). */
async function timed(fn) {
  globalThis.gc?.();
  const cpu = process.cpuUsage();
  const wall = performance.now();
  const result = await fn();
  const used = process.cpuUsage(cpu);
  return { result, wallSeconds: (performance.now() - wall) / 1000, cpuSeconds: (used.user + used.system) / 1e6 };
}

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

function listFiles(dir) {
  const out = [];
  const walk = (d) => {
    for (const entry of readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = join(d, entry.name);
      if (entry.isDirectory()) walk(p);
      else out.push(p);
    }
  };
  walk(dir);
  return out;
}


// --- peak RSS in a child process ---------------------------------------------------------------
function peakRss(kind, input, db) {
  const script = `
    const { ingest, openWarehouse } = await import(${JSON.stringify(dist)});
    if (${JSON.stringify(kind)} === "ingest") await ingest([${JSON.stringify(input)}], { db: ${JSON.stringify(db)} });
    else (await openWarehouse([${JSON.stringify(input)}], { tables: ${JSON.stringify(BILLING_TABLES)}, columns: ${JSON.stringify(BILLING_COLUMNS)} })).close();
    process.stdout.write(String(process.resourceUsage().maxRSS * 1024));`;
  const file = join(dirname(db), `rss-${kind}.mjs`);
  writeFileSync(file, script);
  const r = spawnSync(process.execPath, [file], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`peak RSS child failed: ${r.stderr}`);
  return Number(r.stdout) / 1e6;
}

const mb = (bytes) => bytes / 1e6;
const { writeDataset, ingest, open, billingReport, toBillingCsv } = await import(dist);
const { BILLING_COLUMNS, BILLING_TABLES } = await import(pathToFileURL(join(root, "dist/billing/billingCtes.js")).href);
const dir = mkdtempSync(join(tmpdir(), "cloudunits-bench-ingest-"));
try {
  const week = join(dir, "week");
  const days3 = join(dir, "days3");
  const days14 = join(dir, "days14");
  const shape = { accounts: 10, spaces: 4, machines: 50, start: START, seed: 7 };
  await writeDataset({ out: week, hours: 168, ...shape });
  await writeDataset({ out: days3, hours: 72, ...shape });
  const weekSize = treeBytes(week);
  const days3Size = treeBytes(days3);
  console.log(`data set: a week of 10 accounts × 200 machines, ${weekSize.files} files, ${mb(weekSize.bytes).toFixed(1)} MB`);

  // 1. ingest
  const ing = await timed(() => ingest([week], { db: join(dir, "week.duckdb") }));
  console.log(
    `ingest       ${(mb(weekSize.bytes) / ing.wallSeconds).toFixed(1).padStart(6)} MB/s wall clock, ` +
      `${(mb(weekSize.bytes) / ing.cpuSeconds).toFixed(1)} MB per CPU second (${ing.wallSeconds.toFixed(2)} s, ${ing.cpuSeconds.toFixed(2)} CPU s; target ≥ 50 MB/s)`,
  );

  // 2. billing straight from the files vs capnp-es decoding alone
  const period = { start: START, end: START + 168 * 3600 };
  const load = await timed(() => open([week], { tables: BILLING_TABLES, columns: BILLING_COLUMNS }));
  const store = load.result;
  const report = await timed(async () => {
    const r = await billingReport(store.connection, period, {}, { load: store.load });
    let chars = 0;
    for await (const chunk of toBillingCsv(r)) chars += chunk.length;
    return { lines: r.lines.length, chars };
  });
  const calc = await timed(async () => {
    try {
      await store.calculate(period);
      for (let accountId = 1; accountId <= 10; accountId++) await store.calculate({ ...period, accountId });
    } finally {
      store.close();
    }
  });
  const billing = { wallSeconds: load.wallSeconds + report.wallSeconds, cpuSeconds: load.cpuSeconds + report.cpuSeconds };
  const decodeEs = await capnpEsDecoder(dir);
  const files = listFiles(week);
  const es = await timed(() => {
    let machines = 0;
    for (const file of files) {
      const account = decodeEs(new Uint8Array(readFileSync(file)));
      for (const cs of account.cloudspaces) machines += cs.machines.length;
    }
    return machines;
  });
  console.log(
    `billing from files  ${billing.wallSeconds.toFixed(2)} s wall clock, ${billing.cpuSeconds.toFixed(2)} CPU s ` +
      `(load ${load.wallSeconds.toFixed(2)} s / ${load.cpuSeconds.toFixed(2)} CPU s, then the report, ${report.result.lines} lines, ` +
      `${(report.result.chars / 1e3).toFixed(0)} kB of CSV: ${report.wallSeconds.toFixed(2)} s / ${report.cpuSeconds.toFixed(2)} CPU s)`,
  );
  console.log(`capnp-es decode     ${es.wallSeconds.toFixed(2)} s wall clock, ${es.cpuSeconds.toFixed(2)} CPU s (read + decode only)`);
  console.log(
    `ratio        ${(es.wallSeconds / billing.wallSeconds).toFixed(1)}× wall clock, ${(es.cpuSeconds / billing.cpuSeconds).toFixed(1)}× per CPU second ` +
      `(billing vs capnp-es decoding alone; target ≥ 10×)`,
  );
  console.log(`calculate    for the environment and each of 10 accounts on the loaded tables: ${calc.wallSeconds.toFixed(2)} s, ${calc.cpuSeconds.toFixed(2)} CPU s`);

  // 3. peak RSS vs input size (the 14-day set is written only now, so it weighs on nothing above)
  await writeDataset({ out: days14, hours: 336, ...shape });
  const days14Size = treeBytes(days14);
  const rss = [
    ["ingest", days3, days3Size], ["ingest", week, weekSize], ["ingest", days14, days14Size],
    ["in-memory load", days3, days3Size], ["in-memory load", week, weekSize],
  ].map(([kind, input, size], i) => ({ kind, size, peak: peakRss(kind === "ingest" ? "ingest" : "memory", input, join(dir, `rss${i}.duckdb`)) }));
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
