import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI } from "../helpers/runCli.js";
import { BadInputError, UsageError } from "../../src/base/errors.js";
import { writeDataset } from "../../src/generate/writeDataset.js";
import { ingest } from "../../src/store/ingest.js";
import { openWarehouse } from "../../src/store/openWarehouse.js";

const START = 1790812800;
const cli = (args: string[]) => [CLI, ...args];
let dir: string;
let small: string;
let changed: string;
let big: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cloudunits-ingest-"));
  small = join(dir, "small");
  changed = join(dir, "changed");
  big = join(dir, "big");
  await writeDataset({ out: small, accounts: 2, spaces: 1, machines: 2, hours: 4, start: START, seed: 1 });
  await writeDataset({ out: changed, accounts: 1, spaces: 1, machines: 2, hours: 1, start: START, seed: 2 });
  await writeDataset({ out: big, accounts: 2, spaces: 2, machines: 40, hours: 48, start: START, seed: 3 });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Totals a user would compare: hours, machine-hours and the sums billing uses. */
async function totals(db: string): Promise<unknown> {
  const w = await openWarehouse({ db });
  try {
    return (
      await w.connection.runAndReadAll(`SELECT
      (SELECT count(*) FROM account_hours) AS hours, (SELECT count(*) FROM machines) AS machine_hours,
      (SELECT sum(mem_mb) FROM machines) AS mem, (SELECT sum(size_gb) FROM disks) AS disk,
      (SELECT sum(tx_bytes + rx_bytes) FROM nics) AS traffic, (SELECT count(*) FROM files WHERE status = 'loaded') AS files`)
    ).getRowObjectsJson()[0];
  } finally {
    w.close();
  }
}

describe("ingest into a database file", () => {
  it("is idempotent: ingesting the same inputs again changes nothing and counts them as duplicates", async () => {
    const db = join(dir, "idem.duckdb");
    const first = await ingest([small], { db });
    const before = await totals(db);
    const second = await ingest([small], { db });
    expect([first.accountHours, first.duplicates.length]).toEqual([8, 0]);
    expect([second.accountHours, second.duplicates.length, second.totalAccountHours]).toEqual([0, 8, 8]);
    expect(await totals(db)).toEqual(before);
  });

  it("gives the same tables and load report through --db as loading the inputs in memory", async () => {
    const db = join(dir, "same.duckdb");
    await ingest([small], { db });
    const memory = await openWarehouse([small]);
    const file = await openWarehouse({ db });
    try {
      const sql = "SELECT account_id, hour_epoch, machine_id, mem_mb, vcpus FROM machines ORDER BY ALL";
      expect((await file.connection.runAndReadAll(sql)).getRows()).toEqual(
        (await memory.connection.runAndReadAll(sql)).getRows(),
      );
      // A .duckdb file does not keep the Syncthing copies an input held (they were never loaded): the in-memory load lists them, here none.
      const { syncthingCopies, ...memoryLoad } = memory.load;
      expect(syncthingCopies).toEqual([]);
      expect({ ...file.load, inputs: [] }).toEqual({ ...memoryLoad, inputs: [] });
    } finally {
      memory.close();
      file.close();
    }
  });

  it("refuses a different file for a loaded hour naming both, and swaps it with replace", async () => {
    const db = join(dir, "replace.duckdb");
    await ingest([small], { db });
    const refused = await ingest([changed], { db }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(BadInputError);
    expect((refused as Error).message).toMatch(
      /small\/1\/2026\/10\/1\/0\/account_capnp\.bin \(loaded\), .*changed\/1\/2026\/10\/1\/0\/account_capnp\.bin.*use replace: true to load the new file instead/,
    );
    expect((refused as Error).message).not.toContain("--replace"); // a flag is the command line's word
    const replaced = await ingest([changed], { db, replace: true });
    expect(replaced.replacedHours).toBe(1);
    const w = await openWarehouse({ db });
    try {
      const rows = (
        await w.connection.runAndReadAll(
          "SELECT source, status FROM files WHERE hour_epoch = $h AND account_id = 1 ORDER BY file_id",
          { h: START },
        )
      ).getRowObjectsJson();
      expect(rows).toEqual([
        { source: join(small, "1/2026/10/1/0/account_capnp.bin"), status: "superseded" },
        { source: join(changed, "1/2026/10/1/0/account_capnp.bin"), status: "loaded" },
      ]);
      const expected = await openWarehouse([changed]);
      const sql = `SELECT machine_id, mem_mb FROM machines WHERE account_id = 1 AND hour_epoch = ${START} ORDER BY ALL`;
      expect((await w.connection.runAndReadAll(sql)).getRows()).toEqual(
        (await expected.connection.runAndReadAll(sql)).getRows(),
      );
      expected.close();
    } finally {
      w.close();
    }
  });

  it("tells a second writer, past its --wait, that the file is busy and which process holds it (exit 6)", async () => {
    const db = join(dir, "locked.duckdb");
    await ingest([small], { db });
    const holder = await DuckDBInstance.create(db);
    try {
      const r = spawnSync(process.execPath, cli(["ingest", small, "--db", db, "--wait", "0.5"]), { encoding: "utf8" });
      expect(r.status).toBe(6);
      expect(r.stderr).toContain(`${db} is busy: another process holds it (`);
      expect(r.stderr).toContain(`(PID ${process.pid})`);
    } finally {
      holder.closeSync();
    }
  });

  it("after a SIGKILL mid-ingest, running it again gives exactly the totals of a clean run", async () => {
    const clean = join(dir, "clean.duckdb");
    await ingest([big], { db: clean });
    const db = join(dir, "killed.duckdb");
    const child = spawn(process.execPath, cli(["ingest", big, "--db", db, "--batch-mb", "0.2"]), { stdio: "ignore" });
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.on("exit", (_code, signal) => resolve(signal)),
    );
    // Kill once a few batches are committed (the write-ahead log has grown), mid-way.
    const wal = `${db}.wal`;
    for (let i = 0; i < 3000 && !(existsSync(wal) && statSync(wal).size > 2_000_000); i++)
      await new Promise((r) => setTimeout(r, 10));
    child.kill("SIGKILL");
    expect(await exited).toBe("SIGKILL");
    const partial = (await totals(db)) as { hours: string; files: string };
    expect(Number(partial.hours)).toBeGreaterThan(0);
    expect(Number(partial.hours)).toBeLessThan(192);
    expect(partial.files).toBe(partial.hours);
    await ingest([big], { db });
    expect(await totals(db)).toEqual(await totals(clean));
  });

  it("commits every batchFiles files: an ingest of many small files stopped midway keeps the batches committed before", async () => {
    const stopped = async (db: string, batchFiles?: number) => {
      const stopAt40 = (p: { filesRead: number }) => {
        if (p.filesRead >= 40) throw new Error("stopped after 40 files read");
      };
      await expect(ingest([big], { db, batchFiles, workers: 0, onProgress: stopAt40 })).rejects.toThrow("stopped");
      return Number(((await totals(db)) as { files: string }).files);
    };
    // one batch for the whole input (128 MiB): nothing was committed when it stopped
    expect(await stopped(join(dir, "unbounded.duckdb"), Number.POSITIVE_INFINITY)).toBe(0);
    // batches of 10 files or a little more (whole groups of files): some committed, each file with its account-hour
    const db = join(dir, "bounded.duckdb");
    const kept = await stopped(db, 10);
    expect(kept).toBeGreaterThanOrEqual(10);
    expect(kept).toBeLessThan(40);
    const partial = (await totals(db)) as { hours: string; files: string };
    expect(partial.hours).toBe(partial.files);
    // running it again loads the rest: the totals of a clean run (96 account-hours: 2 accounts × 48 hours, a file each)
    await ingest([big], { db, batchFiles: 10 });
    const clean = join(dir, "clean-files.duckdb");
    await ingest([big], { db: clean });
    expect(await totals(db)).toEqual(await totals(clean));
    expect(Number(((await totals(db)) as { files: string }).files)).toBe(96);
  });

  it("refuses to ingest nothing", async () => {
    await expect(ingest([], { db: join(dir, "x.duckdb") })).rejects.toBeInstanceOf(UsageError);
  });

  it("cloudunits ingest --workers 0 and --workers 2 give the same totals; a bad --workers is a usage error", async () => {
    const here = join(dir, "workers0.duckdb");
    const onWorkers = join(dir, "workers2.duckdb");
    for (const [db, n] of [
      [here, "0"],
      [onWorkers, "2"],
    ] as const) {
      const r = spawnSync(process.execPath, cli(["ingest", big, "--db", db, "--workers", n]), { encoding: "utf8" });
      expect(r.status, r.stderr).toBe(0);
    }
    const expected = await totals(here);
    expect(Number((expected as { machine_hours: string }).machine_hours)).toBeGreaterThan(0);
    expect(await totals(onWorkers)).toEqual(expected);
    const refused = spawnSync(
      process.execPath,
      cli(["ingest", big, "--db", join(dir, "refused.duckdb"), "--workers", "-2"]),
      { encoding: "utf8" },
    );
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain("bad --workers -2");
    expect(existsSync(join(dir, "refused.duckdb"))).toBe(false);
  });

  it("records skipped bad files in the manifest, so --db reports them like the inputs did", async () => {
    const bad = join(dir, "bad");
    cpSync(small, bad, { recursive: true });
    const broken = join(bad, "2/2026/10/1/3/account_capnp.bin");
    writeFileSync(broken, "not capnp");
    const db = join(dir, "skipped.duckdb");
    const report = await ingest([bad], { db, skipBad: true });
    expect(report.skipped.map((s) => s.file)).toEqual([broken]);
    const w = await openWarehouse({ db });
    try {
      expect(w.load.skipped).toEqual(report.skipped);
      expect(w.load.accountHours).toBe(7);
    } finally {
      w.close();
    }
  });

  it("loads the controller's per-cloud-space files as the same account-hours as Account files", async () => {
    const spaces = join(dir, "spaces");
    await writeDataset({
      out: spaces,
      accounts: 2,
      spaces: 2,
      machines: 2,
      hours: 2,
      start: START,
      seed: 9,
      cloudSpaceFiles: true,
    });
    const whole = join(dir, "whole");
    await writeDataset({ out: whole, accounts: 2, spaces: 2, machines: 2, hours: 2, start: START, seed: 9 });
    const a = await openWarehouse([spaces]);
    const b = await openWarehouse([whole]);
    try {
      expect(a.load.filesLoaded).toBe(8);
      expect(a.load.accountHours).toBe(4);
      for (const table of ["cloudspaces", "machines", "gateways", "disks", "nics"]) {
        const sql = `SELECT * FROM ${table} ORDER BY ALL`;
        expect((await a.connection.runAndReadAll(sql)).getRows()).toEqual(
          (await b.connection.runAndReadAll(sql)).getRows(),
        );
      }
      expect(
        (
          await a.connection.runAndReadAll("SELECT count(*)::INT FROM account_hours WHERE root_account_id IS NULL")
        ).getRows(),
      ).toEqual([[4]]);
    } finally {
      a.close();
      b.close();
    }
  });
});
