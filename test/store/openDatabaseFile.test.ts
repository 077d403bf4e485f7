import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BadFileError, UsageError, WarehouseBusyError } from "../../src/base/errors.js";
import { duckdbApi } from "../../src/base/duckdb.js";
import { writeDataset } from "../../src/generate/writeDataset.js";
import { ingest } from "../../src/store/ingest.js";
import { openDatabaseFile } from "../../src/store/openDatabaseFile.js";
import { writerWaitingFile } from "../../src/store/writerMarker.js";
import { openWarehouse } from "../../src/store/openWarehouse.js";
import { CLI, runCli } from "../helpers/runCli.js";

const START = 1790812800; // 2026-10-01T00:00Z
let dir: string;
let tree: string;
let good: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cloudunits-opendb-"));
  tree = join(dir, "tree");
  await writeDataset({ out: tree, accounts: 2, spaces: 2, machines: 20, hours: 24, start: START, seed: 3 });
  good = join(dir, "good.duckdb");
  await ingest([tree], { db: good });
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error as Error,
  );

/** A child process that opens `db` (to write, or read-only) and holds it until killed; resolves once it holds it. */
async function holdFile(db: string, readOnly = false): Promise<{ pid: number; release: () => Promise<void> }> {
  const settings = readOnly ? `,{access_mode:'READ_ONLY'}` : "";
  const script = `const {DuckDBInstance}=require('@duckdb/node-api');DuckDBInstance.create(${JSON.stringify(db)}${settings}).then(()=>{console.log('held');setInterval(()=>{},1000)})`;
  const child = spawn(process.execPath, ["-e", script], {
    cwd: join(import.meta.dirname, "../.."),
    stdio: ["ignore", "pipe", "inherit"],
  });
  await new Promise<void>((resolve) => child.stdout!.once("data", () => resolve()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    pid: child.pid!,
    release: async () => {
      child.kill("SIGKILL");
      await exited;
    },
  };
}

describe("openDatabaseFile tells a held file, a damaged one and a file of another kind apart", () => {
  it("a damaged block is 'damaged' (DB_CORRUPT, exit 3), not 'another process is writing'", async () => {
    const bytes = readFileSync(good);
    bytes.fill(0xab, 3 * 4096, 3 * 4096 + 100_000); // past the headers: a checksum of a data block fails
    const corrupt = join(dir, "corrupt.duckdb");
    writeFileSync(corrupt, bytes);
    const error = await failure(
      openWarehouse({ db: corrupt }).then((w) =>
        w.connection.runAndReadAll("SELECT count(*), sum(mem_mb) FROM machines"),
      ),
    );
    expect(error).toBeInstanceOf(BadFileError);
    expect((error as BadFileError).code).toBe("DB_CORRUPT");
    expect(error!.message).toMatch(/damaged \(Corrupt database file: computed checksum/);
    expect(error!.message).not.toMatch(/another process/);
    const run = await runCli(["check", "--db", corrupt]);
    expect(run.stderr).toMatch(/corrupt\.duckdb: the database is damaged/);
    expect(run.code).toBe(3);
  });

  it("a SQLite file or random bytes are 'not a DuckDB database' before DuckDB sees them (it would fetch the sqlite extension)", async () => {
    const sqlite = join(dir, "other.sqlite");
    writeFileSync(sqlite, Buffer.concat([Buffer.from("SQLite format 3\0", "latin1"), Buffer.alloc(4080)]));
    const noise = join(dir, "noise.duckdb");
    writeFileSync(noise, Buffer.alloc(8192, 7));
    for (const [file, what] of [
      [sqlite, "a SQLite database"],
      [noise, "not a DuckDB database"],
    ] as const) {
      for (const readOnly of [true, false]) {
        const error = await failure(openDatabaseFile(file, { readOnly }));
        expect(error).toBeInstanceOf(UsageError);
        expect((error as UsageError).code).toBe("DB_NOT_DUCKDB");
        expect(error!.message).toBe(
          `${file} is ${what}, not a cloudunits warehouse: give a file made by ingest or sync`,
        );
      }
    }
    const run = await runCli(["billing", "--db", sqlite, "--start", "2026-10-01", "--end", "2026-10-02"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("is a SQLite database, not a cloudunits warehouse");
  });

  it("every DuckDB instance we make neither loads nor installs an extension by itself", async () => {
    const settings =
      "SELECT current_setting('autoload_known_extensions') AS l, current_setting('autoinstall_known_extensions') AS i";
    const file = await openDatabaseFile(good, { readOnly: true });
    const memory = await openWarehouse([tree]);
    try {
      for (const connection of [file.connection, memory.connection]) {
        expect((await connection.runAndReadAll(settings)).getRowObjectsJS()).toEqual([{ l: false, i: false }]);
        // an extension DuckDB would otherwise fetch from the network on first use
        await expect(connection.run("SELECT * FROM sqlite_scan('x.sqlite', 't')")).rejects.toThrow(/sqlite/i);
      }
    } finally {
      file.connection.closeSync();
      file.instance.closeSync();
      memory.close();
    }
  });

  it("a file held by another process: a reader waits for it and answers; past the wait it is busy (exit 6) naming the holder's PID", async () => {
    const held = await holdFile(good);
    try {
      const error = await failure(openDatabaseFile(good, { readOnly: true, waitSeconds: 0.3 }));
      expect(error).toBeInstanceOf(WarehouseBusyError);
      expect(error!.message).toContain(`(PID ${held.pid})`);
      expect(error!.message).toMatch(/is busy: another process holds it .*still after waiting 0\.3 s/);
      expect(error!.message).not.toMatch(/read-only mode|-readonly/); // DuckDB's hint is for its own CLI, not ours
      const run = await runCli(["check", "--db", good, "--wait", "0"]);
      expect(run.code).toBe(6);
      expect(run.stderr).toContain(`PID ${held.pid}`);
      // what to do, in each surface's words: the library's option, the command line's flag
      expect(error!.message).toMatch(/or wait longer with waitSeconds: SECONDS$/);
      expect(run.stderr).toMatch(/or wait longer with --wait SECONDS\n$/);
      // released while a reader waits: the reader gets its answer
      const waiting = openWarehouse({ db: good }, { waitSeconds: 30 });
      setTimeout(() => void held.release(), 500);
      const w = await waiting;
      expect(Number((await w.connection.runAndReadAll("SELECT count(*) FROM account_hours")).getRows()[0]![0])).toBe(
        48,
      );
      w.close();
    } finally {
      await held.release();
    }
  }, 60_000);

  it("a writer that finds the file held marks itself waiting (FILE.writer-waiting: its PID, start time and the file) until it has it", async () => {
    const marker = writerWaitingFile(good);
    const reader = await holdFile(good, true);
    const writing = openDatabaseFile(good, { waitSeconds: 30 });
    const deadline = Date.now() + 20_000;
    while (!existsSync(marker) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(readFileSync(marker, "utf8")).toMatch(
      new RegExp(`^cloudunits writer-waiting\npid ${process.pid}\nstart \\d+\nfile \\d+:\\d+\n$`),
    );
    await reader.release();
    const writer = await writing;
    expect(existsSync(marker)).toBe(false); // removed once the writer has the file
    writer.connection.closeSync();
    writer.instance.closeSync();
    // readers and the marker's other rules: writerMarker.test.ts
  }, 60_000);
});

describe("opening a warehouse to write", () => {
  const sha = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex");
  const openAndClose = async (file: string) => {
    const { instance, connection } = await openDatabaseFile(file);
    connection.closeSync();
    instance.closeSync();
  };

  it("a warehouse already at this schema is not written: no schema statement, no checkpoint (each step of a sync paid both)", async () => {
    const db = join(dir, "current.duckdb");
    copyFileSync(good, db);
    const before = sha(db);
    for (let i = 0; i < 2; i++) await openAndClose(db);
    expect(sha(db)).toBe(before); // the same bytes: nothing was run that changes the file
    expect(existsSync(`${db}.wal`)).toBe(false);
  }, 60_000);

  it("a file that another schema wrote (a table missing, the schema's mark another) gets the schema again, once", async () => {
    const db = join(dir, "older.duckdb");
    copyFileSync(good, db);
    const older = await duckdbApi().DuckDBInstance.create(db);
    const c = await older.connect();
    await c.run(
      "DROP TABLE sync_log; UPDATE warehouse_meta SET value = 'an older schema' WHERE key = 'schema_sql'; CHECKPOINT",
    );
    c.closeSync();
    older.closeSync();
    const changed = sha(db);
    await openAndClose(db);
    expect(sha(db)).not.toBe(changed);
    const after = sha(db);
    const { instance, connection } = await openDatabaseFile(db, { readOnly: true });
    try {
      expect((await connection.runAndReadAll("SELECT count(*) FROM sync_log")).getRows()).toEqual([[0n]]);
      expect(
        (await connection.runAndReadAll("SELECT value FROM warehouse_meta WHERE key = 'schema_sql'")).getRows()[0]![0],
      ).toMatch(/^[0-9a-f]{64}$/);
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
    await openAndClose(db);
    expect(sha(db)).toBe(after);
  }, 60_000);
});

// A full disk, made with a 1 MiB tmpfs in a user and mount namespace (where the machine lets us).
const canMount = spawnSync("unshare", ["-rm", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"]).status === 0;

describe.skipIf(!canMount)("a full disk", () => {
  it("ingest stops with exit 8 (the environment, no stack) and says once what to do", async () => {
    const mnt = join(dir, "mnt");
    rmSync(mnt, { recursive: true, force: true });
    spawnSync("mkdir", [mnt]);
    const script = [
      `mount -t tmpfs -o size=1m tmpfs ${mnt}`,
      `${process.execPath} ${CLI} ingest ${tree} --db ${mnt}/w.duckdb --batch-mb 0.05 --workers 0; echo "rc=$?"`,
      `cp ${mnt}/w.duckdb* ${dir}/`,
    ].join(" && ");
    const run = spawnSync("unshare", ["-rm", "sh", "-c", script], {
      encoding: "utf8",
      env: { ...process.env, CI: "1" },
      cwd: join(import.meta.dirname, "../.."),
    });
    expect(run.stdout).toContain("rc=8");
    expect(run.stderr).toMatch(
      /^cloudunits: cannot write \S+w\.duckdb: no space left on the device; nothing committed was lost \(the transaction in flight was rolled back; the warehouse keeps every commit before it\): free some space \(or raise the quota\) and run again\n$/,
    );
    expect(run.stderr).not.toMatch(/\n\s+at /); // no stack: not a bug
    // "rolled back": the file left on the full disk opens, holds whole committed batches only, and a rerun completes it
    const left = join(dir, "w.duckdb");
    const opened = await openWarehouse({ db: left });
    try {
      const rows = async (sql: string) => Number((await opened.connection.runAndReadAll(sql)).getRows()[0]![0]);
      const held = await rows("SELECT count(*) FROM account_hours");
      expect(held).toBeLessThan(48);
      expect(await rows("SELECT count(*) FROM files WHERE status = 'loaded'")).toBe(held);
      expect(await rows("SELECT count(*) FROM (SELECT DISTINCT account_id, hour_epoch FROM machines)")).toBe(held);
    } finally {
      opened.close();
    }
    const rerun = await ingest([tree], { db: left });
    expect(rerun.totalAccountHours).toBe(48);
  }, 120_000);
});
