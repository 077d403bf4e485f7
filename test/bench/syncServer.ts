// The loopback fake of the platform for sync.bench.mjs, in its own process (so serving the
// zips weighs on neither side's timing): `node --import tsx syncServer.ts ACCOUNTS SPACES
// MACHINES HOURS START [HOLE...]`; prints its address on a line, serves until killed. Each HOLE
// (an hour's epoch) is an hour the platform never writes, of every account.
import { generateHours } from "../../src/generate/generateHours.js";
import { fakePlatform } from "../fetch/fakePlatform.js";
import { startServer } from "../fetch/fakeService.js";

const [accounts, spaces, machines, hours, start, ...holes] = process.argv.slice(2).map(Number) as [
  number,
  number,
  number,
  number,
  number,
  ...number[],
];
const records = [...generateHours({ accounts, spaces, machines, hours, start, seed: 11 })];
const written = records.filter((r) => !holes.includes(r.hourEpoch));
const server = await startServer(fakePlatform({ hours: records, published: () => written }));
process.stdout.write(`${server.url}\n`);
