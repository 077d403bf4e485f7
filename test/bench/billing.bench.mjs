// `cloudunits billing` as a user runs it: the built CLI, each run a whole process (start-up
// included), against its peer, a whole process that decodes the same files with capnp-es and
// sums the same units (capnpEsBilling.mjs), and a second peer doing the same with capnp-ts 0.9.3
// (capnpTsBilling.mjs: the package most JavaScript users know), on a week of 10 accounts × 200 machines. Runs
// alternate (CLI, peer, CLI, peer, ...) so that a busy machine weighs on both alike; the
// figures are medians and the ratios are of medians measured in this run. Both print the
// same JSON, and the bench checks the figures agree.
//
// Also: start-up (`--version`, `--help`) against `node -e 0`; decoding, and billing files as
// they stream, on 1, 2, ... worker threads (how a machine with more cores gains); peak RSS
// and time of billing a long period from files (CLOUDUNITS_BENCH_WEEKS, default "1,26,52":
// a week, half a year, a year; by default, and on the main thread alone with `--workers 0`),
// each against a week (from `--db`: warehouse.bench.mjs). The C++ reference (capnpCppBilling.cpp:
// the Cap'n Proto C++ library, built here with g++, against Debian's libcapnp-dev fetched into the
// temp folder when it is not installed: capnpCpp.mjs; skipped with a message when neither works) bills the environment of the week and of each period, alternating with
// the CLI. The corpus a third party would bill, the week written again by capnp-es, is checked
// against the week byte for byte on a sample (and benched apart should it differ). Data sets are generated
// into the temp folder once and kept there (never in git); a longer period is the week's
// files hard-linked under later hours.
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { compileCapnpEs } from "./capnpEs.mjs";
import { compileCapnpTs } from "./capnpTs.mjs";
import { capnpEsCodec, capnpEsCorpus } from "./capnpEsCorpus.mjs";
import { buildCapnpCpp } from "./capnpCpp.mjs";
import {
  alternate,
  CLI,
  fmt,
  here,
  mb,
  med,
  median,
  mib,
  root,
  ROUNDS,
  run,
  sameFigures,
  START,
  treeSize,
  week,
  WEEK_HOURS,
  weeks,
  work,
} from "./benchData.mjs";

const PEER = join(here, "capnpEsBilling.mjs");
const PEER_TS = join(here, "capnpTsBilling.mjs");
const loads = () => loadavg()[0].toFixed(1);
const WEEKS = (process.env.CLOUDUNITS_BENCH_WEEKS ?? "1,26,52").split(",").map(Number);
/** Runs of each command per period (long periods take a while: fewer than ROUNDS by default). */
const PERIOD_ROUNDS = Number(process.env.CLOUDUNITS_BENCH_PERIOD_ROUNDS ?? 3);

/**
 * Decodes `files` with the library's decoder on `threads` worker threads (files dealt in
 * turn); wall seconds, and CPU seconds of the process (every thread).
 */
async function decodeOn(threads, files) {
  const dist = JSON.stringify(join(root, "dist/internal.js"));
  const code = `
    const { parentPort, workerData } = require("node:worker_threads");
    const { readFileSync } = require("node:fs");
    import(${dist}).then(({ decodeAccount }) => {
      parentPort.postMessage("ready");
      parentPort.once("message", () => {
        let machines = 0;
        for (const f of workerData) for (const cs of decodeAccount(readFileSync(f)).cloudspaces) machines += cs.machines.length;
        parentPort.postMessage(machines);
      });
    });`;
  const workers = Array.from(
    { length: threads },
    (_, t) => new Worker(code, { eval: true, workerData: files.filter((_, i) => i % threads === t) }),
  );
  await Promise.all(workers.map((w) => new Promise((resolve) => w.once("message", resolve))));
  const cpu = process.cpuUsage();
  const started = performance.now();
  const done = workers.map(
    (w) =>
      new Promise((resolve, reject) => {
        w.once("message", resolve);
        w.once("error", reject);
      }),
  );
  for (const w of workers) w.postMessage("go");
  await Promise.all(done);
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  await Promise.all(workers.map((w) => w.terminate()));
  return { seconds, cpuSeconds: (used.user + used.system) / 1e6 };
}

try {
  const weekDir = await week();
  const size = treeSize(weekDir);
  console.log(
    `data set: a week of 10 accounts × 200 machines, ${size.files} files, ${fmt(mb(size.bytes), 1)} MB (${weekDir})`,
  );
  const codeDir = join(work, "capnp-es");
  mkdirSync(codeDir);
  compileCapnpEs(codeDir);
  const tsCodeDir = join(work, "capnp-ts");
  mkdirSync(tsCodeDir);
  compileCapnpTs(tsCodeDir);
  const period = ["--start", String(START), "--end", String(START + WEEK_HOURS * 3600)];

  // 1. start-up
  const startup = alternate({ node: ["-e", "0"], version: [CLI, "--version"], help: [CLI, "--help"] }, 9, {
    peak: false,
  });
  const nodeWall = med(startup.node);
  console.log(
    `start-up     node -e 0 ${fmt(nodeWall * 1000, 0)} ms; cloudunits --version ${fmt(med(startup.version) * 1000, 0)} ms ` +
      `(${fmt(med(startup.version) / nodeWall)}×), --help ${fmt(med(startup.help) * 1000, 0)} ms (${fmt(med(startup.help) / nodeWall)}×)  ` +
      `[target ≤ 2×, medians of 9]`,
  );

  const cppDir = join(work, "capnp-cpp");
  mkdirSync(cppDir);
  const cpp = buildCapnpCpp(cppDir);
  if (cpp.missing !== undefined) console.log(`C++ reference skipped: ${cpp.missing}`);
  /** The C++ reference's command over `dir` up to `end` (see `run`). */
  const cppRun = (dir, end) => [{ native: cpp.bin }, dir, period[1], end];

  // 2. billing vs the capnp-es peer (and the C++ reference), whole processes, alternating
  const account = "1";
  const load2 = loads();
  const billing = alternate(
    {
      cli: [CLI, "billing", weekDir, ...period],
      peer: [PEER, codeDir, weekDir, period[1], period[3]],
      peerTs: [PEER_TS, tsCodeDir, weekDir, period[1], period[3]],
      ...(cpp.bin === undefined ? {} : { cpp: cppRun(weekDir, period[3]) }),
      cliAccount: [CLI, "billing", weekDir, ...period, "--account-id", account, "--all-units"],
      peerAccount: [PEER, codeDir, weekDir, period[1], period[3], account],
      peerTsAccount: [PEER_TS, tsCodeDir, weekDir, period[1], period[3], account],
    },
    ROUNDS,
  );
  const envFigures = sameFigures(JSON.parse(billing.cli[0].stdout), JSON.parse(billing.peer[0].stdout));
  const accountFigures = sameFigures(
    JSON.parse(billing.cliAccount[0].stdout),
    JSON.parse(billing.peerAccount[0].stdout),
  );
  const envTsFigures = sameFigures(JSON.parse(billing.cli[0].stdout), JSON.parse(billing.peerTs[0].stdout));
  const accountTsFigures = sameFigures(
    JSON.parse(billing.cliAccount[0].stdout),
    JSON.parse(billing.peerTsAccount[0].stdout),
  );
  const line = (label, cli, peer, figures, peerName = "capnp-es") =>
    console.log(
      `${label.padEnd(34)} cloudunits ${fmt(med(cli))} s (${fmt(med(cli, "cpuSeconds"))} CPU s, peak ${fmt(mib(med(cli, "peakRssBytes")), 0)} MiB); ` +
        `${peerName} peer ${fmt(med(peer))} s (${fmt(med(peer, "cpuSeconds"))} CPU s): ` +
        `**${fmt(med(peer) / med(cli), 1)}×** wall clock, ${fmt(med(peer, "cpuSeconds") / med(cli, "cpuSeconds"), 1)}× per CPU second; ` +
        `${figures} figures equal  [target ≥ 20×]`,
    );
  line("billing, environment total", billing.cli, billing.peer, envFigures);
  line(`billing --account-id ${account} --all-units`, billing.cliAccount, billing.peerAccount, accountFigures);
  line("billing, environment total", billing.cli, billing.peerTs, envTsFigures, "capnp-ts 0.9.3");
  line(
    `billing --account-id ${account} --all-units`,
    billing.cliAccount,
    billing.peerTsAccount,
    accountTsFigures,
    "capnp-ts 0.9.3",
  );
  if (billing.cpp !== undefined) {
    const figures = sameFigures(JSON.parse(billing.cpp[0].stdout), JSON.parse(billing.cli[0].stdout));
    console.log(
      `${"C++ reference, environment total".padEnd(34)} ${fmt(med(billing.cpp))} s (${fmt(med(billing.cpp, "cpuSeconds"))} CPU s): cloudunits takes **${fmt(med(billing.cli) / med(billing.cpp), 1)}×** its wall clock, ` +
        `${fmt(med(billing.cli, "cpuSeconds") / med(billing.cpp, "cpuSeconds"), 1)}× its CPU; ${figures} figures equal  [load ${load2} → ${loads()}]`,
    );
  }

  // every file of the week, in name order (the capnp-es corpus's sample, the decoding threads' work)
  const files = [];
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (e.isDirectory()) walk(join(d, e.name));
      else files.push(join(d, e.name));
    }
  };
  walk(weekDir);

  // 2b. the corpus a third party would bill: the week written again by capnp-es
  const esCode = join(work, "capnp-es-corpus");
  mkdirSync(esCode);
  const codec = await capnpEsCodec(esCode);
  const checked = files.filter((_, i) => i % 20 === 0);
  const differ = checked.filter(
    (f) =>
      !Buffer.from(readFileSync(f)).equals(Buffer.from(codec.encode(codec.decode(new Uint8Array(readFileSync(f)))))),
  );
  if (differ.length === 0) {
    console.log(
      `capnp-es corpus: the week written again by capnp-es is the week byte for byte (${checked.length} of ${files.length} files checked): ` +
        "the ratios above are those of the capnp-es-built corpus",
    );
  } else {
    const esDir = capnpEsCorpus(weekDir, join(work, "..", "weeks-1-capnp-es"), codec);
    const es = alternate(
      { cli: [CLI, "billing", esDir, ...period], peer: [PEER, codeDir, esDir, period[1], period[3]] },
      ROUNDS,
    );
    line(
      `capnp-es corpus (${differ.length} of ${checked.length} sampled files differ)`,
      es.cli,
      es.peer,
      sameFigures(JSON.parse(es.cli[0].stdout), JSON.parse(es.peer[0].stdout)),
    );
  }

  // 3. decoding on 1, 2, ... threads
  const cores = availableParallelism();
  const threadCounts = [1, 2, 4, 8].filter((t) => t <= Math.max(2, cores * 2));
  const decode = {};
  for (let i = 0; i < ROUNDS; i++) for (const t of threadCounts) (decode[t] ??= []).push(await decodeOn(t, files));
  const wall = (t) => median(decode[t].map((d) => d.seconds));
  const perCpu = (t) => mb(size.bytes) / median(decode[t].map((d) => d.cpuSeconds));
  console.log(
    `decode       ${cores} cores here; read + decode of the week on n worker threads: ` +
      threadCounts
        .map(
          (t) =>
            `${t}: ${fmt(mb(size.bytes) / wall(t), 0)} MB/s (×${fmt(wall(1) / wall(t))}), ${fmt(perCpu(t), 0)} MB per CPU s`,
        )
        .join("; "),
  );
  console.log(
    `             files decode independently: with n idle cores, about n × ${fmt(perCpu(1), 0)} MB/s ` +
      `(MB per CPU second at ${threadCounts.at(-1)} threads: ×${fmt(perCpu(threadCounts.at(-1)) / perCpu(1))} of one thread's; wall-clock gains here are capped by ${cores} shared cores)`,
  );

  // 4. billing files as they stream on n worker threads (in-process: the pipeline's own scaling)
  const { bill } = await import(join(root, "dist/index.js"));
  const billPeriod = { start: START, end: START + WEEK_HOURS * 3600 };
  const billOn = {};
  const workerCounts = [0, ...threadCounts];
  for (let i = 0; i < ROUNDS; i++) {
    for (const w of workerCounts) {
      const cpu = process.cpuUsage();
      const started = performance.now();
      await bill({ source: [weekDir], period: billPeriod, reading: { workers: w } });
      const used = process.cpuUsage(cpu);
      (billOn[w] ??= []).push({
        seconds: (performance.now() - started) / 1000,
        cpuSeconds: (used.user + used.system) / 1e6,
      });
    }
  }
  const billWall = (w) => median(billOn[w].map((d) => d.seconds));
  console.log(
    `billing     in-process bill of the week's files on n worker threads (0: the main thread): ` +
      workerCounts
        .map(
          (w) =>
            `${w}: ${fmt(billWall(w), 2)} s, ${fmt(mb(size.bytes) / billWall(w), 0)} MB/s (${fmt(median(billOn[w].map((d) => d.cpuSeconds)), 2)} CPU s)`,
        )
        .join("; "),
  );

  // 5. time and peak RSS over the period, billing from files
  const rows = [];
  for (const n of [...WEEKS].sort((a, b) => a - b)) {
    const dir = await weeks(n);
    const bytes = n * size.bytes;
    const end = String(START + n * WEEK_HOURS * 3600);
    const row = { n, bytes };
    const parts = [];
    if (WEEKS.includes(n)) {
      // alternating: the default (workers chosen from the cores free), every file in the main
      // thread (--workers 0: the least memory), and the C++ reference; medians of PERIOD_ROUNDS
      const load5 = loads();
      const runs = alternate(
        {
          fromFiles: [CLI, "billing", dir, "--start", String(START), "--end", end],
          oneThread: [CLI, "billing", dir, "--start", String(START), "--end", end, "--workers", "0"],
          ...(cpp.bin === undefined ? {} : { cpp: cppRun(dir, end) }),
        },
        PERIOD_ROUNDS,
      );
      const middle = (list) => [...list].sort((a, b) => a.wallSeconds - b.wallSeconds)[Math.floor(list.length / 2)];
      row.fromFiles = middle(runs.fromFiles);
      row.oneThread = middle(runs.oneThread);
      if (sameFigures(JSON.parse(row.oneThread.stdout), JSON.parse(row.fromFiles.stdout)) !== 4)
        throw new Error("billing --workers 0 and the default differ");
      parts.push(
        `billing from files ${fmt(row.fromFiles.wallSeconds, 1)} s (${fmt(mb(bytes) / row.fromFiles.wallSeconds, 0)} MB/s, ` +
          `${fmt(row.fromFiles.cpuSeconds, 1)} CPU s), peak ${fmt(mib(row.fromFiles.peakRssBytes), 0)} MiB`,
      );
      parts.push(
        `with --workers 0 ${fmt(row.oneThread.wallSeconds, 1)} s, peak ${fmt(mib(row.oneThread.peakRssBytes), 0)} MiB ` +
          `(default / --workers 0: **${fmt(row.fromFiles.wallSeconds / row.oneThread.wallSeconds)}×** wall) [target ≤ 1×]`,
      );
      if (runs.cpp !== undefined) {
        const c = middle(runs.cpp);
        if (sameFigures(JSON.parse(c.stdout), JSON.parse(row.fromFiles.stdout)) !== 4)
          throw new Error("the C++ reference and billing differ");
        parts.push(
          `C++ reference ${fmt(c.wallSeconds, 1)} s (${fmt(c.cpuSeconds, 1)} CPU s): cloudunits **${fmt(row.fromFiles.wallSeconds / c.wallSeconds)}×** ` +
            `its wall clock, ${fmt(row.fromFiles.cpuSeconds / c.cpuSeconds)}× its CPU [target ≤ 2.5×]`,
        );
      }
      parts.push(`medians of ${PERIOD_ROUNDS}, alternating, load ${load5} → ${loads()}`);
    }
    rows.push(row);
    console.log(
      `${String(n).padStart(2)} week${n > 1 ? "s" : " "} ${fmt(mb(bytes), 0).padStart(5)} MB  ${parts.join("; ")}`,
    );
  }
  // every longer period against the first (a week), as the target reads: 26 weeks within 1.3× of 1
  const growth = (k) => {
    const measured = rows.filter((r) => r[k] !== undefined);
    if (measured.length < 2) return undefined;
    const first = measured[0];
    return measured
      .slice(1)
      .map((r) => `${r.n} weeks vs ${first.n}: ×${fmt(r[k].peakRssBytes / first[k].peakRssBytes)}`)
      .join(", ");
  };
  const growths = [
    ["billing from files", growth("fromFiles")],
    ["billing from files with --workers 0", growth("oneThread")],
  ].filter(([, g]) => g);
  if (growths.length > 0)
    console.log(
      `peak RSS: ${growths.map(([k, g]) => `${k} ${g}`).join("; ")}  [target ≤ 1.3×: flat in the number of hours]`,
    );
} finally {
  rmSync(work, { recursive: true, force: true });
}
