// `cloudunits serve` as a user runs it: the built CLI, a whole process, on a warehouse of 26
// weeks of 10 accounts × 200 machines (benchData.mjs's data set, ingested once and kept in the
// temp folder). The dashboard computes the latest month's overview, data quality and account
// pages at start (in the background): the bench waits for them, as a first visitor would, and
// then asks for each page once cold (computed from the warehouse, or kept from the start) and
// then again (answered from the dashboard's cache until the warehouse changes). Cold figures
// are set beside a whole-process `billing --db` of a month measured in this run (what the
// overview computes), and the month-end forecast (what the overview of a running month adds)
// beside it. Target: every page ≤ 200 ms.
import { loadavg } from "node:os";
import { spawn, spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { CLI, median, root, START, WEEK_HOURS, warehouseOfWeeks, work } from "./benchData.mjs";

const WEEKS = Number(process.env.CLOUDUNITS_BENCH_SERVE_WEEKS ?? 26);
const SHAPE = { accounts: 10, spaces: 4, machines: 50 }; // benchData's data set, for the heading
const WARM_ROUNDS = 5;

const ms = (s) => `${(s * 1000).toFixed(0)} ms`;
const load = () =>
  `load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(", ")}`;

/** Seconds a whole process takes. */
function wall(args) {
  const started = performance.now();
  const r = spawnSync(process.execPath, args, {
    encoding: "utf8",
    env: { ...process.env, CI: "1" },
    maxBuffer: 1 << 30,
  });
  if (r.status !== 0) throw new Error(`node ${args.join(" ")} failed: ${r.stderr}`);
  return (performance.now() - started) / 1000;
}

/** Starts `serve`, resolves its address. */
function serve(db) {
  const child = spawn(
    process.execPath,
    [CLI, "serve", "--db", db, "--port", "0", "--prices", join(root, "examples/prices.yaml")],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      const url = /(http:\/\/\S+\/)/.exec(out)?.[1];
      if (url) resolve({ url, child });
    });
    child.on("exit", (code) => reject(new Error(`serve exited ${code}`)));
  });
}

/** Seconds one GET takes, and its status. */
async function timed(url) {
  const started = performance.now();
  const r = await fetch(url);
  await r.arrayBuffer();
  return { seconds: (performance.now() - started) / 1000, status: r.status };
}

const db = await warehouseOfWeeks(WEEKS);
const last = new Date((START + WEEKS * WEEK_HOURS * 3600 - 3600) * 1000).toISOString().slice(0, 7);
const { url, child } = await serve(db);
try {
  // the overview of the last month is computed as the dashboard starts: wait for it as a first visitor would
  const first = await timed(url);
  const overview = await (await fetch(`${url}?month=${last}`)).text();
  const accountIds = [...overview.matchAll(/href="\/account\/(\d+)\?/g)].map((m) => m[1]);
  const accountId = accountIds[0];
  // the account pages of the latest month, computed at start after the overview: wait for them all
  const startUp = performance.now();
  for (const id of new Set(accountIds)) await (await fetch(`${url}account/${id}`)).arrayBuffer();
  const startUpSeconds = (performance.now() - startUp) / 1000;
  const account = await (await fetch(`${url}account/${accountId}?month=${last}`)).text();
  const machineId = /href="\/machine\/(\d+)\?/.exec(account)?.[1];
  const cloudspaceId = /href="\/cloudspace\/(\d+)\?/.exec(account)?.[1];
  const pages = [
    ["overview (last month, computed at start)", `${url}?month=${last}`],
    ["overview, first month", `${url}?month=2026-10`],
    ["account, last month (computed at start)", `${url}account/${accountId}?month=${last}`],
    ["account, first month", `${url}account/${accountId}?month=2026-10`],
    ["machine", `${url}machine/${machineId}?month=${last}`],
    ["cloud space", `${url}cloudspace/${cloudspaceId}?month=${last}`],
    ["data quality (computed at start)", `${url}quality`],
    ["statement XLSX", `${url}account/${accountId}/statement.xlsx?month=${last}`],
  ];
  console.log(
    `${WEEKS} weeks of ${SHAPE.accounts} accounts × ${SHAPE.spaces * SHAPE.machines} machines; first request after start ${ms(first.seconds)}; ` +
      `the account pages computed at start after it ${ms(startUpSeconds)} later; ${load()}`,
  );
  const rows = [];
  for (const [name, page] of pages) {
    const cold = await timed(page);
    const warm = [];
    for (let i = 0; i < WARM_ROUNDS; i++) warm.push((await timed(page)).seconds);
    rows.push({ name, cold: cold.seconds, warm: median(warm), status: cold.status });
  }
  const billing = wall([
    CLI,
    "billing",
    "--db",
    db,
    "--month",
    "2026-10",
    "--prices",
    join(root, "examples/prices.yaml"),
    "--format",
    "csv",
  ]);
  const forecast = wall([CLI, "forecast", "--db", db, "--month", last, "--prices", join(root, "examples/prices.yaml")]);
  const node = wall(["-e", "0"]);
  for (const r of rows) {
    console.log(
      `${r.name.padEnd(42)} ${r.status}  cold ${ms(r.cold).padStart(9)}  again ${ms(r.warm).padStart(7)} (median of ${WARM_ROUNDS})  ${r.warm <= 0.2 ? "≤" : ">"} 200 ms target${r.cold <= 0.2 ? "" : `; cold ${(r.cold / billing).toFixed(2)}× billing --db of a month`}`,
    );
  }
  console.log(
    `baseline in this run: billing --db --month 2026-10 --prices (whole process) ${billing.toFixed(1)} s; node -e 0 ${ms(node)}; ${load()}`,
  );
  console.log(
    `forecast --db --month ${last} --prices (whole process; what the overview of a running month adds) ${forecast.toFixed(1)} s: ${(forecast / billing).toFixed(2)}× billing --db of a month`,
  );
} finally {
  child.kill("SIGTERM");
}

// the pages computed at start answer from memory above: their computation, cold, in this process (a fresh warehouse opened for it, as the dashboard does)
const { openWarehouse } = await import(join(root, "dist/store/openWarehouse.js"));
const { qualityData } = await import(join(root, "dist/serve/qualityData.js"));
const started = performance.now();
const w = await openWarehouse({ db });
try {
  await qualityData(w.connection, db, w.load);
} finally {
  w.close();
}
console.log(
  `data quality computed cold (the warehouse opened, then the page's library calls, in this process): ${ms((performance.now() - started) / 1000)}; ${load()}`,
);
rmSync(work, { recursive: true, force: true }); // this run's scratch folder (benchData makes one per run)
