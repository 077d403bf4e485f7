import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeDataset } from "../../src/generate/writeDataset.js";
import { hostTag } from "../../src/base/staleTemporaries.js";
import { ingest } from "../../src/store/ingest.js";
import { openWarehouse } from "../../src/store/openWarehouse.js";
import { canMount } from "../helpers/refusingDisk.js";
import { builtModule } from "../helpers/runCli.js";

const START = 1790812800; // 2026-10-01T00:00Z
const READER = join(import.meta.dirname, "spillingReader.mjs");
const COPIES = 4000;
let dir: string;
let db: string;
/** Every machine-hour of the warehouse listed COPIES times: what a reader's query answers. */
let rows: number;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cloudunits-spill-"));
  const tree = join(dir, "tree");
  await writeDataset({ out: tree, accounts: 1, spaces: 1, machines: 20, hours: 24, start: START, seed: 5 });
  db = join(dir, "w.duckdb");
  await ingest([tree], { db });
  const warehouse = await openWarehouse({ db });
  try {
    const counted = await warehouse.connection.runAndReadAll("SELECT count(*) FROM machines");
    rows = Number(counted.getRowsJS()[0]![0]) * COPIES;
  } finally {
    warehouse.close();
  }
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const readerArgs = (file: string, hold: string) => [
  READER,
  builtModule("store/openDatabaseFile.ts"),
  file,
  String(COPIES),
  hold,
];
const spillFolderOf = (line: string) => line.split(" ")[2]!;
/** The spill folders beside the warehouse. */
const spillFolders = () => readdirSync(dir).filter((name) => name.startsWith("w.duckdb.spill-"));

/** A reader process of spillingReader.mjs: its output lines as they come, and a way to let it go on. */
function startReader(hold: "hold" | "exit" | "run") {
  const child = spawn(process.execPath, readerArgs(db, hold), { stdio: ["pipe", "pipe", "inherit"] });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const exited = once(child, "exit");
  return {
    pid: child.pid!,
    next: async () => String((await lines.next()).value ?? ""),
    goOn: () => child.stdin!.write("go\n"),
    exited,
    kill: () => child.kill("SIGKILL"),
  };
}

describe("two processes reading one warehouse, both spilling to disk", () => {
  it("a reader's spilled query answers in full while another reader spills and closes meanwhile", async () => {
    const first = startReader("hold");
    const spilled = await first.next();
    expect(spilled).toMatch(/^spilled [1-9]\d* \S+$/); // DuckDB did spill at the cap
    const second = startReader("run");
    const secondSpilled = await second.next();
    expect(secondSpilled).toMatch(/^spilled [1-9]\d* \S+$/);
    expect(await second.next()).toBe(`rows ${rows} sorted true`);
    await second.exited;
    first.goOn();
    expect(await first.next()).toBe(`rows ${rows} sorted true`); // no spill file of its taken away
    await first.exited;
    expect(spillFolderOf(secondSpilled)).not.toBe(spillFolderOf(spilled)); // each its own folder
    // both closed: no spill folder is left beside the warehouse
    expect(readdirSync(dir).sort()).toEqual(["tree", "w.duckdb"]);
  }, 120_000);

  it("a killed reader's spill folder is removed by the next open; a live reader's is left, and its query answers in full", async () => {
    const live = startReader("hold");
    const liveFolder = spillFolderOf(await live.next());
    const killed = startReader("hold");
    const killedFolder = spillFolderOf(await killed.next());
    killed.kill();
    await killed.exited;
    expect(existsSync(killedFolder)).toBe(true); // a killed process cleans nothing
    const next = startReader("run");
    expect(await next.next()).toMatch(/^spilled /);
    expect(existsSync(killedFolder)).toBe(false);
    expect(existsSync(liveFolder)).toBe(true);
    expect(await next.next()).toBe(`rows ${rows} sorted true`);
    await next.exited;
    live.goOn();
    expect(await live.next()).toBe(`rows ${rows} sorted true`);
    await live.exited;
    expect(spillFolders()).toEqual([]);
  }, 120_000);

  it("a spill folder named for another host sharing the disk is never removed, even with a PID gone here", async () => {
    const gone = spawnSync(process.execPath, ["-e", "0"]).pid!; // a process that has ended
    const ours = join(dir, `w.duckdb.spill-${hostTag()}-${gone}-0badf00d`);
    const theirs = join(dir, `w.duckdb.spill-${hostTag()}x-${gone}-0badf00d`);
    mkdirSync(ours);
    mkdirSync(theirs);
    const reader = await openWarehouse({ db });
    reader.close();
    expect(existsSync(ours)).toBe(false); // this host's, its process gone: a killed reader's
    expect(existsSync(theirs)).toBe(true);
    rmSync(theirs, { recursive: true });
  });

  it("a process that exits without closing the warehouse (as the command line ends) leaves no spill folder", async () => {
    const reader = startReader("exit");
    const folder = spillFolderOf(await reader.next());
    expect(folder).toContain(`${dir}/w.duckdb.spill-`);
    await reader.exited;
    expect(existsSync(folder)).toBe(false);
    expect(spillFolders()).toEqual([]);
  }, 120_000);
});

// A read-only folder, made with a tmpfs in a user and mount namespace (where the machine lets us: root writes any folder).
describe.skipIf(!canMount)("a warehouse in a read-only folder", () => {
  it("spills under the system's temporary folder (TMPDIR) instead, answers in full, and leaves nothing there", () => {
    const folder = join(dir, "ro");
    const temporary = join(dir, "system-tmp");
    mkdirSync(folder);
    mkdirSync(temporary);
    const readOnlyDb = join(folder, "w.duckdb");
    const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;
    const script = [
      `mount -t tmpfs -o size=64m tmpfs ${quote(folder)}`,
      `cp ${quote(db)} ${quote(readOnlyDb)}`,
      `mount -o remount,ro,bind ${quote(folder)}`,
      [process.execPath, ...readerArgs(readOnlyDb, "run")].map(quote).join(" "),
    ].join(" && ");
    const run = spawnSync("unshare", ["-rm", "sh", "-c", script], {
      encoding: "utf8",
      env: { ...process.env, TMPDIR: temporary },
    });
    const [spilled, answer] = run.stdout.trim().split("\n");
    expect(spilled).toMatch(new RegExp(`^spilled [1-9]\\d* ${temporary}/w\\.duckdb\\.spill-\\S+$`));
    expect(answer).toBe(`rows ${rows} sorted true`);
    expect(readdirSync(temporary)).toEqual([]);
  }, 120_000);
});
