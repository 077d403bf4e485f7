// What the billing benches share: the generated data sets (10 accounts × 200 machines, a week
// generated once into the temp folder, keyed by its shape, never in git; a longer period is the
// week's files hard-linked under later hours) and whole-process runs with their peak RSS.
import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const here = dirname(fileURLToPath(import.meta.url));
export const root = join(here, "../..");
export const CLI = join(root, "dist/cli/main.js");
const PEAK = join(here, "reportPeak.mjs");
export const START = 1790812800; // 2026-10-01T00:00Z
export const WEEK_HOURS = 168;
export const ROUNDS = Number(process.env.CLOUDUNITS_BENCH_ROUNDS ?? 3);
const SHAPE = { accounts: 10, spaces: 4, machines: 50, seed: 7 };
export const cache = join(
  tmpdir(),
  `cloudunits-bench-a${SHAPE.accounts}-s${SHAPE.spaces}-m${SHAPE.machines}-seed${SHAPE.seed}`,
);
/** This run's scratch folder (peak files, databases): the caller removes it. */
export const work = join(cache, `run-${process.pid}`);
mkdirSync(work, { recursive: true });

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
export const mb = (bytes) => bytes / 1e6;
export const mib = (bytes) => bytes / 2 ** 20;
export const fmt = (x, d = 2) => x.toFixed(d);

export function treeSize(dir) {
  let bytes = 0;
  let files = 0;
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else {
        bytes += statSync(join(d, e.name)).size;
        files++;
      }
    }
  };
  walk(dir);
  return { bytes, files };
}

/** The week of generated data, written once into the cache. */
export async function week() {
  const dir = join(cache, "weeks-1");
  if (existsSync(dir)) return dir;
  const { writeDataset } = await import(join(root, "dist/index.js"));
  const partial = `${dir}.partial`;
  rmSync(partial, { recursive: true, force: true });
  await writeDataset({ out: partial, hours: WEEK_HOURS, start: START, ...SHAPE });
  renameSync(partial, dir);
  return dir;
}

/** `weeks` weeks: the week's files hard-linked (or copied) under each later week's hours. */
export async function weeks(n) {
  const one = await week();
  if (n === 1) return one;
  return linkPeriods(one, join(cache, `weeks-${n}`), n, WEEK_HOURS);
}

/**
 * `n` periods of `periodHours` from the tree `one` (account/y/m/d/h/file): its files hard-linked
 * (or copied) under each later period's hours, into `dir`, made once.
 */
export function linkPeriods(one, dir, n, periodHours) {
  if (existsSync(dir)) return dir;
  const partial = `${dir}.partial`;
  rmSync(partial, { recursive: true, force: true });
  const files = [];
  const walk = (d, parts) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name), [...parts, e.name]);
      else files.push({ path: join(d, e.name), parts, name: e.name });
    }
  };
  walk(one, []);
  for (let w = 0; w < n; w++) {
    for (const f of files) {
      const [account, y, m, d, h] = f.parts.map(Number);
      const t = new Date((Date.UTC(y, m - 1, d, h) / 1000 + w * periodHours * 3600) * 1000);
      const to = join(
        partial,
        String(account),
        String(t.getUTCFullYear()),
        String(t.getUTCMonth() + 1),
        String(t.getUTCDate()),
        String(t.getUTCHours()),
      );
      mkdirSync(to, { recursive: true });
      try {
        linkSync(f.path, join(to, f.name));
      } catch {
        copyFileSync(f.path, join(to, f.name));
      }
    }
  }
  renameSync(partial, dir);
  return dir;
}

/**
 * The warehouse of `n` weeks (`weeks(n)` ingested by the built CLI), made once and kept in the
 * temp folder beside the files (`serve-weeks-N.duckdb`: the serve bench's name, shared).
 */
export async function warehouseOfWeeks(n) {
  const db = join(cache, `serve-weeks-${n}.duckdb`);
  if (existsSync(db)) return db;
  const dir = await weeks(n);
  const partial = `${db}.partial`;
  rmSync(partial, { force: true });
  const started = performance.now();
  const r = spawnSync(process.execPath, [CLI, "ingest", dir, "--db", partial], {
    encoding: "utf8",
    env: { ...process.env, CI: "1" },
  });
  if (r.status !== 0) throw new Error(`ingest failed: ${r.stderr}`);
  console.log(`(ingested ${n} weeks once in ${((performance.now() - started) / 1000).toFixed(0)} s, kept as ${db})`);
  renameSync(partial, db);
  return db;
}

let runs = 0;
/**
 * Runs `node ARGS` as a whole process; returns wall seconds, CPU seconds, peak RSS and stdout.
 * `codes`: the exit codes that are no failure. An `ARGS` whose first element is `{ native: path }`
 * runs that program instead, its CPU and peak read by GNU time (`/usr/bin/time`).
 */
export function run(args, { peak = true, codes = [0] } = {}) {
  if (typeof args[0] === "object") return runNative(args[0].native, args.slice(1), codes);
  const file = join(work, `peak-${runs++}.json`);
  const started = performance.now();
  const r = spawnSync(process.execPath, peak ? ["--import", PEAK, ...args] : args, {
    encoding: "utf8",
    maxBuffer: 1 << 30,
    env: { ...process.env, CI: "1", CLOUDUNITS_BENCH_PEAK: file },
  });
  const wallSeconds = (performance.now() - started) / 1000;
  if (!codes.includes(r.status)) throw new Error(`node ${args.join(" ")} failed (${r.status}): ${r.stderr}`);
  const usage = peak ? JSON.parse(readFileSync(file, "utf8")) : { peakRssBytes: NaN, cpuSeconds: NaN };
  return { wallSeconds, ...usage, stdout: r.stdout };
}

function runNative(program, args, codes) {
  const started = performance.now();
  const r = spawnSync("/usr/bin/time", ["-f", "cloudunits-bench %U %S %M", program, ...args], {
    encoding: "utf8",
    maxBuffer: 1 << 30,
  });
  const wallSeconds = (performance.now() - started) / 1000;
  if (!codes.includes(r.status)) throw new Error(`${program} ${args.join(" ")} failed (${r.status}): ${r.stderr}`);
  const [user, system, peakKb] = r.stderr.trim().split("\n").at(-1).split(" ").slice(1).map(Number);
  return { wallSeconds, cpuSeconds: user + system, peakRssBytes: peakKb * 1024, stdout: r.stdout };
}

/** Runs each of `commands` (name → node args) `rounds` times, alternating; name → runs. */
export function alternate(commands, rounds, options) {
  const all = Object.fromEntries(Object.keys(commands).map((k) => [k, []]));
  for (let i = 0; i < rounds; i++)
    for (const [name, args] of Object.entries(commands)) all[name].push(run(args, options));
  return all;
}
export const med = (list, key = "wallSeconds") => median(list.map((r) => r[key]));

/** Every number of `expected` (recursively) equals `actual`'s to 1e-9 relative: the two computed the same figures. */
export function sameFigures(actual, expected, path = "") {
  let compared = 0;
  for (const [k, v] of Object.entries(expected)) {
    if (typeof v === "number") {
      const a = actual?.[k];
      if (typeof a !== "number" || Math.abs(a - v) > 1e-9 * Math.max(1, Math.abs(v)))
        throw new Error(`figures differ at ${path}${k}: ${a} vs ${v}`);
      compared++;
    } else if (v && typeof v === "object") compared += sameFigures(actual?.[k], v, `${path}${k}.`);
  }
  return compared;
}
