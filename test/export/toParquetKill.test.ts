import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, watch } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI } from "../helpers/runCli.js";
import type { ParquetManifest } from "../../src/export/parquetManifest.js";
import { toParquet } from "../../src/export/toParquet.js";
import { writeDataset } from "../../src/generate/writeDataset.js";
import { ingest } from "../../src/store/ingest.js";
import { openWarehouse } from "../../src/store/openWarehouse.js";

const OCT_1 = 1790812800;
const SHAPE = { accounts: 3, spaces: 4, machines: 100, hours: 24, seed: 5 };

let dir: string;
let db: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cloudunits-parquet-kill-"));
  db = join(dir, "w.duckdb");
  await writeDataset({ out: join(dir, "day1"), start: OCT_1, ...SHAPE });
  await writeDataset({ out: join(dir, "day2"), start: OCT_1 + 24 * 3600, ...SHAPE });
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const exportTo = async (out: string) => {
  const w = await openWarehouse({ db });
  try {
    await toParquet(w.connection, { outDir: out });
  } finally {
    w.close();
  }
  return JSON.parse(readFileSync(join(out, "manifest.json"), "utf8")) as ParquetManifest;
};
const sha256 = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex");
const filesOf = (m: ParquetManifest) => new Map(m.partitions[0]!.files.map((f) => [f.file, f]));

describe("Parquet export killed while it replaces a month", () => {
  it("leaves every partition whole, the old file or the new one, and the next export completes it", async () => {
    await ingest([join(dir, "day1")], { db });
    const out = join(dir, "parquet");
    const old = filesOf(await exportTo(out));
    await ingest([join(dir, "day2")], { db });
    const fresh = filesOf(await exportTo(join(dir, "fresh"))); // what the re-export must come to

    // Re-export into the old export; SIGKILL the moment the disks file's temporary appears.
    const disksDir = join(out, "disks/year=2026/month=10");
    let caught: string | undefined;
    const child = spawn(process.execPath, [CLI, "export", "--db", db, "--out", out], {
      stdio: "ignore",
      env: { ...process.env, CI: "1" },
    });
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.on("exit", (_code, signal) => resolve(signal)),
    );
    const watcher = watch(disksDir, (_event, name) => {
      if (caught === undefined && name !== null && /^\..*\.tmp$/.test(name)) {
        caught = join(disksDir, name);
        child.kill("SIGKILL");
      }
    });
    const signal = await exited;
    watcher.close();
    expect(signal).toBe("SIGKILL");
    expect(caught).toBeDefined();

    // Every file is whole: readable, and byte for byte the old export's or the new one's.
    const reader = await (await DuckDBInstance.create(":memory:")).connect();
    try {
      for (const [file, before] of old) {
        const now = sha256(join(out, file));
        expect({ file, whole: now === before.sha256 || now === fresh.get(file)!.sha256 }).toEqual({
          file,
          whole: true,
        });
        const rows = (
          await reader.runAndReadAll("SELECT count(*)::INT AS n FROM read_parquet($file)", { file: join(out, file) })
        ).getRowObjectsJS()[0]!.n;
        expect([before.rows, fresh.get(file)!.rows]).toContain(rows);
      }
    } finally {
      reader.closeSync();
    }
    // The disks file being written when the kill came is the old one, whole.
    if (existsSync(caught!))
      expect(sha256(join(disksDir, "part-0.parquet"))).toBe(old.get("disks/year=2026/month=10/part-0.parquet")!.sha256);
    expect(old.get("disks/year=2026/month=10/part-0.parquet")!.rows).toBeLessThan(
      fresh.get("disks/year=2026/month=10/part-0.parquet")!.rows,
    );

    // Run again: it completes, leaves no temporary file, and the manifest states the files as they are.
    const again = filesOf(await exportTo(out));
    expect(readdirSync(disksDir)).toEqual(["part-0.parquet"]);
    for (const [file, entry] of again) {
      expect({ file, sha256: sha256(join(out, file)), rows: entry.rows }).toEqual({
        file,
        sha256: entry.sha256,
        rows: fresh.get(file)!.rows,
      });
    }
  }, 180_000);
});
