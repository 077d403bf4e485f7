// How often a sync opens the warehouse to write. Each open takes the file's lock from readers,
// starts a DuckDB instance and ends with a checkpoint that rewrites the last, partly filled
// block of rows of every table appended to (about half a second, whatever was appended): a
// backfill by the day paid it twice a chunk. Counted through openDatabaseFile, the one
// function anything opens a warehouse with (docs/architecture.md), wrapped here.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  generateHours,
  sync,
  SyncIncompleteError,
  type CloudunitsError,
  type DecodedAccountHour,
} from "../../src/index.js";
import { openDatabaseFile } from "../../src/store/openDatabaseFile.js";
import { fakePlatform } from "../fetch/fakePlatform.js";
import { SECRETS, startServer, type FakeServer } from "../fetch/fakeService.js";

const opened = vi.hoisted(() => ({ toWrite: 0 }));
vi.mock("../../src/store/openDatabaseFile.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../src/store/openDatabaseFile.js")>();
  return {
    ...real,
    openDatabaseFile: (file: string, options: Parameters<typeof real.openDatabaseFile>[1] = {}) => {
      if (!options.readOnly) opened.toWrite++;
      return real.openDatabaseFile(file, options);
    },
  };
});

const START = 1790812800; // 2026-10-01T00:00Z
const DAYS = 3;
const UNTIL = START + DAYS * 24 * 3600;
const AUTH = { kind: "session", username: SECRETS.username, password: SECRETS.password } as const;

let dir: string;
let records: DecodedAccountHour[];
let server: FakeServer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "cloudunits-sync-opens-"));
  records = [...generateHours({ accounts: 2, spaces: 2, machines: 3, hours: DAYS * 24, start: START, seed: 7 })];
  server = await startServer(fakePlatform({ hours: records }));
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

/** Every row a report could read, table by table. */
async function contents(db: string): Promise<Record<string, unknown[]>> {
  const { instance, connection } = await openDatabaseFile(db, { readOnly: true });
  try {
    const out: Record<string, unknown[]> = {};
    for (const table of ["account_hours", "machines", "disks", "nics", "machine_facts", "sync_state"]) {
      const columns = table === "sync_state" ? "account_id, synced_until_epoch, synced_from_epoch, last_result" : "*";
      out[table] = (await connection.runAndReadAll(`SELECT ${columns} FROM ${table} ORDER BY ALL`)).getRows();
    }
    return out;
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** Syncs the two accounts' three days by the day into `db`; the opens to write it took. */
async function backfill(db: string, stepBytes?: number): Promise<number> {
  opened.toWrite = 0;
  const report = await sync({ url: server.url, auth: AUTH, db, since: START, until: UNTIL, chunk: "day", stepBytes });
  expect(report.accounts.map((a) => [a.status, a.chunksDone])).toEqual([
    ["synced", DAYS],
    ["synced", DAYS],
  ]);
  expect(report.totalAccountHours).toBe(records.length);
  return opened.toWrite;
}

describe("a sync opens the warehouse to write once per step", () => {
  it("chunks ingested as they come (stepBytes 0): once to plan, then once per chunk, its ingest and its record together (it was twice a chunk, and twice more)", async () => {
    expect(await backfill(join(dir, "each.duckdb"), 0)).toBe(1 + 2 * DAYS);
  }, 120_000);

  it("by default the accounts' chunks are gathered into one step: once to plan and once for both accounts (it was once per account), and the warehouse is the same", async () => {
    const db = join(dir, "gathered.duckdb");
    expect(await backfill(db)).toBe(1 + 1);
    expect(await contents(db)).toEqual(await contents(join(dir, "each.duckdb")));

    // an hourly run: the look-back's holes and the settle window of every account, one step for all
    opened.toWrite = 0;
    const again = await sync({ url: server.url, auth: AUTH, db, until: UNTIL });
    expect(again.accounts.map((a) => a.status)).toEqual(["up-to-date", "up-to-date"]);
    expect(opened.toWrite).toBe(1 + 1);
  }, 120_000);
});

describe("one step writes every account, and an account whose archive fails fails alone", () => {
  it("an hour rewritten for account 2 without --replace: 1 and 3 synced, 2 failed naming its conflict, its mark not moved, in one open; once replaced, one clean warehouse", async () => {
    const three = [...generateHours({ accounts: 3, spaces: 1, machines: 2, hours: DAYS * 24, start: START, seed: 9 })];
    const REWRITTEN = UNTIL - 2 * 3600; // inside the settle window of the next hourly run
    const original = three.find((r) => r.accountId === 2 && r.hourEpoch === REWRITTEN)!;
    const rewritten = structuredClone(original);
    rewritten.account.cloudspaces[0]!.machines.find((m) => m.type === "vm")!.mem *= 2;
    let now = UNTIL - 3600;
    const platform = await startServer(
      fakePlatform({
        hours: three,
        published: () =>
          three.filter((r) => r.hourEpoch < now).map((r) => (r === original && now === UNTIL ? rewritten : r)),
      }),
    );
    try {
      const db = join(dir, "three.duckdb");
      await sync({ url: platform.url, auth: AUTH, db, since: START, until: now });
      const before = await contents(db);

      now = UNTIL;
      opened.toWrite = 0;
      const failed = await sync({ url: platform.url, auth: AUTH, db, until: now, replace: false }).catch(
        (error: unknown) => error,
      );
      expect(failed).toBeInstanceOf(SyncIncompleteError);
      const report = failed as SyncIncompleteError;
      expect(report.failures.map((f) => [f.accountId, (f.error as CloudunitsError).code])).toEqual([[2, "BAD_INPUT"]]);
      expect(report.failures[0]!.error.message).toContain("account 2, hour 2026-10-03T22:00:00Z: different files");
      expect(opened.toWrite).toBe(1 + 1);
      const after = await contents(db);
      const marks = Object.fromEntries(
        after.sync_state!.map((r) => [Number((r as unknown[])[0]), Number((r as unknown[])[1])]),
      );
      expect(marks).toEqual({ 1: UNTIL, 2: UNTIL - 3600, 3: UNTIL }); // 2's chunk not recorded: asked again
      expect((after.sync_state as unknown[][]).map((r) => r[3])).toEqual(["synced", "failed", "synced"]);
      // the new hour of 1 and 3 is in; 2's held hour is the one held before
      const hours = (rows: unknown[]) => rows.map((r) => `${(r as unknown[])[0]}/${(r as unknown[])[1]}`);
      expect(hours(after.account_hours!).filter((h) => !hours(before.account_hours!).includes(h))).toEqual(
        expect.arrayContaining([`1/${UNTIL - 3600}`, `3/${UNTIL - 3600}`]),
      );

      // with replace (the default), the next run takes the rewritten hour; the warehouse is that of one clean sync of what the platform publishes
      const again = await sync({ url: platform.url, auth: AUTH, db, until: now });
      expect(again.accounts.map((a) => [a.accountId, a.rewrittenHours])).toEqual([
        [1, []],
        [2, [REWRITTEN]],
        [3, []],
      ]);
      const clean = join(dir, "three-clean.duckdb");
      await sync({ url: platform.url, auth: AUTH, db: clean, since: START, until: now });
      const { sync_state: _a, ...got } = await contents(db);
      const { sync_state: _b, ...expected } = await contents(clean);
      expect(got).toEqual(expected);
    } finally {
      await platform.close();
    }
  }, 180_000);
});
