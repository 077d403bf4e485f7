import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateHours, type DecodedAccountHour } from "../../src/index.js";
import { isoUtc } from "../../src/base/time.js";
import { runCli } from "../helpers/runCli.js";
import { fakePlatform, zipOf } from "../fetch/fakePlatform.js";
import { SECRETS, startServer, type FakeServer } from "../fetch/fakeService.js";

const H = 3600;
const SESSION = { CLOUDUNITS_USERNAME: SECRETS.username, CLOUDUNITS_PASSWORD: SECRETS.password };
let dir: string;
let server: FakeServer;
let records: DecodedAccountHour[];
let start: number;
let published: DecodedAccountHour[];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "cloudunits-status-"));
  const currentHour = Math.floor(Date.now() / 1000 / H) * H;
  start = currentHour - 24 * H;
  records = [...generateHours({ accounts: 2, spaces: 1, machines: 2, hours: 24, start, seed: 9 })];
  // the platform has written account 2 up to 6 hours ago, with hours 3 and 4 of the day never written; account 1 is whole
  published = records.filter(
    (r) =>
      r.accountId === 1 ||
      (r.hourEpoch < currentHour - 6 * H && r.hourEpoch !== start + 3 * H && r.hourEpoch !== start + 4 * H),
  );
  server = await startServer(fakePlatform({ hours: records, published: () => published }));
}, 60_000);
afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

describe("cloudunits status", () => {
  it("says per account up to which hour it is complete, how far behind, what is missing and what is not yet synced; --max-lag exits 7 for the stale one, and a missing hour exits 7 (no count of hours accepts it)", async () => {
    const db = join(dir, "w.duckdb");
    const run = await runCli(["sync", "--url", server.url, "--db", db, "--since", String(start)], SESSION);
    expect(run.code).toBe(0);

    // account 2 has two hours missing: exit 7, even without --max-lag
    const json = await runCli(["status", "--db", db, "--format", "json"]);
    expect(json.code).toBe(7);
    expect(json.stderr).toContain(
      "1 account has missing or lost hours (accept a lost one with --accept-lost HOUR): account 2 (2 h missing)",
    );
    const status = JSON.parse(json.stdout);
    expect(status.accountHours).toBe(published.length);
    expect(status.period).toEqual({ first: isoUtc(start), last: isoUtc(start + 23 * H) });
    const [one, two] = status.accounts;
    expect(one).toMatchObject({
      accountId: 1,
      name: "Account 1",
      completeUntil: isoUtc(start + 24 * H),
      lagHours: 0,
      missing: [],
      notYetSynced: null,
    });
    expect(one.lastSync).toMatchObject({ result: "synced", error: null, syncedUntil: isoUtc(start + 24 * H) });
    // account 2: the two hours inside its data are missing; the last six are not yet synced, not missing
    expect(two).toMatchObject({
      accountId: 2,
      completeUntil: isoUtc(start + 18 * H),
      lagHours: 6,
      missing: [{ from: isoUtc(start + 3 * H), to: isoUtc(start + 4 * H), hours: 2 }],
      // hours of this morning: inside the sync's 72-hour look-back, asked again by every sync
      insideLookBack: [{ from: isoUtc(start + 3 * H), to: isoUtc(start + 4 * H), hours: 2 }],
      notYetSynced: { from: isoUtc(start + 18 * H), to: isoUtc(start + 23 * H), hours: 6 },
    });

    const text = await runCli(["status", "--db", db, "--max-lag", "3"]);
    expect(text.stdout).toContain(`account 2 (Account 2): complete until ${isoUtc(start + 18 * H)}, 6 h behind`);
    expect(text.stdout).toContain(`  missing: 2 h: ${isoUtc(start + 3 * H)}..${isoUtc(start + 4 * H)} (2 h)`);
    expect(text.stdout).toContain(
      `    of which inside the last sync's 72-hour look-back, asked again by every sync: 2 h: ${isoUtc(start + 3 * H)}..${isoUtc(start + 4 * H)} (2 h)`,
    );
    expect(text.stderr).toContain(
      "1 account is more than 3 h behind: account 2 (6 h); 1 account has missing or lost hours (accept a lost one with --accept-lost HOUR): account 2 (2 h missing)",
    );
    expect(text.code).toBe(7);
    expect((await runCli(["status", "--db", db, "--max-lag", "6"])).code).toBe(7);
    expect((await runCli(["status", "--db", db, "--max-lag", "6", "--max-missing", "2"])).code).toBe(2); // a count would hide the next hour

    // billing from the warehouse: the two hours inside account 2's data are missing, the six
    // after its last hour are not yet synced, the hours that have not ended are neither; each
    // warning once (the text report holds them; stderr does not repeat them)
    const archive = join(dir, "again.zip");
    await writeFile(archive, await zipOf(published.filter((r) => r.accountId === 1)));
    expect((await runCli(["ingest", archive, "--db", db])).code).toBe(0); // byte-identical copies: duplicates, history
    const bill = await runCli([
      "billing",
      "--db",
      db,
      "--start",
      isoUtc(start),
      "--end",
      isoUtc(start + 48 * H),
      "--account-id",
      "2",
      "--format",
      "text",
    ]);
    expect(bill.code).toBe(0);
    const out = bill.stdout + bill.stderr;
    expect(out.match(/account 2: 2 hours missing in [^\n]*/g)).toEqual([
      `account 2: 2 hours missing in [${isoUtc(start)}, ${isoUtc(start + 48 * H)}): ${isoUtc(start + 3 * H)}..${isoUtc(start + 4 * H)}`,
    ]);
    expect(out.match(/account 2: 6 hours of [^\n]* not yet synced[^\n]*/g)).toHaveLength(1);
    expect(out).toContain(`not yet synced (from ${isoUtc(start + 18 * H)}, after the last hour held)`);
    expect(bill.stderr).not.toMatch(/dropped|duplicate/);

    // the platform writes the late hours: the next sync gets them, and status says they arrived late
    published = records;
    expect((await runCli(["sync", "--url", server.url, "--db", db], SESSION)).code).toBe(0);
    const afterRun = await runCli(["status", "--db", db, "--format", "json"]);
    expect(afterRun.code, afterRun.stderr).toBe(0);
    const after = JSON.parse(afterRun.stdout);
    expect(after.accounts[1]).toMatchObject({
      lagHours: 0,
      missing: [],
      notYetSynced: null,
      late: [
        { from: isoUtc(start + 3 * H), to: isoUtc(start + 4 * H), hours: 2 },
        { from: isoUtc(start + 18 * H), to: isoUtc(start + 23 * H), hours: 6 },
      ],
    });
  }, 300_000);

  it("exits 7 on a warehouse holding no hour (a first sync that committed none), saying so", async () => {
    const failing = await startServer(fakePlatform({ hours: records, failingAccounts: [1, 2] }));
    try {
      const db = join(dir, "empty.duckdb");
      const first = await runCli(
        ["sync", "--url", failing.url, "--db", db, "--since", String(start), "--retries", "0"],
        SESSION,
      );
      expect(first.code, first.stderr).toBe(4);
      const run = await runCli(["status", "--db", db, "--max-lag", "3"], {
        CLOUDUNITS_TEST_NOW: isoUtc(start + 24 * H),
      });
      expect(run.code, run.stderr).toBe(7);
      expect(run.stderr).toContain("the warehouse holds no hour: no sync has committed one yet");
      expect(run.stdout).toContain("0 account-hours, no hours");
      expect(run.stdout).toMatch(/account 1 \(Account 1\): complete until .*\n  last sync: \S+, failed: /);
    } finally {
      await failing.close();
    }
  }, 120_000);
});
