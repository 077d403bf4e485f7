// Cron runs against the loopback platform, as an operator keeps a warehouse: no hour is given up
// in silence, whatever the platform does (a stall of days, an hour that never comes, a rewrite
// long after the hour, an hour dated ahead, a full disk).
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateHours, type DecodedAccountHour } from "../../src/index.js";
import { isoUtc } from "../../src/base/time.js";
import { CLI, runCli } from "../helpers/runCli.js";
import { dataTables } from "../helpers/warehouse.js";
import { withRefusingFolder } from "../helpers/refusingDisk.js";
import { fakePlatform, zipOf } from "../fetch/fakePlatform.js";
import { SECRETS, startServer, type FakeServer } from "../fetch/fakeService.js";

const H = 3600;
const DAY = 24 * H;
const START = 1790812800; // 2026-10-01T00:00Z
const SESSION = { CLOUDUNITS_USERNAME: SECRETS.username, CLOUDUNITS_PASSWORD: SECRETS.password };

let dir: string;
const servers: FakeServer[] = [];
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "cloudunits-no-hour-lost-"));
});
afterAll(async () => {
  for (const server of servers) await server.close();
  await rm(dir, { recursive: true, force: true });
});

/** A platform holding `records`, serving at each request those `published()` gives. */
async function platform(records: DecodedAccountHour[], published: () => DecodedAccountHour[]): Promise<FakeServer> {
  const server = await startServer(fakePlatform({ hours: records, published }));
  servers.push(server);
  return server;
}

/** A clean ingest of `records` (the platform's archive) into a new warehouse. */
async function cleanIngest(records: DecodedAccountHour[], name: string): Promise<string> {
  const archive = join(dir, `${name}.zip`);
  await writeFile(archive, await zipOf(records));
  const db = join(dir, `${name}.duckdb`);
  const run = await runCli(["ingest", archive, "--db", db]);
  expect(run.code, run.stderr).toBe(0);
  return db;
}

/** The figures of a bill from a warehouse, names left out (sync stores those the service lists). */
async function figures(db: string, accountId: number, start: number, end: number): Promise<unknown> {
  const run = await runCli([
    "billing",
    "--db",
    db,
    "--start",
    String(start),
    "--end",
    String(end),
    "--account-id",
    String(accountId),
  ]);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout, (key, value: unknown) => (key === "name" ? undefined : value));
}

describe("a stall longer than the look-back", () => {
  it("9 days of nothing, cron runs twice a day throughout, then the platform catches up: the next run gets every hour, as a clean ingest of the whole archive", async () => {
    const DAYS = 13;
    const records = [
      ...generateHours({ accounts: 2, spaces: 1, machines: 2, hours: DAYS * 24, start: START, seed: 21 }),
    ];
    // the platform writes each hour an hour after it ends, but nothing from day 2 to day 11, 06:00 until an hour after
    // (the daily asking of the hours older than the look-back falls at 00:00: the run that finds the platform back is not one)
    const STALL = { from: START + 2 * DAY, to: START + 11 * DAY + 6 * H };
    const recoveredAt = STALL.to + H;
    let now = START;
    const published = () =>
      records.filter((r) => r.hourEpoch + H <= now && (r.hourEpoch < STALL.from || now >= recoveredAt));
    const server = await platform(records, published);
    const db = join(dir, "stall.duckdb");
    const sync = (...more: string[]) =>
      runCli(["sync", "--url", server.url, "--db", db, "--until", String(now), ...more], SESSION);

    for (now = START + 12 * H; now < recoveredAt; now += 12 * H) {
      const run = await sync(...(now === START + 12 * H ? ["--since", String(START)] : []));
      expect(run.code, run.stderr).toBe(0);
      // never "up to date" while hours are not written; the hours after the last one held are not yet synced, not missing
      expect(run.stderr).not.toMatch(/up to date|missing/);
      if (now > STALL.from + H) expect(run.stderr).toMatch(/account 1: nothing new, hours not written yet/);
    }
    // during the stall, status says how far behind, exits 7, and never "up to date"
    const during = await runCli(["status", "--db", db, "--max-lag", "3"]);
    expect(during.code).toBe(7);
    // (status reads the machine's clock: "behind" counts to the hour now)
    const behind = (Math.floor(Date.now() / 1000 / H) * H - STALL.from) / H;
    expect(during.stdout).toContain(`account 1 (Account 1): complete until ${isoUtc(STALL.from)}, ${behind} h behind`);
    expect(during.stdout).not.toMatch(/up to date/);
    expect(during.stderr).toMatch(/2 accounts are more than 3 h behind/);

    // the first run after the platform caught up asks the missing hours at once, older than the look-back or not
    now = recoveredAt + 5 * H; // day 11, 12:00
    const recovery = await sync("--format", "json");
    expect(recovery.code, recovery.stderr).toBe(0);
    const report = JSON.parse(recovery.stdout) as {
      accounts: { accountId: number; status: string; missingAsked: number; missing: unknown[]; lost: unknown[] }[];
    };
    for (const account of report.accounts) {
      expect(account).toMatchObject({ status: "synced", missing: [], lost: [] });
      expect(account.missingAsked).toBeGreaterThan(5 * 24); // the stall's days older than the 72-hour look-back
    }
    const upTo = now; // the hour before it ended, and was written an hour after
    const clean = await cleanIngest(
      records.filter((r) => r.hourEpoch < upTo),
      "stall-clean",
    );
    expect(await dataTables(db)).toEqual(await dataTables(clean));
    for (const accountId of [1, 2])
      expect(await figures(db, accountId, START, upTo)).toEqual(await figures(clean, accountId, START, upTo));
    // nothing missing: status exits 0, complete up to the run's end
    const after = await runCli(["status", "--db", db, "--format", "json"]);
    expect(after.code, after.stderr).toBe(0);
    expect(
      JSON.parse(after.stdout).accounts.map((a: { missing: unknown[]; completeUntil: string }) => [
        a.missing,
        a.completeUntil,
      ]),
    ).toEqual([
      [[], isoUtc(upTo)],
      [[], isoUtc(upTo)],
    ]);
  }, 600_000);
});

describe("an hour the platform never writes", () => {
  it("is said missing once when it leaves the look-back, asked again daily, and said lost at source by the run that gives it up (also --quiet); status and check list it for good", async () => {
    const HOLE = START + 5 * H;
    const records = [...generateHours({ accounts: 1, spaces: 1, machines: 2, hours: 96, start: START, seed: 4 })];
    let now = START;
    const published = () => records.filter((r) => r.hourEpoch + H <= now && r.hourEpoch !== HOLE);
    const server = await platform(records, published);
    const db = join(dir, "hole.duckdb");
    // a 6-hour look-back and a 2-day retention, so the hole leaves both within the test
    const sync = (...more: string[]) =>
      runCli(
        [
          "sync",
          "--url",
          server.url,
          "--db",
          db,
          "--until",
          String(now),
          "--look-back",
          "6",
          "--retention",
          "48",
          "--quiet",
          ...more,
        ],
        SESSION,
      );
    const runs: { at: number; stderr: string; asked: number }[] = [];
    for (now = START + 3 * H; now <= START + 90 * H; now += 3 * H) {
      const before = server.seen.length;
      const run = await sync(...(now === START + 3 * H ? ["--since", String(START)] : []));
      expect(run.code, run.stderr).toBe(0);
      runs.push({ at: now, stderr: run.stderr, asked: server.seen.length - before });
    }
    const said = (pattern: RegExp) => runs.filter((r) => pattern.test(r.stderr)).map((r) => r.at);
    // missing: said once, by the run that sees it leave the look-back (05:00 + 6 h, the run of 12:00)
    expect(said(/still not written after the 6-hour look-back \(missing\)/)).toEqual([START + 12 * H]);
    expect(runs.find((r) => r.at === START + 12 * H)!.stderr).toContain(
      "account 1: warning: 1 hour still not written after the 6-hour look-back (missing), asked again less often until the 48-hour retention ends: 2026-10-01T05:00:00Z",
    );
    // lost: said once, by the run whose retention no longer holds it (05:00 + 48 h, the run of 2 days 06:00), with --quiet
    expect(said(/lost at source/)).toEqual([START + 54 * H]);
    expect(runs.find((r) => r.at === START + 54 * H)!.stderr).toBe(
      "cloudunits: account 1: warning: 1 hour lost at source: never written by the platform within its 48-hour retention, given up for good: 2026-10-01T05:00:00Z\n",
    );
    // nothing else needed a human: every other run was silent
    expect(runs.filter((r) => r.stderr !== "").map((r) => r.at)).toEqual([START + 12 * H, START + 54 * H]);

    // status lists it for good and exits 7 until an operator accepts that very hour
    const status = await runCli(["status", "--db", db]);
    expect(status.code).toBe(7);
    expect(status.stdout).toContain(
      "  lost at source (never written within the platform's retention): 1 h: 2026-10-01T05:00:00Z",
    );
    expect(status.stderr).toContain(
      "1 account has missing or lost hours (accept a lost one with --accept-lost HOUR): account 1 (1 h lost at source, not accepted)",
    );
    expect((await runCli(["status", "--db", db, "--accept-lost", "2026-10-01T05:00Z"])).code).toBe(0);
    const check = await runCli(["check", "--db", db]);
    expect(check.stdout).toContain(
      "lost at source (never written within the platform's retention) [2026-10-01T05:00:00Z, 2026-10-01T06:00:00Z) 1 hour",
    );
  }, 600_000);
});

describe("a rewrite beyond the settle window", () => {
  it("is not seen by the hourly runs, is found by the daily verification pass (replaced, logged, said with --quiet), and the manifest keeps the replaced file beside the platform's", async () => {
    const records = [...generateHours({ accounts: 2, spaces: 1, machines: 2, hours: 48, start: START, seed: 8 })];
    let now = START;
    // at 36:00, the platform rewrites account 2's hour 28:00 (8 hours back): one VM's memory doubled
    const REWRITTEN = START + 28 * H;
    const REWRITE_AT = START + 36 * H;
    const rewritten = structuredClone(records.find((r) => r.accountId === 2 && r.hourEpoch === REWRITTEN)!);
    rewritten.account.cloudspaces[0]!.machines.find((m) => m.type === "vm")!.mem *= 2;
    const published = () =>
      records
        .filter((r) => r.hourEpoch + H <= now)
        .map((r) =>
          now >= REWRITE_AT && r === records.find((x) => x.accountId === 2 && x.hourEpoch === REWRITTEN)
            ? rewritten
            : r,
        );
    const server = await platform(records, published);
    const db = join(dir, "rewrite.duckdb");
    const sync = (...more: string[]) =>
      runCli(["sync", "--url", server.url, "--db", db, "--until", String(now), "--quiet", ...more], SESSION);
    for (now = START + 30 * H; now <= START + 40 * H; now += H) {
      const run = await sync(...(now === START + 30 * H ? ["--since", String(START)] : []));
      expect([run.code, run.stderr]).toEqual([0, ""]); // the hourly runs see nothing: 28:00 is past their 3-hour settle window
    }
    now = START + 40 * H;
    const verify = await sync("--verify", "1");
    expect(verify.code, verify.stderr).toBe(0);
    expect(verify.stderr).toBe(
      `cloudunits: account 2: 1 hour rewritten by the platform, the held one replaced: ${isoUtc(REWRITTEN)}\n`,
    );
    // the warehouse is the platform's archive as it is now
    const clean = await cleanIngest(
      published().filter((r) => r.hourEpoch < now),
      "rewrite-clean",
    );
    expect(await dataTables(db)).toEqual(await dataTables(clean));
    // the manifest keeps both files of the hour: the one replaced (superseded) and the platform's (loaded), with their SHA-256
    const instance = await DuckDBInstance.create(db, { access_mode: "READ_ONLY" });
    const connection = await instance.connect();
    try {
      const files = (
        await connection.runAndReadAll(
          "SELECT account_id, hour_epoch, status, content_sha256 FROM files WHERE status IN ('loaded', 'superseded') AND (status = 'superseded' OR hour_epoch = $h) ORDER BY account_id, status",
          { h: REWRITTEN },
        )
      )
        .getRowObjectsJS()
        .map((r) => ({
          accountId: Number(r.account_id),
          hourEpoch: Number(r.hour_epoch),
          status: r.status,
          sha256: String(r.content_sha256),
        }));
      expect(files.filter((f) => f.accountId === 2).map((f) => [f.hourEpoch, f.status])).toEqual([
        [REWRITTEN, "loaded"],
        [REWRITTEN, "superseded"],
      ]);
      expect(files.filter((f) => f.accountId === 1).map((f) => f.status)).toEqual(["loaded"]);
      const [loaded, superseded] = files.filter((f) => f.accountId === 2);
      expect(loaded!.sha256).toMatch(/^[0-9a-f]{64}$/);
      expect(superseded!.sha256).toMatch(/^[0-9a-f]{64}$/);
      expect(loaded!.sha256).not.toBe(superseded!.sha256);
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
    const status = JSON.parse((await runCli(["status", "--db", db, "--format", "json"])).stdout);
    expect(status.accounts[1].rewritten).toEqual([{ from: isoUtc(REWRITTEN), to: isoUtc(REWRITTEN), hours: 1 }]);
    // verifying again finds nothing new: the held file is the platform's
    const again = await sync("--verify", "1");
    expect([again.code, again.stderr]).toEqual([0, ""]);
  }, 600_000);
});

describe("a rewrite of an hour already invoiced", () => {
  it("is found by the verification pass: status names the invoice to correct, issuing the month again exits 9 changing nothing, and a correction clears it", async () => {
    const records = [...generateHours({ accounts: 1, spaces: 1, machines: 2, hours: 31 * 24, start: START, seed: 9 })];
    const NOV_1 = START + 31 * DAY;
    // on 1 November at 08:00 the platform rewrites 31 October 19:00: a disk of the account a thousand times its size
    const REWRITTEN = NOV_1 - 5 * H;
    const rewritten = structuredClone(records.find((r) => r.hourEpoch === REWRITTEN)!);
    rewritten.account.cloudspaces[0]!.machines.find((m) => m.type === "vm" && m.disks.length > 0)!.disks[0]!.size *=
      1000;
    let now = NOV_1 + 2 * H;
    const published = () =>
      records
        .filter((r) => r.hourEpoch + H <= now)
        .map((r) => (now >= NOV_1 + 8 * H && r.hourEpoch === REWRITTEN ? rewritten : r));
    const server = await platform(records, published);
    const db = join(dir, "issued.duckdb");
    const sync = (...more: string[]) =>
      runCli(["sync", "--url", server.url, "--db", db, "--until", String(now), "--quiet", ...more], SESSION);
    const first = await sync("--since", String(START));
    expect([first.code, first.stderr]).toEqual([0, ""]);

    const statement = join(dir, "issued-statement.yaml");
    const prices = join(dir, "issued-prices.yaml");
    await writeFile(
      statement,
      [
        "issuer: { legalName: Nordlicht Cloud Services GmbH, address: [Hafenstraße 12, 20457 Hamburg], country: DE, vatId: DE123456789,",
        "  peppolId: '9930:DE123456789', tax: { category: S, ratePercent: 19 } }",
        "numbering: { pattern: 'INV-{yyyy}-{seq:05}', creditNotePattern: 'CN-{yyyy}-{seq:05}' }",
        "customers:",
        "  '1': { legalName: Lumière Énergie SARL, address: [12 rue de la Gare, 69001 Lyon], country: FR, vatId: FR12345678901, peppolId: '9957:FR12345678901', tax: { category: AE } }",
      ].join("\n"),
    );
    await writeFile(prices, "currency: EUR\nprices: { CU: 0.05, SU: { perMonth: 40 }, TU: 0.002, NU: 20 }\n");
    const documents = [
      "--statement",
      statement,
      "--prices",
      prices,
      "--out",
      join(dir, "issued-out"),
      "--issue-date",
      "2026-11-01",
    ];
    const issue = () =>
      runCli(["invoices", "issue", "--db", db, "--month", "2026-10", ...documents], {
        CLOUDUNITS_TEST_NOW: isoUtc(now),
      });
    const issued = await issue();
    expect(issued.code, issued.stderr).toBe(0);
    expect(issued.stdout).toMatch(/^issued INV-2026-00001 \(account 1, 2026-11-01\)/m);
    const toCorrect = async () =>
      (
        JSON.parse((await runCli(["status", "--db", db, "--format", "json"])).stdout) as {
          invoicesToCorrect: unknown[];
        }
      ).invoicesToCorrect;
    expect(await toCorrect()).toEqual([]);

    // the hourly runs after the rewrite do not see it (19:00 is past their settle window); the warehouse still agrees with the invoice
    for (now = NOV_1 + 8 * H; now <= NOV_1 + 10 * H; now += H) {
      const run = await sync();
      expect([run.code, run.stderr]).toEqual([0, ""]);
    }
    expect(await toCorrect()).toEqual([]);
    // the nightly verification finds it, and the invoice is named as needing a correction
    const verify = await sync("--verify", "2");
    expect(verify.code, verify.stderr).toBe(0);
    expect(verify.stderr).toBe(
      `cloudunits: account 1: 1 hour rewritten by the platform, the held one replaced: ${isoUtc(REWRITTEN)}\n`,
    );
    expect(await toCorrect()).toEqual([
      {
        number: "INV-2026-00001",
        accountId: 1,
        start: isoUtc(START),
        end: isoUtc(NOV_1),
        issueDate: "2026-11-01",
        late: [],
        rewritten: [{ from: isoUtc(REWRITTEN), to: isoUtc(REWRITTEN), hours: 1 }],
        gone: [],
      },
    ]);
    const register = async () => (await runCli(["invoices", "list", "--db", db, "--format", "json"])).stdout;
    const before = await register();
    const again = await issue();
    expect(again.code, again.stderr).toBe(9);
    expect(again.stderr).toMatch(
      /INV-2026-00001 \(account 1\): amount due [\d.]+ EUR issued, [\d.]+ now \(\+[\d.]+\).*SU [\d.]+ → [\d.]+ SU-months/,
    );
    expect(await register()).toBe(before);
    const corrected = await runCli(
      [
        "invoices",
        "correct",
        "--db",
        db,
        "--number",
        "INV-2026-00001",
        "--reason",
        "an hour rewritten by the platform",
        ...documents,
      ],
      { CLOUDUNITS_TEST_NOW: isoUtc(now) },
    );
    expect(corrected.code, corrected.stderr).toBe(0);
    expect(corrected.stdout).toMatch(
      /^INV-2026-00001 \(amount due [\d.]+ EUR\) corrected: credit note CN-2026-00001 \(-[\d.]+\), new invoice INV-2026-00002 \([\d.]+\)/m,
    );
    expect(await toCorrect()).toEqual([]);
  }, 600_000);
});

describe("an hour dated later than the current hour", () => {
  it("is kept by ingest with a warning, refused by sync, and counts as neither complete, missing nor behind: a stale account stays stale", async () => {
    const currentHour = Math.floor(Date.now() / 1000 / H) * H;
    const start = currentHour - 24 * H;
    const records = [...generateHours({ accounts: 1, spaces: 1, machines: 2, hours: 24, start, seed: 6 })];
    // the platform has written the account up to 10 hours ago
    const published = () => records.filter((r) => r.hourEpoch < currentHour - 10 * H);
    const server = await platform(records, published);
    const db = join(dir, "future.duckdb");
    expect(
      (await runCli(["sync", "--url", server.url, "--db", db, "--since", String(start), "--quiet"], SESSION)).code,
    ).toBe(0);
    // generated data dated in June 2027, ingested by hand
    const FUTURE = 1811808000; // 2027-06-01T00:00Z
    const ahead = join(dir, "ahead.zip");
    await writeFile(
      ahead,
      await zipOf([...generateHours({ accounts: 1, spaces: 1, machines: 1, hours: 1, start: FUTURE, seed: 6 })]),
    );
    const ingest = await runCli(["ingest", ahead, "--db", db]);
    expect(ingest.code).toBe(0);
    expect(ingest.stderr).toContain(
      "warning: account 1: 1 hour later than the current hour, which no platform can have written yet (generated or test data?): 2027-06-01T00:00:00Z; kept",
    );

    // cron goes on: the next sync asks from the last hour held that has ended, not from June 2027
    const cron = await runCli(["sync", "--url", server.url, "--db", db, "--format", "json"], SESSION);
    expect(cron.code, cron.stderr).toBe(0);
    expect(JSON.parse(cron.stdout).accounts[0]).toMatchObject({ status: "waiting", until: isoUtc(currentHour) });
    const status = await runCli(["status", "--db", db, "--max-lag", "3"]);
    expect(status.code).toBe(7);
    expect(status.stdout).toContain(
      `account 1 (Account 1): complete until ${isoUtc(currentHour - 10 * H)}, 10 h behind`,
    );
    expect(status.stdout).toContain("  missing: 0 h\n");
    expect(status.stdout).toContain("  later than the current hour (not counted): 1 h: 2027-06-01T00:00:00Z");
    expect(status.stderr).toContain("1 account is more than 3 h behind: account 1 (10 h)");
    const check = await runCli(["check", "--db", db]);
    expect(check.stdout).toMatch(
      /account 1: \[[^)]*\) 14 hours: 14 held, 0 missing; 1 hour later than the current hour, not counted/,
    );

    // sync never asks for an hour the platform cannot have written
    const refused = await runCli(["sync", "--url", server.url, "--db", db, "--until", "2027-06-01"], SESSION);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `cloudunits: bad until 2027-06-01T00:00:00Z: it is after the current hour (${isoUtc(currentHour)}), and the platform cannot have written those hours`,
    );
  }, 300_000);
});

describe("a full disk under cron", () => {
  it("a sync that finds the disk full exits 8 with one line naming the warehouse, and keeps what it committed; status shows that sync failed, not the run before it", async () => {
    const records = [...generateHours({ accounts: 2, spaces: 2, machines: 6, hours: 72, start: START, seed: 2 })];
    const server = await platform(records, () => records);
    const folder = join(dir, "full");
    const db = join(folder, "w.duckdb");
    const sync = (until: number, ...more: string[]) => [
      "sync",
      "--url",
      server.url,
      "--db",
      db,
      "--until",
      String(until),
      "--quiet",
      ...more,
    ];
    const quote = (args: string[]) => args.map((a) => `'${a}'`).join(" ");
    // a day synced while there is room; then the disk has 64 KiB left, and the next run has two days to write
    const setup = [`${process.execPath} ${CLI} ${quote(sync(START + DAY, "--since", String(START)))}`];
    const [full] = await withRefusingFolder(folder, { kind: "full", freeKib: 64 }, setup, [sync(START + 3 * DAY)], {
      keep: [`cp ${db} ${dir}/full-left.duckdb`, `cp ${db}.wal ${dir}/full-left.duckdb.wal 2>/dev/null || true`],
      env: SESSION,
    });
    const oneLine = (what: string) =>
      new RegExp(
        `^cloudunits: cannot ${what} ${db.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: no space left on the device; nothing committed was lost \\(the transaction in flight was rolled back; the warehouse keeps every commit before it\\): free some space \\(or raise the quota\\) and run again\\n$`,
      );
    expect(full!.code).toBe(8);
    expect(full!.stderr).toMatch(oneLine("write"));
    const status = await runCli(["status", "--db", join(dir, "full-left.duckdb"), "--format", "json"], {
      CLOUDUNITS_TEST_NOW: isoUtc(START + 3 * DAY),
    });
    const left = JSON.parse(status.stdout);
    expect(left.accountHours).toBeGreaterThanOrEqual(2 * 24);
    // the sync that stopped is the accounts' last sync, failed: never the "synced" of the run before it
    for (const account of left.accounts) {
      expect(account.lastSync.result).toBe("failed");
      expect(account.lastSync.error).toMatch(
        /^the sync that started at \S+ \(PID \d+ on .*\) stopped before it recorded a result: killed, or the machine refused a write/,
      );
    }
    const text = await runCli(["status", "--db", join(dir, "full-left.duckdb")], {
      CLOUDUNITS_TEST_NOW: isoUtc(START + 3 * DAY),
    });
    expect(text.stdout).toMatch(/  last sync: \S+, failed: the sync that started at/);
  }, 300_000);
});
