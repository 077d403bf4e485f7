// A statistics query: the accounts held, the machine with the most CPU time in them (SQL over
// the warehouse), and its hourly CPU series, as JSON on stdout.
//
//   node busiest-machine.js INPUT|warehouse.duckdb
import { open } from "cloudunits";

const [input] = process.argv.slice(2);
if (input === undefined) {
  console.error("usage: busiest-machine INPUT|FILE.duckdb");
  process.exit(2);
}

const store = await open(input.endsWith(".duckdb") ? { db: input } : [input]);
try {
  const accounts = await store.accounts();
  const busiest = await store.query(
    "SELECT account_id, machine_id, sum(cpu_minutes) AS cpu_minutes FROM machines WHERE type = 'vm' GROUP BY 1, 2 ORDER BY 3 DESC, 1, 2 LIMIT 1");
  const accountId = busiest.get("account_id");
  const machineId = busiest.get("machine_id");
  if (typeof accountId !== "number" || typeof machineId !== "number") throw new Error(`${input}: no virtual machine`);
  const held = accounts.find((a) => a.accountId === accountId);
  if (held === undefined) throw new Error(`${input}: account ${accountId} is not held`);
  const stats = await store.machineStats({ machineId, accountId, from: held.start, till: held.end, include: ["cpu"] });
  console.log(JSON.stringify({ accounts: accounts.map((a) => ({ accountId: a.accountId, hours: a.hours, months: a.months })), accountId, machineId, stats }));
} finally {
  store.close();
}
