// How often a sync opens the warehouse to write. Each open takes the file's lock from readers,
// starts a DuckDB instance and ends with a checkpoint that rewrites the last, partly filled
// block of rows of every table appended to (about half a second, whatever was appended): a
// backfill by the day paid it twice a chunk. Counted through openDatabaseFile, the one
// function anything opens a warehouse with (docs/architecture.md), wrapped here.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { generateHours, sync, type DecodedAccountHour } from "../../src/index.js";
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
  expect(report.accounts.map((a) => [a.status, a.chunksDone])).toEqual([["synced", DAYS], ["synced", DAYS]]);
  expect(report.totalAccountHours).toBe(records.length);
  return opened.toWrite;
}

describe("a sync opens the warehouse to write once per step", () => {
  it("chunks ingested as they come (stepBytes 0): once to plan, then once per chunk, its ingest and its record together (it was twice a chunk, and twice more)", async () => {
    expect(await backfill(join(dir, "each.duckdb"), 0)).toBe(1 + 2 * DAYS);
  }, 120_000);

  it("by default an account's chunks are gathered into one step: once to plan and once per account, and the warehouse is the same", async () => {
    const db = join(dir, "gathered.duckdb");
    expect(await backfill(db)).toBe(1 + 2);
    expect(await contents(db)).toEqual(await contents(join(dir, "each.duckdb")));

    // an hourly run: the look-back's holes and the settle window of each account, one step each
    opened.toWrite = 0;
    const again = await sync({ url: server.url, auth: AUTH, db, until: UNTIL });
    expect(again.accounts.map((a) => a.status)).toEqual(["up-to-date", "up-to-date"]);
    expect(opened.toWrite).toBe(1 + 2);
  }, 120_000);
});
