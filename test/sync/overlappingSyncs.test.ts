import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateHours } from "../../src/index.js";
import { runCli } from "../helpers/runCli.js";
import { fakePlatform } from "../fetch/fakePlatform.js";
import { CONSUMPTION_PATH, SECRETS, startServer, type FakeServer } from "../fetch/fakeService.js";

// Two syncs of one warehouse at once (an hourly cron line whose run outlasts the hour, the nightly
// verification beside it): the second leaves the hours the first is downloading to it, so no hour
// is downloaded twice, and the warehouse ends as one run would leave it.

const H = 3600;
const DAY = 24 * H;
const START = 1790812800; // 2026-10-01T00:00Z
const SESSION = { CLOUDUNITS_USERNAME: SECRETS.username, CLOUDUNITS_PASSWORD: SECRETS.password };
let dir: string;
let server: FakeServer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "cloudunits-overlap-"));
  const records = [...generateHours({ accounts: 2, spaces: 1, machines: 2, hours: 11 * 24, start: START, seed: 6 })];
  // each download takes a moment, as the platform's do: the first run is still downloading when the second plans
  server = await startServer(
    fakePlatform({ hours: records, beforeConsumption: () => new Promise((resolve) => setTimeout(resolve, 400)) }),
  );
}, 60_000);
afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

/** The account-hours each getConsumption asked since `from` (the platform includes the `end` hour). */
function askedHours(from: number): string[] {
  return server
    .seenAt(CONSUMPTION_PATH)
    .slice(from)
    .flatMap((r) => {
      const [account, start, end] = ["accountId", "start", "end"].map((k) => Number(r.query.get(k)));
      return Array.from({ length: (end! - start!) / H + 1 }, (_, i) => `${account}@${start! + i * H}`);
    });
}

describe("two syncs at once", () => {
  it("never download the same hour twice: the second leaves the first's hours to it, says so, and both exit 0", async () => {
    const db = join(dir, "w.duckdb");
    const first = await runCli(
      ["sync", "--url", server.url, "--db", db, "--since", String(START), "--until", String(START + DAY)],
      SESSION,
    );
    expect(first.code, first.stderr).toBe(0);

    // cron's line, twice at once: ten days new for each account
    const before = server.seenAt(CONSUMPTION_PATH).length;
    const cron = () =>
      runCli(["sync", "--url", server.url, "--db", db, "--until", String(START + 11 * DAY)], {
        ...SESSION,
        CLOUDUNITS_TEST_NOW: "2026-10-12T00:30:00Z",
      });
    const runs = await Promise.all([cron(), cron()]);
    for (const run of runs) expect(run.code, run.stderr).toBe(0);
    const asked = askedHours(before);
    expect(asked.length).toBe(new Set(asked).size); // no account-hour asked twice
    expect(new Set(asked).size).toBe(2 * 10 * 24); // what one run asks: ten days per account (the settle window is within them)
    // one run left every hour to the other, and says so per account
    const left = (accountId: number) =>
      new RegExp(
        `account ${accountId}: 240 hours left to the sync already downloading them \\(PID \\d+ on .*, started \\S+\\), not asked again`,
      );
    expect(runs.filter((r) => left(1).test(r.stderr) && left(2).test(r.stderr))).toHaveLength(1);
    expect(runs.filter((r) => /left to the sync/.test(r.stderr))).toHaveLength(1);

    // the warehouse holds every hour, as after one run; a third run, alone, asks only the settle window again
    const status = JSON.parse(
      (await runCli(["status", "--db", db, "--format", "json"], { CLOUDUNITS_TEST_NOW: "2026-10-12T00:00:00Z" }))
        .stdout,
    );
    expect(status.accountHours).toBe(2 * 11 * 24);
    const third = server.seenAt(CONSUMPTION_PATH).length;
    const alone = await cron();
    expect(alone.code, alone.stderr).toBe(0);
    expect(askedHours(third)).toHaveLength(2 * 3);
  }, 180_000);
});
