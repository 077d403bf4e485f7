/** `sync` against a loopback service that answers what it was not asked. */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { generateHours, sync, SyncIncompleteError, type DecodedAccountHour } from "../../src/index.js";
import { fakePlatform, zipOf } from "../fetch/fakePlatform.js";
import { CONSUMPTION_PATH, SECRETS, startServer, type FakeServer, type Handler } from "../fetch/fakeService.js";

const START = 1790812800; // 2026-10-01T00:00Z
const DAY = 86400;
const AUTH = { kind: "session", username: SECRETS.username, password: SECRETS.password } as const;

let dir: string;
let records: DecodedAccountHour[];
let server: FakeServer | undefined;
let dbCount = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "cloudunits-hostile-sync-"));
  records = [...generateHours({ accounts: 1, spaces: 1, machines: 2, hours: 2 * 24, start: START, seed: 3 })];
});
afterEach(async () => {
  await server?.close();
  server = undefined;
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const newDb = () => join(dir, `w${++dbCount}.duckdb`);

async function serve(handler: Handler): Promise<FakeServer> {
  server = await startServer(handler);
  return server;
}

async function rows(db: string, sql: string): Promise<Record<string, unknown>[]> {
  const instance = await DuckDBInstance.create(db, { access_mode: "READ_ONLY" });
  const connection = await instance.connect();
  try {
    return (await connection.runAndReadAll(sql)).getRowObjectsJS();
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

describe("sync refuses what the service was not asked for", () => {
  it("a day's answer that also holds an hour of the next day fails the account, loads nothing of it, and a rerun converges", async () => {
    // the hostile answer to the first day: its 24 hours plus a different copy of the next day's 2nd hour
    const honest = fakePlatform({ hours: records });
    const stray = structuredClone(records.find((h) => h.hourEpoch === START + DAY + 3600)!);
    stray.account.cloudspaces[0]!.machines[0]!.mem += 1024;
    await serve(async (request, response) => {
      if (request.path === CONSUMPTION_PATH && Number(request.query.get("start")) === START) {
        const bytes = await zipOf([...records.filter((h) => h.hourEpoch < START + DAY), stray]);
        response.writeHead(200, { "content-type": "application/octet-stream", "content-length": String(bytes.length) }).end(bytes);
        return;
      }
      return honest(request, response);
    });
    const db = newDb();
    const options = { url: server!.url, auth: AUTH, db, accountIds: [1], since: START, until: START + 2 * DAY, retries: 0 };
    const error = await sync(options).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SyncIncompleteError);
    const failure = (error as SyncIncompleteError).failures[0]!;
    expect(failure.accountId).toBe(1);
    expect(failure.error).toMatchObject({ code: "FETCH_WRONG_PERIOD" });
    expect(failure.error.message).toContain("1/2026/10/2/1/account_capnp.bin");
    expect(await rows(db, "SELECT * FROM account_hours")).toEqual([]);
    expect(await rows(db, "SELECT * FROM sync_state")).toEqual([]);

    // the service mended: the same warehouse completes, holding exactly the platform's hours
    await server!.close();
    await serve(honest);
    const report = await sync({ ...options, url: server!.url });
    expect(report.accounts.map((a) => a.status)).toEqual(["synced"]);
    expect(report.totalAccountHours).toBe(records.length);
  }, 120_000);
});
