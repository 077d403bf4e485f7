import { cpSync, mkdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeDataset } from "../../src/generate/writeDataset.js";
import { isSyncthingCopy } from "../../src/input/syncthingCopies.js";
import { runCli } from "../helpers/runCli.js";
import { writeYazl } from "./zipFixtures.js";

const START = 1790812800; // 2026-10-01T00:00Z
let dir: string;
let clean: string;
let synced: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "cloudunits-syncthing-"));
  clean = join(dir, "clean");
  await writeDataset({ out: clean, accounts: 2, spaces: 2, machines: 3, hours: 6, start: START, seed: 8 });
  // the same tree as a controller's Syncthing leaves it
  synced = join(dir, "synced");
  cpSync(clean, synced, { recursive: true });
  const hour0 = join(synced, "1/2026/10/1/0");
  // a conflict copy beside the file: the same bytes (billed twice if read)
  cpSync(join(hour0, "account_capnp.bin"), join(hour0, "account_capnp.sync-conflict-20261001-013000-ABCDEFG.bin"));
  // trash-can versioning keeps an old version under its own name: here another hour's bytes (a conflict if read)
  const kept = join(synced, ".stversions/1/2026/10/1/0");
  mkdirSync(kept, { recursive: true });
  cpSync(join(synced, "1/2026/10/1/1/account_capnp.bin"), join(kept, "account_capnp.bin"));
  // staggered versioning: the name tagged with the time
  const stamped = join(synced, "2/2026/10/1/3/.stversions");
  mkdirSync(stamped, { recursive: true });
  cpSync(join(synced, "2/2026/10/1/3/account_capnp.bin"), join(stamped, "account_capnp~20261001-040000.bin"));
}, 60_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const bill = (input: string) =>
  runCli(["billing", input, "--start", String(START), "--end", String(START + 6 * 3600), "--format", "json"]);

describe("copies Syncthing leaves in a billing tree", () => {
  it("are never read as consumption files: the tree bills as the clean one, and check counts and names them", async () => {
    const [before, after] = await Promise.all([bill(clean), bill(synced)]);
    expect(after.code).toBe(0);
    expect(after.stdout).toBe(before.stdout);
    expect(after.stderr).not.toMatch(/duplicate|conflict/);

    const check = await runCli(["check", synced, "--format", "json"]);
    expect(check.code).toBe(0);
    const report = JSON.parse(check.stdout);
    expect(report.duplicates).toEqual([]);
    expect(report.conflicts).toEqual([]);
    expect(report.syncthingCopies).toEqual([
      join(synced, ".stversions"),
      join(synced, "1/2026/10/1/0/account_capnp.sync-conflict-20261001-013000-ABCDEFG.bin"),
      join(synced, "2/2026/10/1/3/.stversions"),
    ]);
    const text = await runCli(["check", synced]);
    expect(text.stdout).toContain("copies Syncthing left (.stversions folders, sync-conflict files; never read): 3\n");
    expect(text.stdout).toContain(`  ${join(synced, ".stversions")}\n`);
  }, 120_000);

  it("in a zip of such a tree, each copy's entry is named and none is read", async () => {
    const zip = join(dir, "synced.zip");
    const entry = (name: string, from: string) => ({ name, data: readFileSync(join(synced, from)) });
    await writeYazl(zip, [
      entry("1/2026/10/1/0/account_capnp.bin", "1/2026/10/1/0/account_capnp.bin"),
      entry("1/2026/10/1/0/account_capnp.sync-conflict-20261001-013000-ABCDEFG.bin", "1/2026/10/1/0/account_capnp.bin"),
      entry(".stversions/1/2026/10/1/0/account_capnp.bin", "1/2026/10/1/1/account_capnp.bin"),
    ]);
    const check = await runCli(["check", zip, "--format", "json"]);
    expect(check.code).toBe(0);
    const report = JSON.parse(check.stdout);
    expect(report.accounts).toMatchObject([{ accountId: 1, hours: 1 }]);
    expect(report.conflicts).toEqual([]);
    expect(report.duplicates).toEqual([]);
    expect(report.syncthingCopies).toEqual([
      `${zip}!1/2026/10/1/0/account_capnp.sync-conflict-20261001-013000-ABCDEFG.bin`,
      `${zip}!.stversions/1/2026/10/1/0/account_capnp.bin`,
    ]);
  }, 120_000);

  it("are told by name: a conflict copy, anything below .stversions; not a file that only looks alike", () => {
    const cases: [string, boolean][] = [
      ["1/2026/10/1/0/account_capnp.sync-conflict-20261001-013000-ABCDEFG.bin", true],
      ["1/2026/10/1/0/12.sync-conflict-20261001-013000-ABCDEFG.bin.packed", true],
      [".stversions/1/2026/10/1/0/account_capnp.bin", true],
      ["billing/.stversions/x", true],
      ["1/2026/10/1/0/account_capnp.bin", false],
      ["stversions/1/2026/10/1/0/account_capnp.bin", false],
      ["1/2026/10/1/0/account_capnp.sync-conflict.bin", false],
    ];
    for (const [path, copy] of cases) expect([path, isSyncthingCopy(path)]).toEqual([path, copy]);
  });
});
