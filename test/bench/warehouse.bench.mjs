// The warehouse as the fast path (issue 23): `ingest` of CLOUDUNITS_BENCH_DB_WEEKS (default
// "1,26") weeks of 10 accounts × 200 machines into a .duckdb file (MB/s, peak RSS), then
// `billing --db` against billing the same period straight from the files, the environment and
// one account (`--account-id 1 --all-units`): whole processes, alternating (files, --db, files,
// --db, ...), medians of CLOUDUNITS_BENCH_ROUNDS (3); the bench checks both print the same
// figures. Also a week from --db against `node -e 0`, and the peak RSS of every period's
// `billing --db` against a week's.
import { rmSync } from "node:fs";
import { join } from "node:path";
import {
  alternate,
  CLI,
  fmt,
  mb,
  med,
  mib,
  ROUNDS,
  run,
  sameFigures,
  START,
  treeSize,
  WEEK_HOURS,
  weeks,
  work,
} from "./benchData.mjs";

const DB_WEEKS = (process.env.CLOUDUNITS_BENCH_DB_WEEKS ?? "1,26")
  .split(",")
  .map(Number)
  .sort((a, b) => a - b);
const ACCOUNT = ["--account-id", "1", "--all-units"];

try {
  const node = alternate({ node: ["-e", "0"] }, 5, { peak: false }).node;
  const nodeWall = med(node);
  const peaks = [];
  for (const n of DB_WEEKS) {
    const dir = await weeks(n);
    const { bytes } = treeSize(dir);
    const period = ["--start", String(START), "--end", String(START + n * WEEK_HOURS * 3600)];
    const db = join(work, `weeks-${n}.duckdb`);
    const ingest = run([CLI, "ingest", dir, "--db", db]);
    const r = alternate(
      {
        files: [CLI, "billing", dir, ...period],
        db: [CLI, "billing", "--db", db, ...period],
        filesAccount: [CLI, "billing", dir, ...period, ...ACCOUNT],
        dbAccount: [CLI, "billing", "--db", db, ...period, ...ACCOUNT],
      },
      ROUNDS,
    );
    // The baseline in the same run: billing the same files (decoding them all, storing nothing).
    const mbps = mb(bytes) / ingest.wallSeconds;
    console.log(
      `${String(n).padStart(2)} week${n > 1 ? "s" : " "} ${fmt(mb(bytes), 0).padStart(5)} MB  ingest with the facts ${fmt(mbps, 1)} MB/s ` +
        `(${fmt(ingest.wallSeconds, 1)} s, ${fmt(ingest.cpuSeconds, 1)} CPU s: ${fmt(mb(bytes) / ingest.cpuSeconds, 1)} MB per CPU s), peak ${fmt(mib(ingest.peakRssBytes), 0)} MiB; ` +
        `${fmt(ingest.wallSeconds / med(r.files), 1)}× the wall and ${fmt(ingest.cpuSeconds / med(r.files, "cpuSeconds"), 1)}× the CPU of billing the same files  ` +
        `[target ≥ 60 MB/s over 26 weeks${n >= 26 ? `: ${mbps >= 60 ? "met" : "NOT met"} in this run` : ""}]`,
    );
    const envFigures = sameFigures(JSON.parse(r.db[0].stdout), JSON.parse(r.files[0].stdout));
    const accountFigures = sameFigures(JSON.parse(r.dbAccount[0].stdout), JSON.parse(r.filesAccount[0].stdout));
    const line = (label, fromDb, fromFiles, figures) =>
      `${label}: --db ${fmt(med(fromDb))} s (${fmt(med(fromDb, "cpuSeconds"))} CPU s, peak ${fmt(mib(med(fromDb, "peakRssBytes")), 0)} MiB) ` +
      `vs files ${fmt(med(fromFiles))} s (${fmt(med(fromFiles, "cpuSeconds"))} CPU s): **${fmt(med(fromDb) / med(fromFiles))}×**, ${figures} figures equal`;
    console.log(`             billing ${line("environment", r.db, r.files, envFigures)}  [target ≤ 0.2×]`);
    console.log(
      `             billing ${line("--account-id 1 --all-units", r.dbAccount, r.filesAccount, accountFigures)}  [target ≤ 0.2×]`,
    );
    if (n === 1) {
      console.log(
        `             a week from --db: ${fmt(med(r.db) - nodeWall)} s above node -e 0 (${fmt(nodeWall)} s), ` +
          `--account-id: ${fmt(med(r.dbAccount) - nodeWall)} s above  [target ≤ 0.5 s]`,
      );
    }
    peaks.push({ n, peak: med(r.db, "peakRssBytes"), peakAccount: med(r.dbAccount, "peakRssBytes") });
    rmSync(db, { force: true });
  }
  if (peaks.length > 1) {
    const first = peaks[0];
    console.log(
      `peak RSS of billing --db: ` +
        peaks
          .slice(1)
          .map(
            (p) =>
              `${p.n} weeks vs ${first.n}: ×${fmt(p.peak / first.peak)} ` +
              `(--account-id ×${fmt(p.peakAccount / first.peakAccount)})`,
          )
          .join(", ") +
        "  [target ≤ 1.3×: flat in the number of hours]",
    );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
