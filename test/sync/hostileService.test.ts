import { existsSync } from "node:fs";
/** `sync` against a loopback service that answers what it was not asked. */
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { hostTag } from "../../src/base/staleTemporaries.js";
import {
  fetchConsumption,
  generateHours,
  sync,
  SyncIncompleteError,
  type DecodedAccountHour,
} from "../../src/index.js";
import { CLI, runCli } from "../helpers/runCli.js";
import { ACCOUNTS_LIST, CLOUDSPACES_LIST, fakePlatform, zipOf } from "../fetch/fakePlatform.js";
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
        response
          .writeHead(200, { "content-type": "application/octet-stream", "content-length": String(bytes.length) })
          .end(bytes);
        return;
      }
      return honest(request, response);
    });
    const db = newDb();
    const options = {
      url: server!.url,
      auth: AUTH,
      db,
      accountIds: [1],
      since: START,
      until: START + 2 * DAY,
      retries: 0,
      chunk: "day" as const,
    };
    const error = await sync(options).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SyncIncompleteError);
    const failure = (error as SyncIncompleteError).failures[0]!;
    expect(failure.accountId).toBe(1);
    expect(failure.error).toMatchObject({ code: "FETCH_WRONG_PERIOD" });
    expect(failure.error.message).toContain("1/2026/10/2/1/account_capnp.bin");
    expect(await rows(db, "SELECT * FROM account_hours")).toEqual([]);
    // recorded as asked up to where it began: nothing marked synced
    expect(await rows(db, "SELECT account_id, synced_until_epoch, last_result FROM sync_state")).toEqual([
      { account_id: 1n, synced_until_epoch: BigInt(START), last_result: "failed" },
    ]);

    // the service mended: the same warehouse completes, holding exactly the platform's hours
    await server!.close();
    await serve(honest);
    const report = await sync({ ...options, url: server!.url });
    expect(report.accounts.map((a) => a.status)).toEqual(["synced"]);
    expect(report.totalAccountHours).toBe(records.length);
  }, 120_000);

  it("an answer holding an hour later than the current hour is refused, naming it: the platform cannot have written it", async () => {
    const honest = fakePlatform({ hours: records });
    const ahead = structuredClone(records[0]!);
    ahead.hourEpoch = 1811808000; // 2027-06-01T00:00Z
    await serve(async (request, response) => {
      if (request.path === CONSUMPTION_PATH) {
        const bytes = await zipOf([...records.filter((h) => h.hourEpoch < START + DAY), ahead]);
        response
          .writeHead(200, { "content-type": "application/octet-stream", "content-length": String(bytes.length) })
          .end(bytes);
        return;
      }
      return honest(request, response);
    });
    const db = newDb();
    const error = await sync({
      url: server!.url,
      auth: AUTH,
      db,
      accountIds: [1],
      since: START,
      until: START + DAY,
      retries: 0,
    }).catch((e: unknown) => e);
    const failure = (error as SyncIncompleteError).failures[0]!;
    expect(failure.error).toMatchObject({ code: "FETCH_WRONG_PERIOD" });
    expect(failure.error.message).toMatch(
      /1\/2027\/6\/1\/0\/account_capnp\.bin: is the hour 2027-06-01T00:00:00Z, later than the current hour \(\d{4}-\d\d-\d\dT\d\d:00:00Z\): the platform cannot have written it/,
    );
    expect(await rows(db, "SELECT * FROM account_hours")).toEqual([]);
  }, 120_000);
});

describe("sync bounds what the lists may cost", () => {
  it("an accounts/list longer than --max-json-mib is refused after one request, naming the list and the limit (exit 4), and nothing is written", async () => {
    // 30,000 accounts with long names: about 2.7 MB of JSON
    const accountsListBody = Array.from({ length: 30_000 }, (_, i) => ({
      id: i + 1,
      name: `account ${i + 1} `.padEnd(80, "x"),
    }));
    await serve(fakePlatform({ hours: records, accountsListBody }));
    const db = newDb();
    const run = await runCli(
      [
        "sync",
        "--url",
        server!.url,
        "--db",
        db,
        "--since",
        "2026-10-01",
        "--until",
        "2026-10-02",
        "--max-json-mib",
        "1",
      ],
      { CLOUDUNITS_USERNAME: SECRETS.username, CLOUDUNITS_PASSWORD: SECRETS.password },
    );
    expect(run.stderr).toMatch(
      /POST accounts\/list: the answer from http:\/\/127\.0\.0\.1:\d+\/restmachine\/cloudapi\/accounts\/list announced \d+ bytes \(2\.\d MiB\), more than the limit of 1048576 bytes \(1 MiB\)/,
    );
    expect(run.stderr).toContain("--max-json-mib");
    expect(run.code).toBe(4);
    expect(server!.seenAt(ACCOUNTS_LIST)).toHaveLength(1);
    expect(server!.seenAt(CONSUMPTION_PATH)).toHaveLength(0);
    // nothing written: the warehouse is not even made when the lists are refused
    expect(existsSync(db) ? await rows(db, "SELECT * FROM entity_names") : []).toEqual([]);
  }, 120_000);

  it("a list that sends more than it announced is cut off at the limit", async () => {
    const big = JSON.stringify(Array.from({ length: 30_000 }, (_, i) => ({ id: i + 1, name: `account ${i + 1}` })));
    let sent = 0;
    const inner = fakePlatform({ hours: records });
    await serve((request, response) => {
      if (request.path !== ACCOUNTS_LIST) return inner(request, response);
      response.writeHead(200, { "content-type": "application/json" }); // no length: chunked
      const write = () => {
        while (sent < big.length * 40) {
          sent += big.length;
          if (!response.write(big)) return void response.once("drain", write);
        }
        response.end();
      };
      write();
    });
    const error = await sync({
      url: server!.url,
      auth: AUTH,
      db: newDb(),
      since: START,
      until: START + DAY,
      maxJsonBytes: 1024 * 1024,
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "FETCH_TOO_LARGE" });
    expect((error as Error).message).toMatch(/went on past 1048576 bytes \(1 MiB\)/);
    expect(sent).toBeLessThan(big.length * 40);
    expect(server!.seenAt(ACCOUNTS_LIST)).toHaveLength(1);
  }, 120_000);

  it.each([
    { list: ACCOUNTS_LIST, id: 0, field: "id" },
    { list: ACCOUNTS_LIST, id: 2 ** 32, field: "id" },
    { list: CLOUDSPACES_LIST, id: 0, field: "accountId" },
  ])(
    "$list listing account id $id is refused, naming the item",
    async ({ list, id, field }) => {
      const inner = fakePlatform({ hours: records });
      await serve((request, response) => {
        if (request.path !== list) return inner(request, response);
        const body = JSON.stringify([
          { id: 1, name: "one", accountId: 1 },
          { id: list === ACCOUNTS_LIST ? id : 5, name: "bad", accountId: id },
        ]);
        response.writeHead(200, { "content-type": "application/json" }).end(body);
      });
      const db = newDb();
      const error = await sync({ url: server!.url, auth: AUTH, db, since: START, until: START + DAY }).catch(
        (e: unknown) => e,
      );
      expect(error).toMatchObject({ code: "FETCH_BAD_LIST" });
      expect((error as Error).message).toContain(`lists account id ${id} (item 2, "${field}")`);
      expect(server!.seenAt(CONSUMPTION_PATH)).toHaveLength(0);
      // nothing written: the warehouse is not even made when the lists are refused
      expect(existsSync(db) ? await rows(db, "SELECT * FROM entity_names") : []).toEqual([]);
    },
    120_000,
  );
});

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await new Promise((resolve) => child.on("exit", resolve));
  return child.pid!;
}

/** A process that stays alive until `stop()`. */
function liveProcess(): { pid: number; stop: () => void } {
  const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 600000)"], { stdio: "ignore" });
  return { pid: child.pid!, stop: () => child.kill("SIGKILL") };
}

describe("what killed runs leave behind", () => {
  it("a sync killed mid-download leaves its folder; the next sync removes it, and leaves a live run's, another host's and unrelated folders", async () => {
    const temp = await mkdtemp(join(dir, "tmp-"));
    const honest = fakePlatform({ hours: records });
    let hold = true;
    await serve(async (request, response) => {
      if (request.path === CONSUMPTION_PATH && hold) {
        // the first download's answer starts, then the process is killed mid-body
        response.writeHead(200, { "content-type": "application/zip", "content-length": "100000" });
        response.write(Buffer.from("PK\x03\x04", "latin1"));
        setTimeout(() => running.kill("SIGKILL"), 300);
        return;
      }
      return honest(request, response);
    });
    const env = {
      ...process.env,
      CI: "1",
      TMPDIR: temp,
      CLOUDUNITS_USERNAME: SECRETS.username,
      CLOUDUNITS_PASSWORD: SECRETS.password,
    };
    const db = newDb();
    const running = spawn(
      process.execPath,
      [
        CLI,
        "sync",
        "--url",
        server!.url,
        "--db",
        db,
        "--since",
        "2026-10-01",
        "--until",
        "2026-10-02",
        "--account-id",
        "1",
      ],
      { env, stdio: "ignore" },
    );
    const signal = await new Promise((resolve) => running.on("exit", (_code, exitSignal) => resolve(exitSignal)));
    expect(signal).toBe("SIGKILL");
    const left = (await readdir(temp)).filter((name) => name.startsWith("cloudunits-sync-"));
    expect(left).toHaveLength(1);
    expect(left[0]).toMatch(new RegExp(`^cloudunits-sync-${hostTag()}-${running.pid}-`));
    expect(await readdir(join(temp, left[0]!))).toEqual([expect.stringMatching(/^\.consumption-1-.*\.part-.*\.zip$/)]);

    const live = liveProcess();
    try {
      const others = [
        `cloudunits-sync-${hostTag()}-${live.pid}-abcDEF`,
        `cloudunits-sync-other_host-${running.pid}-ghiJKL`,
        "cloudunits-sync-notes",
      ];
      for (const name of others) await mkdir(join(temp, name));
      hold = false;
      const report = await sync({
        url: server!.url,
        auth: AUTH,
        db,
        accountIds: [1],
        since: START,
        until: START + DAY,
        tempDir: temp,
      });
      expect(report.accounts.map((a) => a.status)).toEqual(["synced"]);
      expect((await readdir(temp)).filter((name) => name.startsWith("cloudunits-sync-")).sort()).toEqual(
        [...others].sort(),
      );
    } finally {
      live.stop();
    }
  }, 120_000);

  it("a fetch removes the temporary files killed downloads left beside its file, and keeps those of live ones", async () => {
    const out = await mkdtemp(join(dir, "fetch-"));
    const dead = await deadPid();
    const live = liveProcess();
    try {
      const stale = [
        `.consumption.zip.part-${hostTag()}-${dead}-0123abcd.zip`,
        `.other.zip.part-${hostTag()}-${dead}-89abcdef.zip`,
      ];
      const kept = [
        `.consumption.zip.part-${hostTag()}-${live.pid}-0123abcd.zip`,
        `.consumption.zip.part-other_host-${dead}-0123abcd.zip`,
        "notes.part-1-2.zip",
      ];
      for (const name of [...stale, ...kept]) await writeFile(join(out, name), "partial");
      await serve(fakePlatform({ hours: records }));
      await fetchConsumption({
        url: server!.url,
        auth: AUTH,
        accountId: 1,
        start: START,
        end: START + 3600,
        out: join(out, "consumption.zip"),
      });
      expect((await readdir(out)).sort()).toEqual(["consumption.zip", ...kept].sort());
    } finally {
      live.stop();
    }
  }, 60_000);
});
