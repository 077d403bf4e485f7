import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeDataset } from "../../src/generate/writeDataset.js";
import { ingest } from "../../src/store/ingest.js";
import { openWarehouse } from "../../src/store/openWarehouse.js";
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

/** A reader process of spillingReader.mjs: its output lines as they come, and a way to let it go on. */
function startReader(hold: boolean, env: Record<string, string> = {}) {
  const child = spawn(
    process.execPath,
    [READER, builtModule("store/openDatabaseFile.ts"), db, String(COPIES), hold ? "hold" : "run"],
    { stdio: ["pipe", "pipe", "inherit"], env: { ...process.env, ...env } },
  );
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
    const first = startReader(true);
    const spilled = await first.next();
    expect(spilled).toMatch(/^spilled [1-9]\d* \S+$/); // DuckDB did spill at the cap
    const second = startReader(false);
    const secondSpilled = await second.next();
    expect(secondSpilled).toMatch(/^spilled [1-9]\d* \S+$/);
    expect(await second.next()).toBe(`rows ${rows} sorted true`);
    await second.exited;
    first.goOn();
    expect(await first.next()).toBe(`rows ${rows} sorted true`); // no spill file of its taken away
    await first.exited;
    expect(secondSpilled.split(" ")[2]).not.toBe(spilled.split(" ")[2]); // each its own folder
    // both closed: no spill folder is left beside the warehouse
    expect(readdirSync(dir).sort()).toEqual(["tree", "w.duckdb"]);
  }, 120_000);
});
