import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { generateHours, open, sync, SyncIncompleteError, type DecodedAccountHour } from "../../src/index.js";
import { CLI, runCli } from "../helpers/runCli.js";
import {
  ACCOUNTS_LIST,
  CLOUDSPACES_LIST,
  accountName,
  cloudspaceName,
  fakePlatform,
  listsOf,
  zipOf,
  type FakePlatformOptions,
} from "../fetch/fakePlatform.js";
import {
  CONSUMPTION_PATH,
  LOGIN_PATH,
  SECRETS,
  SECRET_VALUES,
  startServer,
  type FakeServer,
} from "../fetch/fakeService.js";

const START = 1790812800; // 2026-10-01T00:00Z
const DAYS = 3;
const UNTIL = START + DAYS * 24 * 3600;
const SESSION = { CLOUDUNITS_USERNAME: SECRETS.username, CLOUDUNITS_PASSWORD: SECRETS.password };

let dir: string;
let records: DecodedAccountHour[];
let server: FakeServer | undefined;
let dbCount = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "cloudunits-sync-"));
  // two accounts, the second missing a few hours (the platform has no file for them)
  records = [
    ...generateHours({
      accounts: 2,
      spaces: 2,
      machines: 3,
      hours: DAYS * 24,
      start: START,
      seed: 5,
      missingHours: 0.05,
    }),
  ];
});
afterEach(async () => {
  await server?.close();
  server = undefined;
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function serve(options: Partial<FakePlatformOptions> = {}): Promise<FakeServer> {
  server = await startServer(fakePlatform({ hours: records, ...options }));
  return server;
}

const newDb = () => join(dir, `w${++dbCount}.duckdb`);
const syncArgs = (url: string, db: string, ...more: string[]) => [
  "sync",
  "--url",
  url,
  "--db",
  db,
  "--since",
  "2026-10-01",
  "--until",
  String(UNTIL),
  ...more,
];

/** Everything a report could read from a warehouse: data, names, sync marks, loaded files. */
async function contents(db: string): Promise<Record<string, unknown[]>> {
  const instance = await DuckDBInstance.create(db, { access_mode: "READ_ONLY" });
  const connection = await instance.connect();
  try {
    const rows = async (sql: string) =>
      (await connection.runAndReadAll(sql))
        .getRowObjectsJS()
        .map((r) => JSON.stringify(r, (_k, v) => (typeof v === "bigint" ? Number(v) : v)));
    const out: Record<string, unknown[]> = {};
    for (const table of ["account_hours", "cloudspaces", "machines", "gateways", "disks", "nics"])
      out[table] = await rows(`SELECT * FROM ${table} ORDER BY ALL`);
    out.names = await rows("SELECT kind, id, name, account_id FROM entity_names ORDER BY ALL");
    out.sync = await rows("SELECT account_id, synced_until_epoch FROM sync_state ORDER BY ALL");
    out.loaded = await rows(
      "SELECT content_sha256, account_id, hour_epoch FROM files WHERE status = 'loaded' ORDER BY ALL",
    );
    return out;
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** Starts `cloudunits sync` as a child process; resolves with its exit code or signal. */
function startSync(args: string[]): {
  child: ReturnType<typeof spawn>;
  done: Promise<{ code: number | null; signal: string | null; stderr: string }>;
} {
  const env = { ...process.env, CI: "1", ...SESSION };
  const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr!.on("data", (c: Buffer) => (stderr += c.toString()));
  const done = new Promise<{ code: number | null; signal: string | null; stderr: string }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal, stderr })),
  );
  return { child, done };
}

describe("cloudunits sync", () => {
  it("lists accounts and cloud spaces, stores their names, and downloads each account day by day (exit 0)", async () => {
    const { url } = await serve();
    const db = newDb();
    const run = await runCli(syncArgs(url, db, "--chunk", "day"), SESSION);
    expect(run.stderr).toMatch(
      /account 1: synced \[2026-10-01T00:00:00Z, 2026-10-04T00:00:00Z\): \d+ new account-hours/,
    );
    expect(run.code).toBe(0);
    for (const secret of SECRET_VALUES) expect(run.stderr + run.stdout).not.toContain(secret);
    // one request per account and day, each asking its last hour as `end` (the platform includes it)
    const asked = server!
      .seenAt(CONSUMPTION_PATH)
      .map((r) => [r.query.get("accountId"), Number(r.query.get("start")), Number(r.query.get("end"))]);
    // (accounts download side by side: each account's days in order)
    expect(asked.filter(([id]) => id === "1")).toEqual(
      [0, 1, 2].map((d) => ["1", START + d * 86400, START + (d + 1) * 86400 - 3600]),
    );
    expect(asked.filter(([id]) => id === "2")).toEqual(
      [0, 1, 2].map((d) => ["2", START + d * 86400, START + (d + 1) * 86400 - 3600]),
    );
    expect(asked).toHaveLength(6);
    expect(server!.seenAt(ACCOUNTS_LIST)).toHaveLength(1);
    expect(server!.seenAt(CLOUDSPACES_LIST)).toHaveLength(1);
    const got = await contents(db);
    expect(got.account_hours).toHaveLength(records.length);
    const lists = listsOf(records);
    expect(got.names).toHaveLength(lists.accounts.length + lists.cloudspaces.length);
    expect(got.sync).toEqual([
      JSON.stringify({ account_id: 1, synced_until_epoch: UNTIL }),
      JSON.stringify({ account_id: 2, synced_until_epoch: UNTIL }),
    ]);

    // billing from --db names entities from the warehouse; a names file still wins for what it names
    const namesFile = join(dir, "names.csv");
    await writeFile(namesFile, "kind,id,name\naccount,1,Finance\n");
    const bill = await runCli([
      "billing",
      "--db",
      db,
      "--start",
      "2026-10-01",
      "--end",
      "2026-10-02",
      "--account-id",
      "1",
      "--names",
      namesFile,
    ]);
    expect(bill.code).toBe(0);
    const { account } = JSON.parse(bill.stdout);
    expect(account.name).toBe("Finance");
    const spaceIds = Object.keys(account.cloudspaces);
    expect(spaceIds.length).toBeGreaterThan(0);
    for (const id of spaceIds) expect(account.cloudspaces[id].name).toBe(cloudspaceName(Number(id)));
    const store = await open({ db });
    try {
      expect((await store.calculate({ start: START, end: UNTIL, accountId: 2 })).account.name).toBe(accountName(2));
    } finally {
      store.close();
    }

    // a second run asks again only for the hours the platform has not written (inside the
    // 72-hour look-back) and the settle window's last 3 hours: nothing new, the warehouse
    // unchanged, and never "up to date" while the platform has not written every hour
    const again = await runCli(["sync", "--url", url, "--db", db, "--until", String(UNTIL)], SESSION);
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/account 1: nothing new, hours not written yet \(\d+ hours asked again\)/);
    expect(again.stderr).not.toMatch(/up to date/);
    const askedAgain = server!
      .seenAt(CONSUMPTION_PATH)
      .slice(6)
      .flatMap((r) => {
        const hours = [];
        for (let h = Number(r.query.get("start")); h <= Number(r.query.get("end")); h += 3600)
          hours.push(`${r.query.get("accountId")}/${h}`);
        return hours;
      });
    const held = new Set(records.map((h) => `${h.accountId}/${h.hourEpoch}`));
    const expectedAgain = [1, 2].flatMap((id) =>
      Array.from({ length: DAYS * 24 }, (_, i) => START + i * 3600)
        .filter((h) => h >= UNTIL - 3 * 3600 || !held.has(`${id}/${h}`))
        .map((h) => `${id}/${h}`),
    );
    expect([...askedAgain].sort()).toEqual([...expectedAgain].sort()); // the accounts side by side
    expect(again.stderr).toMatch(
      /account 2: \d+ hours? not yet written by the platform, asked again by the next runs: 2026-10-0/,
    );
    expect(await contents(db)).toEqual(got);
  }, 300_000);

  it("killed with SIGKILL mid-download and mid-ingest, then run again, gives the warehouse of one clean run", async () => {
    const { url } = await serve();
    const clean = newDb();
    expect(
      (await runCli(syncArgs(url, clean, "--account-id", "1", "--account-id", "2", "--chunk", "day"), SESSION)).code,
    ).toBe(0);
    const expected = await contents(clean);

    const db = newDb();
    // 1: killed while the 5th download waits for its answer: the accounts' days downloaded so far
    // wait for the step that writes them all, so nothing is written
    let first: ReturnType<typeof startSync> | undefined;
    let count = 0;
    await server!.close();
    await serve({
      beforeConsumption: () => (++count === 5 ? new Promise(() => first!.child.kill("SIGKILL")) : undefined),
    });
    first = startSync(syncArgs(server!.url, db, "--account-id", "1", "--account-id", "2", "--chunk", "day"));
    expect((await first.done).signal).toBe("SIGKILL");
    const afterFirst = await contents(db);
    expect(afterFirst.account_hours).toHaveLength(0);
    expect(afterFirst.sync).toEqual([]); // nothing recorded

    // 2: killed while it writes the accounts' chunks into the warehouse: from the 2nd answer on, the
    // database's write-ahead log is watched, and the process killed the moment it appears
    let second: ReturnType<typeof startSync> | undefined;
    let killedWriting = false;
    const killWhenWriting = () => {
      const timer = setInterval(() => {
        if (!existsSync(`${db}.wal`)) return;
        clearInterval(timer);
        killedWriting = second!.child.kill("SIGKILL");
      }, 1);
      void second!.done.then(() => clearInterval(timer));
    };
    count = 0;
    await server!.close();
    await serve({ beforeConsumption: () => (++count === 2 ? killWhenWriting() : undefined) });
    second = startSync(syncArgs(server!.url, db, "--account-id", "1", "--account-id", "2", "--chunk", "day"));
    expect((await second.done).signal).toBe("SIGKILL");
    expect(killedWriting).toBe(true);

    // 3: the same command run to the end (the warehouse may hold no hour yet: the first write of step 2 was killed)
    const last = await runCli(syncArgs(server!.url, db, "--account-id", "1", "--account-id", "2"), SESSION);
    expect(last.stderr).toContain("now holds");
    expect(last.code).toBe(0);
    expect(await contents(db)).toEqual(expected);
  }, 300_000);

  it("an account whose download fails is named, the others are synced, exit 4; a rerun completes it", async () => {
    const { url } = await serve({ failingAccounts: [1] });
    const db = newDb();
    const run = await runCli([...syncArgs(url, db), "--retries", "0", "--chunk", "day"], SESSION);
    expect(run.code).toBe(4);
    expect(run.stderr).toMatch(/account 1: FAILED after 0 of 3 chunks/);
    expect(run.stderr).toMatch(
      /1 of 2 accounts could not be synced[^\n]*\n {2}account 1: the consumption download of account 1 failed \(HTTP 500/,
    );
    expect(run.stderr).toMatch(/account 2: synced/);
    const partial = await contents(db);
    // the failed account is recorded with nothing asked yet, so a rerun needs no --since
    expect(partial.sync).toEqual([
      JSON.stringify({ account_id: 1, synced_until_epoch: START }),
      JSON.stringify({ account_id: 2, synced_until_epoch: UNTIL }),
    ]);
    expect(partial.account_hours.length).toBe(records.filter((h) => h.accountId === 2).length);

    await server!.close();
    await serve();
    const rerun = await runCli(["sync", "--url", server!.url, "--db", db, "--until", String(UNTIL)], SESSION);
    expect(rerun.code).toBe(0);
    expect(rerun.stderr).toMatch(/account 2: nothing new, hours not written yet/);
    expect((await contents(db)).account_hours).toHaveLength(records.length);
  }, 300_000);

  it("the library reports each account and throws SyncIncompleteError naming the failed one", async () => {
    const { url } = await serve({ failingAccounts: [2] });
    const seen: string[] = [];
    const error = await sync({
      url,
      auth: { kind: "session", username: SECRETS.username, password: SECRETS.password },
      db: newDb(),
      since: START,
      until: START + 86400,
      retries: 0,
      onAccount: (a) => seen.push(`${a.accountId}:${a.status}`),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SyncIncompleteError);
    expect((error as SyncIncompleteError).failures.map((f) => f.accountId)).toEqual([2]);
    expect(seen).toEqual(["1:synced", "2:failed"]);
  }, 120_000);

  it("a session key that expires mid-sync is renewed by logging in again, and the sync completes", async () => {
    const inner = fakePlatform({ hours: records });
    let sinceLogin = 0;
    server = await startServer((request, response) => {
      if (request.path === LOGIN_PATH) sinceLogin = 0;
      if (request.path === CONSUMPTION_PATH && ++sinceLogin > 2)
        return response.writeHead(401, { "content-type": "text/plain" }).end("session expired");
      return inner(request, response);
    });
    const db = newDb();
    const report = await sync({
      url: server.url,
      auth: { kind: "session", username: SECRETS.username, password: SECRETS.password },
      db,
      accountIds: [1],
      since: START,
      until: UNTIL,
      retries: 0,
      chunk: "day",
    });
    expect(report.accounts.map((a) => [a.status, a.chunksDone])).toEqual([["synced", 3]]);
    expect(report.totalAccountHours).toBe(records.filter((h) => h.accountId === 1).length);
    expect(server.seenAt(LOGIN_PATH)).toHaveLength(2);
  }, 120_000);

  it("a list in an unknown shape fails naming the endpoint (exit 4); an empty warehouse without --since is a usage error (exit 2)", async () => {
    const { url } = await serve({ accountsListBody: { accounts: [{ id: 1, name: "a" }] } });
    const bad = await runCli(syncArgs(url, newDb()), SESSION);
    expect(bad.code).toBe(4);
    expect(bad.stderr).toMatch(
      /POST \/restmachine\/cloudapi\/accounts\/list answered in a shape cloudunits does not know: got an object; expected a JSON array of objects with "id" and "name"/,
    );
    await server!.close();
    const good = await serve();
    const noSince = await runCli(["sync", "--url", good.url, "--db", newDb(), "--account-id", "1"], SESSION);
    expect(noSince.code).toBe(2);
    expect(noSince.stderr).toMatch(/holds no hours yet: give --since/);
  }, 120_000);

  it("hours after the last one held are not yet synced, never 'missing', when they leave the look-back; a hole before it is missing", async () => {
    // account 1's platform wrote hours 0, 2 and 3 and then stopped (hour 1 never written)
    const H = 3600;
    const published = records.filter(
      (r) => r.accountId === 1 && r.hourEpoch < START + 4 * H && r.hourEpoch !== START + H,
    );
    const { url } = await serve({ published: () => published });
    const db = newDb();
    const run = (until: number, ...more: string[]) =>
      runCli(
        [
          "sync",
          "--url",
          url,
          "--db",
          db,
          "--account-id",
          "1",
          "--look-back",
          "2",
          "--until",
          String(START + until * H),
          ...more,
        ],
        SESSION,
      );
    const first = await run(4, "--since", "2026-10-01", "--format", "json");
    expect(first.code).toBe(0);
    // hour 1 leaves the 2-hour window at until 4 with hours held after it: missing
    expect(JSON.parse(first.stdout).accounts[0].missing).toEqual([
      { from: "2026-10-01T01:00:00Z", to: "2026-10-01T01:00:00Z", hours: 1 },
    ]);
    // hours 4 to 6 leave the window at until 9, after the last hour held (3): not yet synced, nothing for a human
    const later = await run(9, "--format", "json");
    expect(later.code).toBe(0);
    expect(JSON.parse(later.stdout).accounts[0].missing).toEqual([]);
    const quiet = await run(10, "--quiet");
    expect([quiet.code, quiet.stderr, quiet.stdout]).toEqual([0, "", ""]);
    const status = await runCli(["status", "--db", db, "--format", "json"]);
    const account = JSON.parse(status.stdout).accounts[0];
    expect(account.missing).toEqual([{ from: "2026-10-01T01:00:00Z", to: "2026-10-01T01:00:00Z", hours: 1 }]);
    expect(account.completeUntil).toBe("2026-10-01T04:00:00Z");
  }, 120_000);

  it("a late hour published while cron did not run for longer than the look-back is asked a last time, not given up unasked", async () => {
    // account 1's hours 0 to 7; hour 2 is written late, after the first run asked for it
    const H = 3600;
    const all = records.filter((r) => r.accountId === 1 && r.hourEpoch < START + 8 * H);
    let lateWritten = false;
    const { url } = await serve({ published: () => all.filter((r) => lateWritten || r.hourEpoch !== START + 2 * H) });
    const db = newDb();
    const run = (until: number, ...more: string[]) =>
      runCli(
        [
          "sync",
          "--url",
          url,
          "--db",
          db,
          "--account-id",
          "1",
          "--look-back",
          "2",
          "--until",
          String(START + until * H),
          "--format",
          "json",
          ...more,
        ],
        SESSION,
      );
    const first = await run(4, "--since", "2026-10-01");
    expect(JSON.parse(first.stdout).accounts[0].notYetWritten).toEqual([
      { from: "2026-10-01T02:00:00Z", to: "2026-10-01T02:00:00Z", hours: 1 },
    ]);
    lateWritten = true;
    // the host was down: the next run is 4 hours later, so hour 2 is out of its 2-hour window
    const next = await run(8);
    expect(next.code).toBe(0);
    const account = JSON.parse(next.stdout).accounts[0];
    expect(account.missing).toEqual([]);
    expect(account.late).toEqual([{ from: "2026-10-01T02:00:00Z", to: "2026-10-01T02:00:00Z", hours: 1 }]);
    const clean = newDb();
    await writeFile(join(dir, "hours-0-7.zip"), await zipOf(all));
    expect((await runCli(["ingest", join(dir, "hours-0-7.zip"), "--db", clean])).code).toBe(0);
    const data = async (file: string) => {
      const { names: _n, sync: _s, ...rest } = await contents(file);
      return rest;
    };
    expect(await data(db)).toEqual(await data(clean));
  }, 120_000);
});
