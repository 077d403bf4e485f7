import { execFile, spawn, spawnSync, type ChildProcess } from "node:child_process";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { writeDataset } from "../../src/generate/writeDataset.js";
import { ingest } from "../../src/store/ingest.js";
import { openDatabaseFile } from "../../src/store/openDatabaseFile.js";
import { openWarehouse } from "../../src/store/openWarehouse.js";
import { MARKER_FRESH_MS, writerWaitingFile } from "../../src/store/writerMarker.js";
import { builtModule, CLI } from "../helpers/runCli.js";

// The writer-waiting marker (FILE.writer-waiting) is a file anyone who can write the warehouse's
// folder can plant. Each test plants one and shows it neither writes through a link, nor blocks
// or bloats a reader, nor holds readers back unless a live writer of this very file proves it.

const START = 1790812800; // 2026-10-01T00:00Z
const REPO = join(import.meta.dirname, "../..");
let dir: string;
let db: string;
let marker: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cloudunits-marker-"));
  await writeDataset({ out: join(dir, "tree"), accounts: 1, spaces: 1, machines: 2, hours: 3, start: START, seed: 5 });
  db = join(dir, "w.duckdb");
  await ingest([join(dir, "tree")], { db });
  marker = writerWaitingFile(db);
}, 120_000);
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
  rmSync(marker, { recursive: true, force: true });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A child process running `script` (an ES module), resolved once it prints its first line. */
async function child(script: string): Promise<ChildProcess> {
  const c = spawn(process.execPath, ["--input-type=module", "-e", script], {
    cwd: REPO,
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(c);
  await new Promise<void>((resolve, reject) => {
    c.stdout!.once("data", () => resolve());
    c.once("exit", (code) => reject(new Error(`child exited ${code}`)));
  });
  return c;
}

/** A process that holds `db` open read-only (so a writer must wait) until killed. */
const holdReadOnly = () =>
  child(
    `import { DuckDBInstance } from "@duckdb/node-api"; await DuckDBInstance.create(${JSON.stringify(db)}, { access_mode: "READ_ONLY" }); console.log("held"); setInterval(() => {}, 1000);`,
  );

/** A process that waits to write `db` (openDatabaseFile, as ingest and sync do), printing "started" at once and "writing" once it has the file. */
const waitingWriter = () =>
  child(
    `const { openDatabaseFile } = await import(${JSON.stringify(builtModule("store/openDatabaseFile.ts"))}); console.log("started"); await openDatabaseFile(${JSON.stringify(db)}, { waitSeconds: 60 }); console.log("writing"); setInterval(() => {}, 1000);`,
  );

const until = async (done: () => boolean, ms = 20_000) => {
  for (const deadline = Date.now() + ms; !done(); await new Promise((resolve) => setTimeout(resolve, 25))) {
    if (Date.now() > deadline) throw new Error("timed out");
  }
};
const isRegularMarker = () => {
  try {
    return lstatSync(marker).isFile() && readFileSync(marker, "latin1").includes("pid ");
  } catch {
    return false;
  }
};

/** Milliseconds a reader in this process takes to open `db` with the given wait. */
async function readerMs(waitSeconds: number): Promise<number> {
  const began = Date.now();
  const w = await openWarehouse({ db }, { waitSeconds });
  w.close();
  return Date.now() - began;
}

/** A process's start time (`/proc/PID/stat`, field 22). */
const startOf = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]!;
};
const identityOf = (file: string) => {
  const s = statSync(file, { bigint: true });
  return `${s.dev}:${s.ino}`;
};
const proof = (pid: number, start: string, file: string) =>
  `cloudunits writer-waiting\npid ${pid}\nstart ${start}\nfile ${file}\n`;

describe("a writer marks itself waiting without trusting what is at the marker's path", () => {
  it.each([
    [
      "a link to another file (its content became the writer's PID)",
      () => symlinkSync(join(dir, "victim.txt"), marker),
    ],
    ["a link to a file not there yet (it was created)", () => symlinkSync(join(dir, "made-by-the-writer.txt"), marker)],
    ["a FIFO", () => spawnSync("mkfifo", [marker])],
    ["a stale marker of a process gone", () => writeFileSync(marker, proof(2 ** 22 + 17, "1", identityOf(db)))],
  ])(
    "replaces %s with its own marker, writing nothing through it",
    async (_, plant) => {
      writeFileSync(join(dir, "victim.txt"), "the victim's words\n");
      plant();
      const reader = await holdReadOnly();
      const writing = openDatabaseFile(db, { waitSeconds: 30 });
      const own = proof(process.pid, startOf(process.pid), identityOf(db));
      try {
        await until(() => isRegularMarker() && readFileSync(marker, "latin1") === own);
      } finally {
        reader.kill("SIGKILL");
        const writer = await writing;
        writer.connection.closeSync();
        writer.instance.closeSync();
      }
      expect(readFileSync(join(dir, "victim.txt"), "utf8")).toBe("the victim's words\n");
      expect(existsSync(join(dir, "made-by-the-writer.txt"))).toBe(false);
      expect(existsSync(marker)).toBe(false); // its own, removed once it has the file
    },
    60_000,
  );
});

describe("a reader reads a marker only as a small regular file, never blocking", () => {
  // The CLI in a child process: a reader blocked on a FIFO blocks its whole process (it was killed at 25 s).
  const status = (wait: number) =>
    new Promise<{ code: number | null; ms: number }>((resolve) => {
      const began = Date.now();
      const run = execFile(
        process.execPath,
        [CLI, "status", "--db", db, "--wait", String(wait)],
        { timeout: 30_000, env: { ...process.env, CI: "1" } },
        () => resolve({ code: run.exitCode, ms: Date.now() - began }),
      );
    });

  it.each([
    ["a FIFO (it blocked every reader)", () => spawnSync("mkfifo", [marker])],
    ["a link to /dev/zero (it grew to 7.8 GB)", () => symlinkSync("/dev/zero", marker)],
    [
      "a link to a live writer's real marker",
      () => {
        writeFileSync(join(dir, "elsewhere"), proof(process.pid, startOf(process.pid), identityOf(db)));
        symlinkSync(join(dir, "elsewhere"), marker);
      },
    ],
    ["a folder", () => mkdirSync(marker)],
  ])(
    "ignores %s: status answers at once, not after its --wait",
    async (_, plant) => {
      plant();
      const { code, ms } = await status(20);
      expect(code).toBe(0);
      expect(ms).toBeLessThan(15_000); // the CLI's start, not the 20 s wait
    },
    60_000,
  );
});

describe("a marker holds readers back only while a live writer of this file proves it", () => {
  it("a writer waiting in another process holds a reader back for the reader's wait; killed, its marker is ignored at once", async () => {
    const reader = await holdReadOnly();
    const writer = await waitingWriter();
    await until(isRegularMarker);
    expect(readFileSync(marker, "latin1")).toBe(proof(writer.pid!, startOf(writer.pid!), identityOf(db)));
    expect(await readerMs(1.5)).toBeGreaterThanOrEqual(1500);
    writer.kill("SIGKILL");
    await new Promise((resolve) => writer.once("exit", resolve));
    expect(existsSync(marker)).toBe(true); // killed: left behind
    expect(await readerMs(20)).toBeLessThan(5000);
    reader.kill("SIGKILL");
  }, 60_000);

  it.each([
    [
      "only a live process's PID (the form before: a forged one, or a killed sync's whose PID was reused, held readers 61 s)",
      (pid: number) => String(pid),
    ],
    [
      "a live process's PID with another start time (the PID reused)",
      (pid: number) => proof(pid, String(Number(startOf(pid)) + 1), identityOf(db)),
    ],
    [
      "a live process of another warehouse file",
      (pid: number) => proof(pid, startOf(pid), identityOf(join(dir, "tree"))),
    ],
  ])(
    "ignores a marker naming %s",
    async (_, text) => {
      const live = spawn("sleep", ["60"]);
      children.push(live);
      writeFileSync(marker, text(live.pid!));
      expect(await readerMs(20)).toBeLessThan(5000);
    },
    60_000,
  );

  it("ignores a writer's marker it has stopped touching (a writer stopped, or a copy)", async () => {
    const live = spawn("sleep", ["60"]);
    children.push(live);
    writeFileSync(marker, proof(live.pid!, startOf(live.pid!), identityOf(db)));
    const past = new Date(Date.now() - MARKER_FRESH_MS - 1000);
    utimesSync(marker, past, past);
    expect(await readerMs(20)).toBeLessThan(5000);
  }, 60_000);
});
