import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readZip } from "../helpers/readZip.js";
import { generateHours, hourPath, UsageError, writeDataset, type GenerateOptions } from "../../src/internal.js";
import { concat, OLD_SCHEMA, referenceDecode, referenceShape } from "./referenceDecode.js";

const small: GenerateOptions = { accounts: 2, spaces: 2, machines: 3, hours: 5, seed: 3, start: 1790848800 }; // 2026-10-01T10:00Z
let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "cloudunits-generate-"));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Every file under `dir`, as sorted relative paths with `/`. */
async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)).split(sep).join("/"))
    .sort();
}

describe("writeDataset", () => {
  it("writes a tree with unpadded month, day and hour whose files the reference tool decodes to the model", async () => {
    const out = join(root, "tree");
    const result = await writeDataset({ ...small, out });
    const hours = [...generateHours(small)];
    const paths = hours.map((h) => `${hourPath(h.accountId, h.hourEpoch)}/account_capnp.bin`);
    expect(paths[0]).toBe("1/2026/10/1/10/account_capnp.bin");
    expect(await listFiles(out)).toEqual([...paths].sort());
    const files = await Promise.all(paths.map((p) => readFile(join(out, p))));
    expect(result).toEqual({ files: 10, bytes: files.reduce((n, f) => n + f.length, 0), accountHours: 10 });
    expect(referenceDecode(concat(files), "Account")).toEqual(hours.map((h) => referenceShape(h.account)));
  });

  it("writes the same layout into a zip when out ends with .zip, with the tree's bytes", async () => {
    const tree = join(root, "tree-for-zip");
    const zipFile = join(root, "consumption.zip");
    await writeDataset({ ...small, out: tree });
    const result = await writeDataset({ ...small, out: zipFile });
    const entries = await readZip(zipFile);
    expect([...entries.keys()].sort()).toEqual(await listFiles(tree));
    for (const [name, bytes] of entries) expect(bytes.equals(await readFile(join(tree, name)))).toBe(true);
    expect(result.files).toBe(entries.size);
  });

  it("writes zero-padded directories below leading folders when asked", async () => {
    const zipFile = join(root, "padded.zip");
    await writeDataset({ ...small, hours: 1, out: zipFile, padded: true, leadingFolders: "/var/billing/" });
    expect([...(await readZip(zipFile)).keys()].sort()).toEqual([
      "var/billing/1/2026/10/01/10/account_capnp.bin",
      "var/billing/2/2026/10/01/10/account_capnp.bin",
    ]);
  });

  it("writes per-cloud-space packed files, root CloudSpace, named <cloudSpaceId>.bin.packed", async () => {
    const out = join(root, "cloudspaces");
    const result = await writeDataset({ ...small, out, cloudSpaceFiles: true, packed: true, segmentWords: 32 });
    const hours = [...generateHours(small)];
    const spaces = hours.flatMap((h) =>
      h.account.cloudspaces.map((cs) => ({
        path: `${hourPath(h.accountId, h.hourEpoch)}/${cs.cloudSpaceId}.bin.packed`,
        cs,
      })),
    );
    expect(await listFiles(out)).toEqual(spaces.map((s) => s.path).sort());
    expect(result).toMatchObject({ files: 20, accountHours: 10 });
    const files = await Promise.all(spaces.map((s) => readFile(join(out, s.path))));
    expect(referenceDecode(concat(files), "CloudSpace", { packed: true })).toEqual(
      spaces.map((s) => referenceShape(s.cs)),
    );
  });

  it("writes old-schema files that decode with the old schema", async () => {
    const out = join(root, "old");
    await writeDataset({ ...small, out, oldSchema: true, hours: 2 });
    const hours = [...generateHours({ ...small, hours: 2 })];
    const files = await Promise.all(
      hours.map((h) => readFile(join(out, hourPath(h.accountId, h.hourEpoch), "account_capnp.bin"))),
    );
    expect(referenceDecode(concat(files), "Account", { schema: OLD_SCHEMA })).toEqual(
      hours.map((h) => referenceShape(h.account, { withoutIops: true })),
    );
  });

  it("writes byte-identical trees and zips for the same seed, and different ones for another seed", async () => {
    const [a, b, c] = ["same-a", "same-b", "other"].map((n) => join(root, n));
    await writeDataset({ ...small, out: a! });
    await writeDataset({ ...small, out: b! });
    await writeDataset({ ...small, seed: 4, out: c! });
    const read = async (dir: string) => Promise.all((await listFiles(dir)).map((p) => readFile(join(dir, p))));
    expect(Buffer.concat(await read(b!)).equals(Buffer.concat(await read(a!)))).toBe(true);
    expect(Buffer.concat(await read(c!)).equals(Buffer.concat(await read(a!)))).toBe(false);
    await writeDataset({ ...small, out: `${a}.zip` });
    await writeDataset({ ...small, out: `${b}.zip` });
    expect((await readFile(`${a}.zip`)).equals(await readFile(`${b}.zip`))).toBe(true);
  });

  it("leaves missing hours without a directory and reports progress per account-hour", async () => {
    const out = join(root, "missing");
    const progress: number[] = [];
    const result = await writeDataset({
      ...small,
      out,
      missingHours: [1790848800 + 3600],
      onProgress: (p) => progress.push(p.accountHours),
    });
    expect(result.accountHours).toBe(8);
    expect(progress).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect((await listFiles(out)).some((p) => p.includes("/2026/10/1/11/"))).toBe(false);
  });

  it("refuses an out path it cannot write with a usage error naming it", async () => {
    const file = join(root, "a-file");
    await writeFile(file, "x");
    await expect(writeDataset({ ...small, out: join(file, "tree") })).rejects.toThrow(UsageError);
    await expect(writeDataset({ ...small, out: join(file, "x.zip") })).rejects.toThrow(/a-file/);
  });
});
