// Warehouse loading against DuckDB's own bulk copy of the same rows, in one run: for
// CLOUDUNITS_BENCH_INGEST_WEEKS (default "1,4") weeks of 10 accounts × 200 machines (the
// shared data sets of benchData.mjs), whole processes, alternating, medians of
// CLOUDUNITS_BENCH_ROUNDS (3):
// - `cloudunits ingest DIR --db FILE` into a new file (read, hash, decode on workers, stage,
//   insert, commit each batch with its manifest rows, checkpoint);
// - the baseline, duckdbCopy.mjs: a new file made as ingest makes it (same schema, keys),
//   then DuckDB inserting every table's rows from Parquet files in one transaction and
//   checkpointing: with ingest's memory cap (96 MiB, "copy capped") and with DuckDB's default
//   ("copy": the faster, the ratio the target is read against). The Parquet files are the tables of a warehouse ingested
//   once before, exported as they are, so both processes write the very same rows (the bench
//   checks every table's row count and contents' hash).
// Printed: wall and CPU seconds of each, their ratios, MB/s of input, peak RSS, and the load
// average before and after (the machine is shared: read the ratios).
import { mkdirSync, rmSync } from "node:fs";
import { loadavg } from "node:os";
import { createRequire } from "node:module";
import { join } from "node:path";
import { alternate, CLI, fmt, here, mb, med, mib, ROUNDS, run, treeSize, weeks, work } from "./benchData.mjs";

const WEEKS = (process.env.CLOUDUNITS_BENCH_INGEST_WEEKS ?? "1,4")
  .split(",")
  .map(Number)
  .sort((a, b) => a - b);
const { DuckDBInstance } = createRequire(import.meta.url)("@duckdb/node-api");
const load = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(" ");

/** Tables with rows in `db` (but warehouse_meta, written by every opening): name → row count. */
async function tablesOf(connection) {
  const reader = await connection.runAndReadAll(
    "SELECT table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE' AND table_name <> 'warehouse_meta' ORDER BY 1",
  );
  const counts = {};
  for (const [name] of reader.getRows()) {
    const n = Number((await connection.runAndReadAll(`SELECT count(*) FROM ${name}`)).getRows()[0][0]);
    if (n > 0) counts[name] = n;
  }
  return counts;
}

/** Each table's row count and an order-free hash of its rows (`loaded_at` and `started_at` left out: the clock's). */
async function contents(db, tables) {
  const instance = await DuckDBInstance.create(db, { access_mode: "READ_ONLY" });
  const connection = await instance.connect();
  try {
    const out = {};
    for (const table of tables) {
      const columns = (
        await connection.runAndReadAll(
          `SELECT column_name FROM information_schema.columns WHERE table_name = '${table}' ORDER BY ordinal_position`,
        )
      )
        .getRows()
        .map(([c]) => c)
        .filter((c) => c !== "loaded_at" && c !== "started_at");
      const [n, h] = (
        await connection.runAndReadAll(`SELECT count(*), bit_xor(hash(${columns.join(", ")})) FROM ${table}`)
      ).getRows()[0];
      out[table] = `${n}/${h}`;
    }
    return out;
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

try {
  console.log(`load average at the start: ${load()}`);
  const peaks = [];
  for (const n of WEEKS) {
    const dir = await weeks(n);
    const { bytes, files } = treeSize(dir);
    // The rows to copy: a warehouse ingested once, its tables exported to Parquet as they are.
    const source = join(work, `source-${n}.duckdb`);
    run([CLI, "ingest", dir, "--db", source], { peak: false });
    const parquet = join(work, `parquet-${n}`);
    const instance = await DuckDBInstance.create(source);
    const connection = await instance.connect();
    const counts = await tablesOf(connection);
    mkdirSync(parquet, { recursive: true });
    for (const table of Object.keys(counts)) {
      await connection.run(`COPY (SELECT * FROM ${table}) TO '${join(parquet, `${table}.parquet`)}' (FORMAT parquet)`);
    }
    connection.closeSync();
    instance.closeSync();
    const tables = Object.keys(counts);
    const rows = Object.values(counts).reduce((a, b) => a + b, 0);

    const ingestDb = join(work, `ingest-${n}.duckdb`);
    const copyDb = join(work, `copy-${n}.duckdb`);
    const fresh = (db) => rmSync(db, { force: true }) ?? rmSync(`${db}.wal`, { force: true });
    const before = load();
    const r = { ingest: [], copy: [], capped: [] };
    for (let i = 0; i < ROUNDS; i++) {
      fresh(ingestDb);
      r.ingest.push(run([CLI, "ingest", dir, "--db", ingestDb]));
      for (const memory of ["uncapped", "capped"]) {
        fresh(copyDb);
        r[memory === "capped" ? "capped" : "copy"].push(
          run([join(here, "duckdbCopy.mjs"), memory, copyDb, parquet, ...tables]),
        );
      }
    }
    const after = load();
    const [a, b] = [await contents(ingestDb, tables), await contents(copyDb, tables)];
    for (const t of tables)
      if (a[t] !== b[t]) throw new Error(`ingest and the copy differ in ${t}: ${a[t]} vs ${b[t]}`);
    const wall = med(r.ingest);
    const cpu = med(r.ingest, "cpuSeconds");
    console.log(
      `${String(n).padStart(2)} week${n > 1 ? "s" : " "} ${fmt(mb(bytes), 0).padStart(5)} MB, ${files} files, ${(rows / 1e6).toFixed(2)} M rows in ${tables.length} tables (the same in each)  load ${before} → ${after}`,
    );
    console.log(
      `   ingest     ${fmt(wall).padStart(7)} s  ${fmt(cpu).padStart(7)} CPU s  peak ${fmt(mib(med(r.ingest, "peakRssBytes")), 0)} MiB;  ` +
        `${fmt(mb(bytes) / wall, 1)} MB/s, ${fmt(mb(bytes) / cpu, 1)} MB per CPU s  [target ≥ 60 MB/s on 2 idle cores]`,
    );
    const walls = (list) => list.map((x) => fmt(x.wallSeconds, 1)).join(" ");
    for (const [label, list] of [
      ["copy", r.copy],
      ["copy capped", r.capped],
    ]) {
      console.log(
        `   ${label.padEnd(11)}${fmt(med(list)).padStart(7)} s  ${fmt(med(list, "cpuSeconds")).padStart(7)} CPU s  peak ${fmt(mib(med(list, "peakRssBytes")), 0)} MiB;` +
          `  ingest / ${label}: **${fmt(wall / med(list))}× wall**, ${fmt(cpu / med(list, "cpuSeconds"))}× CPU${label === "copy" ? "  [target ≤ 1.5×]" : ""}`,
      );
    }
    console.log(
      `   each run's wall s: ingest ${walls(r.ingest)}, copy ${walls(r.copy)}, copy capped ${walls(r.capped)}`,
    );
    peaks.push({ n, peak: med(r.ingest, "peakRssBytes") });
    for (const db of [source, ingestDb, copyDb]) fresh(db);
    rmSync(parquet, { recursive: true, force: true });
  }
  if (peaks.length > 1) {
    console.log(
      `peak RSS of ingest: ` +
        peaks
          .slice(1)
          .map((p) => `${p.n} weeks ×${fmt(p.peak / peaks[0].peak)} ${peaks[0].n} week's`)
          .join(", "),
    );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
