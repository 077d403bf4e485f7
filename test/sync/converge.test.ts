import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateHours, type DecodedAccountHour } from "../../src/index.js";
import { CLI, runCli } from "../helpers/runCli.js";
import { dataTables } from "../helpers/warehouse.js";
import { fakePlatform, zipOf } from "../fetch/fakePlatform.js";
import { CONSUMPTION_PATH, SECRETS, startServer, type FakeServer } from "../fetch/fakeService.js";

const START = 1790812800; // 2026-10-01T00:00Z
const H = 3600;
const HOURS = 24;
const SESSION = { CLOUDUNITS_USERNAME: SECRETS.username, CLOUDUNITS_PASSWORD: SECRETS.password };

let dir: string;
let server: FakeServer;
let final: DecodedAccountHour[];
/** The platform's clock: what getConsumption serves is what was published by then. */
let now = START;
/** Each record with the time the platform publishes it (the rewritten hour twice: its first version, then the final one). */
let schedule: { record: DecodedAccountHour; publishedEpoch: number; replacedEpoch?: number }[];

/** Account 1's hour 07:00 is rewritten: its first version (one VM's memory doubled) is published at 08:00, the final one at 09:00. */
const REWRITTEN = { accountId: 1, hourEpoch: START + 7 * H };
/** Hours the platform writes late, out of order (hours after their end): some beyond a day. */
const LATE: Record<string, number> = {
  [`1/${START + 2 * H}`]: 9,
  [`1/${START + 3 * H}`]: 5,
  [`2/${START + 10 * H}`]: 13,
  [`2/${START + 20 * H}`]: 3,
  [`1/${START + 21 * H}`]: 7,
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "cloudunits-converge-"));
  // the platform never writes a few hours at all (missingHours): they stay missing everywhere
  final = [
    ...generateHours({ accounts: 2, spaces: 2, machines: 4, hours: HOURS, start: START, seed: 11, missingHours: 0.04 }),
  ];
  schedule = [];
  for (const record of final) {
    const key = `${record.accountId}/${record.hourEpoch}`;
    const publishedEpoch = record.hourEpoch + H + (LATE[key] ?? 0) * H;
    if (record.accountId === REWRITTEN.accountId && record.hourEpoch === REWRITTEN.hourEpoch) {
      const first = structuredClone(record);
      const vm = first.account.cloudspaces[0]!.machines.find((m) => m.type === "vm")!;
      vm.mem *= 2;
      schedule.push({ record: first, publishedEpoch, replacedEpoch: publishedEpoch + H });
      schedule.push({ record, publishedEpoch: publishedEpoch + H });
    } else {
      schedule.push({ record, publishedEpoch });
    }
  }
  for (const key of Object.keys(LATE)) expect(final.some((r) => `${r.accountId}/${r.hourEpoch}` === key)).toBe(true);
  const published = () =>
    schedule
      .filter((s) => s.publishedEpoch <= now && !(s.replacedEpoch !== undefined && s.replacedEpoch <= now))
      .map((s) => s.record);
  server = await startServer(fakePlatform({ hours: final, published }));
}, 60_000);
afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

async function query(db: string, sql: string): Promise<unknown[][]> {
  const instance = await DuckDBInstance.create(db, { access_mode: "READ_ONLY" });
  const connection = await instance.connect();
  try {
    return (await connection.runAndReadAll(sql))
      .getRows()
      .map((row) => row.map((v) => (typeof v === "bigint" ? Number(v) : v)));
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

describe("sync from cron converges on the platform's archive", () => {
  it("hourly-ish runs against a platform that publishes late, out of order, and rewrites an hour end with the warehouse of a clean ingest; a SIGKILL mid-chunk changes nothing", async () => {
    const db = join(dir, "cron.duckdb");
    const runs: { at: number; code: number | null; stderr: string }[] = [];
    // cron every 2 hours from 02:00 to 06:00 the day after, the last late hour published by then
    for (let at = START + 2 * H; at <= START + (HOURS + 6) * H; at += 2 * H) {
      now = at;
      const args = [
        "sync",
        "--url",
        server.url,
        "--db",
        db,
        "--until",
        String(at),
        "--chunk",
        "day",
        ...(at === START + 2 * H ? ["--since", String(START)] : []),
      ];
      if (at === START + 16 * H) {
        // this run is killed while it downloads its second chunk (the first downloaded, not yet ingested)
        const before = server.seenAt(CONSUMPTION_PATH).length;
        const child = spawn(process.execPath, [CLI, ...args], {
          env: { ...process.env, CI: "1", ...SESSION },
          stdio: "ignore",
        });
        const exited = new Promise<string | null>((resolve) => child.on("exit", (_c, signal) => resolve(signal)));
        const timer = setInterval(() => {
          if (server.seenAt(CONSUMPTION_PATH).length >= before + 2) child.kill("SIGKILL");
        }, 1);
        expect(await exited).toBe("SIGKILL");
        clearInterval(timer);
        continue;
      }
      const run = await runCli(args, SESSION);
      runs.push({ at, code: run.code, stderr: run.stderr });
      if (process.env.SHOW_RUNS) process.stdout.write(`--- ${new Date(at * 1000).toISOString()}\n${run.stderr}`);
      expect(run.stderr).not.toMatch(/FAILED|conflict/i);
      expect(run.code).toBe(0);
    }

    // the run that saw the rewrite says so; the runs that got late hours say so
    const rewriteRun = runs.find((r) => r.at === START + 10 * H)!;
    expect(rewriteRun.stderr).toContain(
      "account 1: 1 hour rewritten by the platform, the held one replaced: 2026-10-01T07:00:00Z",
    );
    expect(runs.map((r) => r.stderr).join("")).toMatch(
      /account 2: \d+ hours? arrived late: [^\n]*2026-10-01T10:00:00Z/,
    );
    // hours the platform never wrote are named, asked again (not given up: inside the look-back)
    const neverWritten = [1, 2].flatMap((id) =>
      Array.from({ length: HOURS }, (_, i) => START + i * H)
        .filter((h) => !final.some((r) => r.accountId === id && r.hourEpoch === h))
        .map((h) => `${id}/${h}`),
    );
    expect(neverWritten.length).toBeGreaterThan(0);
    expect(runs.at(-1)!.stderr).toMatch(/hours? not yet written by the platform, asked again by the next runs/);

    // a clean ingest of the platform's full archive
    const archive = join(dir, "archive.zip");
    await writeFile(archive, await zipOf(final));
    const clean = join(dir, "clean.duckdb");
    expect((await runCli(["ingest", archive, "--db", clean])).code).toBe(0);
    expect(await dataTables(db)).toEqual(await dataTables(clean));
    for (const accountId of ["1", "2"]) {
      const bill = (file: string) =>
        runCli(["billing", "--db", file, "--start", "2026-10-01", "--end", "2026-10-03", "--account-id", accountId]);
      const [fromSync, fromClean] = await Promise.all([bill(db), bill(clean)]);
      expect(fromSync.code).toBe(0);
      // the figures are the same; only the names differ (sync stores those the service lists)
      const figures = (json: string) => JSON.parse(json, (key, value: unknown) => (key === "name" ? undefined : value));
      expect(figures(fromSync.stdout)).toEqual(figures(fromClean.stdout));
    }

    // the manifest keeps the replaced file; the log names the late and rewritten hours
    expect(await query(db, `SELECT status, account_id, hour_epoch FROM files WHERE status = 'superseded'`)).toEqual([
      ["superseded", 1, REWRITTEN.hourEpoch],
    ]);
    expect(await query(db, "SELECT account_id, hour_epoch FROM sync_log WHERE event = 'rewritten'")).toEqual([
      [1, REWRITTEN.hourEpoch],
    ]);
    const late = await query(
      db,
      "SELECT account_id || '/' || hour_epoch FROM sync_log WHERE event = 'late' ORDER BY 1",
    );
    // a late hour asked for after its end and before its publication is logged late
    for (const key of [`1/${START + 2 * H}`, `2/${START + 10 * H}`, `1/${START + 21 * H}`])
      expect(late.flat()).toContain(key);
    // no duplicate rows from hours asked again: one manifest row per file ever loaded
    expect(await query(db, "SELECT count(*) FROM files WHERE status = 'duplicate'")).toEqual([[0]]);
  }, 600_000);

  it("--format json prints the run's report on stdout; --quiet prints nothing when nothing needs a human", async () => {
    now = START + 6 * H;
    const db = join(dir, "json.duckdb");
    const first = await runCli(
      [
        "sync",
        "--url",
        server.url,
        "--db",
        db,
        "--since",
        String(START),
        "--until",
        String(START + 6 * H),
        "--format",
        "json",
      ],
      SESSION,
    );
    expect(first.code).toBe(0);
    const report = JSON.parse(first.stdout);
    expect(report.ok).toBe(true);
    const one = report.accounts.find((a: { accountId: number }) => a.accountId === 1);
    // account 1's 02:00 and 03:00 are published late: not yet written, named as a range
    expect(one).toMatchObject({
      status: "synced",
      from: "2026-10-01T00:00:00Z",
      until: "2026-10-01T06:00:00Z",
      notYetWritten: [{ from: "2026-10-01T02:00:00Z", to: "2026-10-01T03:00:00Z", hours: 2 }],
      missing: [],
      error: null,
    });
    expect(one.accountHoursLoaded).toBe(
      final.filter((r) => r.accountId === 1 && r.hourEpoch < START + 6 * H).length - 2,
    );
    const quiet = await runCli(
      ["sync", "--url", server.url, "--db", db, "--until", String(START + 6 * H), "--quiet"],
      SESSION,
    );
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).toBe("");
    expect(quiet.stdout).toBe("");
  }, 120_000);

  it("an account the service does not list is a usage error naming the known ones (exit 2), and nothing is recorded for it", async () => {
    now = START + 30 * H;
    const db = join(dir, "unknown.duckdb");
    const run = await runCli(
      [
        "sync",
        "--url",
        server.url,
        "--db",
        db,
        "--since",
        String(START),
        "--until",
        String(START + 2 * H),
        "--account-id",
        "9",
      ],
      SESSION,
    );
    expect(run.stderr).toContain("unknown account 9 (not in");
    expect(run.stderr).toContain("known: 1, 2");
    expect(run.code).toBe(2);
  }, 120_000);
});
