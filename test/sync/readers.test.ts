import { execFile } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { promisify } from "node:util";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateHours, type DecodedAccountHour } from "../../src/index.js";
import { builtModule, runCli, type CliRun } from "../helpers/runCli.js";
import { fakePlatform } from "../fetch/fakePlatform.js";
import { SECRETS, startServer, type FakeServer } from "../fetch/fakeService.js";

const START = 1790812800; // 2026-10-01T00:00Z
const DAY = 86400;
const DAYS = 5;
const READER = join(import.meta.dirname, "pollingReader.mjs");
const execFileAsync = promisify(execFile);
const SESSION = { CLOUDUNITS_USERNAME: SECRETS.username, CLOUDUNITS_PASSWORD: SECRETS.password };
let dir: string;
let server: FakeServer;
let records: DecodedAccountHour[];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "cloudunits-readers-"));
  records = [...generateHours({ accounts: 2, spaces: 2, machines: 10, hours: DAYS * 24, start: START, seed: 4 })];
  // a platform that takes 300 ms per download, so the sync lasts while the readers poll
  server = await startServer(
    fakePlatform({ hours: records, beforeConsumption: () => new Promise((resolve) => setTimeout(resolve, 300)) }),
  );
}, 60_000);
afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

const day = (d: number) => String(START + d * DAY);
const billDayOne = (db: string) =>
  runCli(["billing", "--db", db, "--start", day(0), "--end", day(1), "--account-id", "1", "--format", "json"]);

describe("readers of the warehouse during a sync", () => {
  it("a report started every second during a sync gets its answer, and the sync finishes in bounded time", async () => {
    const db = join(dir, "poll.duckdb");
    expect(
      (await runCli(["sync", "--url", server.url, "--db", db, "--since", day(0), "--until", day(1)], SESSION)).code,
    ).toBe(0);
    const before = await billDayOne(db);
    expect(before.code).toBe(0);
    const bill = JSON.parse(before.stdout).account;
    expect(bill.id).toBe(1);
    expect(Object.keys(bill.cloudspaces)).toHaveLength(2);

    // --wait 60: a sync starved by the readers would give up with exit 6 instead of finishing
    const began = Date.now();
    let syncing = true;
    const sync = runCli(
      ["sync", "--url", server.url, "--db", db, "--until", day(DAYS), "--chunk", "day", "--wait", "60"],
      SESSION,
    ).finally(() => (syncing = false));
    // two pollers, as `while true; do cloudunits ...; sleep 1; done` would run them
    const poll = async (read: () => Promise<CliRun>): Promise<CliRun[]> => {
      const answers: CliRun[] = [];
      while (syncing) {
        answers.push(await read());
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
      return answers;
    };
    const pollers = Promise.all([
      poll(() => billDayOne(db)),
      poll(() => runCli(["status", "--db", db, "--format", "json"])),
    ]);
    const run = await sync;
    const seconds = (Date.now() - began) / 1000;
    expect(run.stderr).toMatch(/account 2: synced/);
    expect(run.code).toBe(0);
    expect(seconds).toBeLessThan(180);
    expect(existsSync(`${db}.writer-waiting`)).toBe(false);
    const [bills, statuses] = await pollers;
    expect(bills.length + statuses.length).toBeGreaterThanOrEqual(4);
    for (const answer of [...bills, ...statuses]) {
      expect(answer.stderr).toBe("");
      expect(answer.code).toBe(0);
    }
    // day 1 was complete before the sync began: every read bills it alike
    for (const bill of bills) expect(bill.stdout).toBe(before.stdout);
    for (const status of statuses)
      expect(JSON.parse(status.stdout).accounts.map((a: { accountId: number }) => a.accountId)).toEqual([1, 2]);
    const after = JSON.parse((await runCli(["status", "--db", db, "--format", "json"])).stdout);
    expect(after.accountHours).toBe(records.length);
  }, 300_000);

  it("readers that together always hold the file do not starve a sync: it finishes, and every read answers", async () => {
    const db = join(dir, "overlap.duckdb");
    expect(
      (await runCli(["sync", "--url", server.url, "--db", db, "--since", day(0), "--until", day(1)], SESSION)).code,
    ).toBe(0);
    // four reader processes that overlap (each holds the file 1 s, pauses 50 ms, 250 ms apart): the file is never
    // free of readers, so a writer that only retried would wait until its --wait ran out (exit 6)
    const stopFile = join(dir, "stop");
    const readers = [0, 1, 2, 3].map((i) =>
      execFileAsync(process.execPath, [
        READER,
        builtModule("store/openWarehouse.ts"),
        db,
        stopFile,
        "1000",
        "50",
        String(250 * i),
      ]),
    );
    try {
      // the readers are reading: each has held the file once and printed what it counted
      await Promise.all(readers.map((reader) => new Promise((resolve) => reader.child.stdout!.once("data", resolve))));
      const run = await runCli(["sync", "--url", server.url, "--db", db, "--until", day(3), "--wait", "60"], SESSION);
      expect(run.stderr).toMatch(/account 2: synced/);
      expect(run.code).toBe(0);
      expect(existsSync(`${db}.writer-waiting`)).toBe(false);
    } finally {
      writeFileSync(stopFile, "");
    }
    const counts = (await Promise.all(readers)).flatMap((r) => r.stdout.trim().split("\n"));
    expect(counts.length).toBeGreaterThan(6);
    for (const n of counts) expect(Number(n)).toBeGreaterThanOrEqual(2 * 24); // day 1 of both accounts, then more as the sync commits
  }, 600_000);

  it("a report started while a writer holds the file waits for it, then answers", async () => {
    const db = join(dir, "held.duckdb");
    expect(
      (await runCli(["sync", "--url", server.url, "--db", db, "--since", day(0), "--until", day(1)], SESSION)).code,
    ).toBe(0);
    const before = await billDayOne(db);
    expect(before.code).toBe(0);
    // another process's open for writing: this test process holds DuckDB's lock while "committing"
    const writer = await DuckDBInstance.create(db);
    const held = await writer.connect();
    await held.run("BEGIN TRANSACTION");
    const began = Date.now();
    const reading = billDayOne(db);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    await held.run("COMMIT");
    held.closeSync();
    writer.closeSync();
    const read = await reading;
    expect(read.stderr).toBe("");
    expect(read.code).toBe(0);
    expect(read.stdout).toBe(before.stdout);
    expect(Date.now() - began).toBeGreaterThanOrEqual(3000);
  }, 120_000);
});
