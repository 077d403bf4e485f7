import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeDataset } from "../../src/generate/writeDataset.js";
import { runCli } from "../helpers/runCli.js";

const START = Date.UTC(2026, 9, 1) / 1000; // 2026-10-01T00:00Z
let root: string;
let tree: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "cloudunits-select-"));
  tree = join(root, "tree");
  await writeDataset({ out: tree, accounts: 2, spaces: 1, machines: 2, hours: 4, start: START, seed: 3 });
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const billing = (...args: string[]) => runCli(["billing", tree, ...args]);

describe("billing reads only the files of the account and period it bills", () => {
  it("a corrupt file of another account, or of an hour outside the period, does not stop it; one inside does", async () => {
    const period = ["--start", "2026-10-01T00:00Z", "--end", "2026-10-01T02:00Z"];
    const before = await billing(...period, "--account-id", "1");
    expect(before.code).toBe(0);
    // account 2's hour inside the period, and account 1's hour after it
    await writeFile(join(tree, "2/2026/10/1/1/account_capnp.bin"), "not a message");
    await writeFile(join(tree, "1/2026/10/1/3/account_capnp.bin"), "not a message");
    const after = await billing(...period, "--account-id", "1");
    expect(after.code).toBe(0);
    expect(after.stdout).toBe(before.stdout);
    expect(after.stderr).not.toContain("account_capnp.bin");
    // the environment of the period reads account 2's corrupt file: exit 3 naming it
    const environment = await billing(...period);
    expect(environment.code).toBe(3);
    expect(environment.stderr).toContain(join("2/2026/10/1/1/account_capnp.bin"));
    expect(environment.stderr).not.toContain(join("1/2026/10/1/3"));
  });
});
