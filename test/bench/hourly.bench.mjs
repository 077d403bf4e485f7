// `billing --format csv --detail hourly` as a user runs it: whole processes of the built CLI,
// alternating, from the files and from a warehouse (`--db`), a week and 4 weeks of 10 accounts ×
// 200 machines (the data sets of benchData.mjs; the warehouse of 4 weeks ingested once and
// kept). Beside each week's hourly CSV, the same period's CSV without the hourly detail (what
// reading the inputs costs: the hourly detail's own cost is the difference), and, when
// CLOUDUNITS_BENCH_BASELINE names another build's `dist/cli/main.js` (e.g. main's, built in
// another checkout), that build's hourly CSV of the week, whose SHA-256 must be the same.
// Prints wall and CPU seconds and peak RSS (medians of ROUNDS), the ratios against the
// baseline, and the peak of 4 weeks over a week's (the target: within 1.3×), in
// CLOUDUNITS_BENCH_FLAT_ROUNDS pairs (default 1: 4 weeks of hourly CSV are 1.2 M lines a run).
// CLOUDUNITS_BENCH_ROUNDS=0 measures the 4 weeks alone.
import { createHash } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import {
  alternate,
  CLI,
  fmt,
  med,
  mib,
  ROUNDS,
  START,
  WEEK_HOURS,
  warehouseOfWeeks,
  weeks,
  work,
} from "./benchData.mjs";
import { loadavg } from "node:os";

const BASELINE = process.env.CLOUDUNITS_BENCH_BASELINE;
const FLAT_ROUNDS = Number(process.env.CLOUDUNITS_BENCH_FLAT_ROUNDS ?? 1);
const iso = (t) => new Date(t * 1000).toISOString().slice(0, 16);
const period = (n) => ["--start", iso(START), "--end", iso(START + n * WEEK_HOURS * 3600)];
const sha = (file) => createHash("sha256").update(readFileSync(file)).digest("hex");

try {
  const files = { 1: await weeks(1), 4: await weeks(4) };
  const db = await warehouseOfWeeks(4); // the week is its first week
  const out = (name) => join(work, `${name}.csv`);
  const hourly = (cli, name, source, n) => [
    cli,
    "billing",
    "--format",
    "csv",
    "--detail",
    "hourly",
    ...source,
    ...period(n),
    "--out",
    out(name),
  ];
  const plain = (name, source) => [CLI, "billing", "--format", "csv", ...source, ...period(1), "--out", out(name)];
  const fromFiles = (n) => [files[n]];
  const fromDb = ["--db", db];

  const load = () =>
    loadavg()
      .map((x) => x.toFixed(1))
      .join(" ");
  console.log(
    `load average before: ${load()}; rounds: ${ROUNDS}; baseline: ${BASELINE ?? "none (set CLOUDUNITS_BENCH_BASELINE to another build's dist/cli/main.js)"}`,
  );
  const line = (label, runs) =>
    `${label.padEnd(34)} ${fmt(med(runs), 2)} s, ${fmt(med(runs, "cpuSeconds"), 2)} CPU s, peak ${fmt(mib(med(runs, "peakRssBytes")), 0)} MiB`;
  const hashes = {};
  const check = (name) => (hashes[name] = sha(out(name)));

  for (const [road, source] of ROUNDS > 0
    ? [
        ["files", fromFiles(1)],
        ["--db", fromDb],
      ]
    : []) {
    const commands = { hourly: hourly(CLI, `${road}-hourly`, source, 1), plain: plain(`${road}-plain`, source) };
    if (BASELINE) commands.baseline = hourly(BASELINE, `${road}-baseline`, source, 1);
    const runs = alternate(commands, ROUNDS);
    check(`${road}-hourly`);
    console.log(`\na week from ${road} (load ${load()})`);
    console.log(line("hourly CSV", runs.hourly));
    console.log(line("CSV without the hourly detail", runs.plain));
    const above = med(runs.hourly, "cpuSeconds") - med(runs.plain, "cpuSeconds");
    const rows = readFileSync(out(`${road}-hourly`), "utf8").split("\r\n").length - 2;
    console.log(
      `  the hourly detail's own CPU: ${fmt(above, 2)} s, ${fmt((above / rows) * 1e6, 1)} µs a line (${rows} lines)`,
    );
    if (BASELINE) {
      check(`${road}-baseline`);
      const same = hashes[`${road}-hourly`] === hashes[`${road}-baseline`];
      console.log(line("baseline's hourly CSV", runs.baseline));
      console.log(
        `  against the baseline: CPU ${fmt(med(runs.baseline, "cpuSeconds") / med(runs.hourly, "cpuSeconds"))}× faster, ` +
          `wall ${fmt(med(runs.baseline) / med(runs.hourly))}×, peak ${fmt(med(runs.baseline, "peakRssBytes") / med(runs.hourly, "peakRssBytes"))}× lower; ` +
          `same SHA-256: ${same ? "yes" : "NO"}  [target ≥ 2× faster]`,
      );
      if (!same) process.exitCode = 1;
    }
  }
  if (ROUNDS > 0 && hashes["files-hourly"] !== hashes["--db-hourly"]) {
    console.log("the hourly CSV from the files and from --db differ: NOT the same bytes");
    process.exitCode = 1;
  }

  // flat: 4 weeks against a week, each road, alternating
  const flat = alternate(
    {
      files1: hourly(CLI, "files-1", fromFiles(1), 1),
      files4: hourly(CLI, "files-4", fromFiles(4), 4),
      db1: hourly(CLI, "db-1", fromDb, 1),
      db4: hourly(CLI, "db-4", fromDb, 4),
    },
    FLAT_ROUNDS,
  );
  console.log(`\n4 weeks against a week (load ${load()})`);
  for (const road of ["files", "db"]) {
    const [one, four] = [flat[`${road}1`], flat[`${road}4`]];
    const ratio = med(four, "peakRssBytes") / med(one, "peakRssBytes");
    console.log(
      `${line(`${road}: a week`, one)}; ${line("4 weeks", four)}: peak ×${fmt(ratio)}  [target ≤ 1.3×: ${ratio <= 1.3 ? "met" : "NOT met"}]`,
    );
  }
  if (sha(out("files-4")) !== sha(out("db-4"))) {
    console.log("the hourly CSV of 4 weeks from the files and from --db differ: NOT the same bytes");
    process.exitCode = 1;
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
