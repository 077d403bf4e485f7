// Stats of one machine (and one cloud space, one account) over a month of a 10-account ×
// 200-machine data set read from a .duckdb file. The file is built once with the generator
// and kept in the temp folder (delete it to rebuild). Times are compared with a full scan
// of the machines table measured in the same run: ratios travel between machines, ms do not.
import { DuckDBInstance } from "@duckdb/node-api";
import { existsSync, renameSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  accountStats,
  appendAccountHours,
  cloudspaceStats,
  generateHours,
  machineStats,
  SCHEMA_SQL,
} from "../../dist/internal.js";

const DATASET = { accounts: 10, spaces: 10, machines: 20, hours: 720, seed: 1 }; // 200 machine slots per account, 30 days
const LIMIT_MS = 1000;
/** Issue 12's target for the stats of one machine from a .duckdb file (the 7 series, warm). */
const MACHINE_TARGET_MS = 100;
const RUNS = 7;
const file = join(
  tmpdir(),
  `cloudunits-bench-stats-a${DATASET.accounts}-s${DATASET.spaces}-m${DATASET.machines}-h${DATASET.hours}.duckdb`,
);

async function build() {
  const partial = `${file}.partial`;
  rmSync(partial, { force: true });
  const started = performance.now();
  const instance = await DuckDBInstance.create(partial);
  const connection = await instance.connect();
  await connection.run(SCHEMA_SQL);
  await connection.run("BEGIN");
  await appendAccountHours(connection, generateHours(DATASET));
  await connection.run("COMMIT");
  await connection.run("CHECKPOINT");
  connection.closeSync();
  instance.closeSync();
  renameSync(partial, file);
  console.log(
    `built ${file} (${(statSync(file).size / 1e6).toFixed(0)} MB) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
}

async function time(fn) {
  const t = performance.now();
  const result = await fn();
  return { ms: performance.now() - t, result };
}

async function median(fn) {
  const times = [];
  for (let i = 0; i < RUNS; i++) times.push((await time(fn)).ms);
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

if (!existsSync(file)) await build();

/** Opens the file read-only, runs `fn(connection, rows)`, closes it. */
async function withFile(fn) {
  const instance = await DuckDBInstance.create(file, { access_mode: "READ_ONLY" });
  const connection = await instance.connect();
  try {
    return await fn(connection, async (sql) => (await connection.runAndReadAll(sql)).getRowObjectsJS());
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

// The baseline: a full scan of one column of each of the three tables a machine's series read.
const FLOOR_SQL =
  "SELECT (SELECT sum(machine_id) FROM machines), (SELECT sum(machine_id) FROM disks), (SELECT sum(machine_id) FROM nics)";

const { from, till, machine, counts } = await withFile(async (connection, rows) => {
  const [counts] =
    await rows(`SELECT (SELECT count(*) FROM machines) AS machines, (SELECT count(*) FROM disks) AS disks,
    (SELECT count(*) FROM nics) AS nics, (SELECT min(hour_epoch) FROM account_hours) AS first, (SELECT max(hour_epoch) FROM account_hours) AS last`);
  // a machine present all month, in the middle of the data set
  const [machine] = await rows(`SELECT account_id, cloudspace_id, machine_id, count(*) AS hours FROM machines
    GROUP BY account_id, cloudspace_id, machine_id ORDER BY hours DESC, abs(account_id - 6), machine_id LIMIT 1`);
  return { from: Number(counts.first), till: Number(counts.last) + 3600, machine, counts };
});
console.log(
  `data set: ${counts.machines} machine-hours, ${counts.disks} disk-hours, ${counts.nics} NIC-hours; ` +
    `machine ${machine.machine_id} of account ${machine.account_id} has ${machine.hours} hours`,
);

const machineRequest = {
  machineId: Number(machine.machine_id),
  from,
  till,
  include: ["cpu", "memory", "vdisk-iops", "vm-iops", "vdisk-capacity", "vm-capacity", "network"],
};
// First calls after opening the file (what one CLI run pays), each in a fresh instance.
const cold = await withFile((connection) => time(() => machineStats(connection, machineRequest)));
if (cold.result.time.length !== Number(machine.hours))
  throw new Error(`machine stats returned ${cold.result.time.length} hours, expected ${machine.hours}`);
const coldFloor = await withFile((_, rows) => time(() => rows(FLOOR_SQL)));

let slow = cold.ms > LIMIT_MS;
await withFile(async (connection, rows) => {
  const floorMs = await median(() => rows(FLOOR_SQL));
  const scanMs = await median(() => rows("SELECT sum(cpu_minutes), sum(mem_mb) FROM machines"));
  console.log(
    `baseline: full scans of machine_id in machines, disks and nics ${floorMs.toFixed(1)} ms (first call after opening: ${coldFloor.ms.toFixed(1)} ms); ` +
      `sum of two columns of machines ${scanMs.toFixed(1)} ms`,
  );
  console.log(
    `machine stats, 7 series, first call after opening the file: ${cold.ms.toFixed(1)} ms (${(cold.ms / coldFloor.ms).toFixed(1)}× the first baseline call)`,
  );
  const cases = [
    [
      "machine, 7 series (no accountId: the id is checked across accounts)",
      () => machineStats(connection, machineRequest),
    ],
    [
      "machine, 7 series, with accountId",
      () => machineStats(connection, { ...machineRequest, accountId: Number(machine.account_id) }),
    ],
    [
      "machine, cpu only",
      () => machineStats(connection, { ...machineRequest, include: ["cpu"], accountId: Number(machine.account_id) }),
    ],
    [
      "cloud space, 5 series",
      () =>
        cloudspaceStats(connection, {
          cloudspaceId: Number(machine.cloudspace_id),
          accountId: Number(machine.account_id),
          from,
          till,
          include: ["vdisk-iops", "capacity", "cpu", "memory", "network"],
        }),
    ],
    [
      "account, 5 series",
      () =>
        accountStats(connection, {
          accountId: Number(machine.account_id),
          from,
          till,
          include: ["capacity", "vdisk-iops", "cpu", "memory", "network"],
        }),
    ],
  ];
  for (const [i, [name, fn]] of cases.entries()) {
    const ms = await median(fn);
    slow ||= ms > LIMIT_MS;
    const target = i < 2 ? `  [target < ${MACHINE_TARGET_MS} ms: ${ms < MACHINE_TARGET_MS ? "met" : "NOT met"}]` : "";
    console.log(`${name}: median of ${RUNS} ${ms.toFixed(1)} ms (${(ms / floorMs).toFixed(1)}× baseline)${target}`);
  }
});
if (slow) {
  console.log(`FAIL: a stats call took over ${LIMIT_MS} ms`);
  process.exitCode = 1;
}
