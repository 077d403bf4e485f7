import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { join } from "node:path";
import { readAccountHours, type ReadOptions, type ReadProgress } from "../../src/internal.js";
import { StreamFallback, walkOrder } from "../../src/input/streamTree.js";
import { tempDir, writeTree } from "./zipFixtures.js";

/** Every account-hour read, as "account hour: files", and the reader's summary; the `filesTotal` of each progress report. */
async function read(dir: string, options: ReadOptions = {}) {
  const totals: number[] = [];
  const reader = readAccountHours([dir], { ...options, onProgress: (p: ReadProgress) => totals.push(p.filesTotal) });
  const hours: string[] = [];
  for await (const h of reader)
    hours.push(
      `${h.accountId} ${new Date(h.hourEpoch * 1000).toISOString()}: ${h.sources.map((s) => s.name.slice(dir.length)).join(" ")}`,
    );
  return { hours, summary: reader.summary, totals };
}

/** A tree of three accounts whose folder names sort apart by name and by value (2, 9, 10), with split hours, padded folders and files that are not consumption files. */
const TREE = [
  "2/2026/10/31/23/account_capnp.bin",
  "2/2026/11/1/0/account_capnp.bin",
  "2/2026/11/1/1/account_capnp.bin",
  "2/2026/11/1/10/account_capnp.bin",
  "2/2026/11/1/2/account_capnp.bin",
  "9/2026/11/01/05/12.bin",
  "9/2026/11/01/05/3.bin",
  "9/2026/11/01/06/3.bin",
  "10/2026/11/2/0/account_capnp.bin",
  "10/2026/11/2/9/account_capnp.bin",
  "10/2026/11/2/11/account_capnp.bin",
  "README.txt",
  "10/.partial",
];

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir()));
afterEach(() => cleanup());

describe("reading a large input folder while it is walked", () => {
  it("hands out the same account-hours, in the same order and with the same summary, as indexing it whole", async () => {
    await writeTree(dir, TREE);
    const whole = await read(dir);
    const streamed = await read(dir, { streamAfterBytes: 1 });
    expect(streamed.hours).toEqual(whole.hours);
    expect(whole.hours.slice(0, 3)).toEqual([
      `2 2026-10-31T23:00:00.000Z: /2/2026/10/31/23/account_capnp.bin`,
      `2 2026-11-01T00:00:00.000Z: /2/2026/11/1/0/account_capnp.bin`,
      `2 2026-11-01T01:00:00.000Z: /2/2026/11/1/1/account_capnp.bin`,
    ]);
    expect(streamed.summary).toEqual(whole.summary);
    expect(whole.summary).toMatchObject({
      ignoredPaths: 2,
      ignoredExamples: ["README.txt", "10/.partial"].map((p) => join(dir, p)),
    });
    // the first account-hours were read before the walk had found every file
    expect(streamed.totals[0]).toBeLessThan(whole.totals[0]!);
    expect(streamed.totals.at(-1)).toBe(whole.totals[0]);
  });

  it("indexes a tree smaller than the lookahead whole, in reading order whatever its folders", async () => {
    await writeTree(dir, [...TREE, "9/2026/11/1/05/3.bin"]); // padded and unpadded folders of one hour
    const whole = await read(dir);
    const streamed = await read(dir, { streamAfterBytes: 1 << 30 });
    expect(streamed).toEqual(whole);
    expect(whole.hours).toContain(
      `9 2026-11-01T05:00:00.000Z: /9/2026/11/01/05/3.bin /9/2026/11/1/05/3.bin /9/2026/11/01/05/12.bin`,
    );
  });

  it("stops with StreamFallback once account-hours are out when a later folder goes back in time", async () => {
    // day 1 zero-padded, then unpadded: the walk meets hour 05 of day 1 again after hour 06
    await writeTree(
      dir,
      [...TREE, "9/2026/11/1/05/3.bin"].filter((p) => !p.startsWith("9/2026/11/01/05/3")),
    );
    await expect(read(dir, { streamAfterBytes: 1 })).rejects.toBeInstanceOf(StreamFallback);
  });

  it.each([
    ["a bad file", ["1/2026/13/1/0/account_capnp.bin"]],
    ["an archive", ["1/notes.zip"]],
  ])(
    "indexes a tree with %s met before any account-hour is out whole, reporting as without streaming",
    async (_, extra) => {
      await writeTree(dir, [...TREE, ...extra], (p) =>
        p.endsWith(".zip") ? Buffer.from(`PK\u0005\u0006${"\0".repeat(18)}`, "latin1") : Buffer.from(`bytes of ${p}`),
      );
      const bad: string[] = [];
      const whole = await read(dir, { onBadFile: (e) => bad.push(`${e.code} ${e.file}`) });
      const badStreamed: string[] = [];
      const streamed = await read(dir, {
        onBadFile: (e) => badStreamed.push(`${e.code} ${e.file}`),
        streamAfterBytes: 1,
      });
      expect(streamed).toEqual(whole);
      expect(badStreamed).toEqual(bad);
      expect(whole.summary.badFiles + whole.summary.ignoredPaths).toBeGreaterThan(2); // the bad path, or the archive, is told
    },
  );

  it("stops with StreamFallback when a bad file is met once account-hours are out", async () => {
    await writeTree(dir, [...TREE, "9/2026/13/1/0/account_capnp.bin"]);
    await expect(read(dir, { onBadFile: () => {}, streamAfterBytes: 1 })).rejects.toBeInstanceOf(StreamFallback);
  });
});

describe("walkOrder", () => {
  it.each([
    ["a/b.bin", "a/c/d.bin", -1], // a folder's own files come before its subfolders
    ["a/c/d.bin", "a/b.bin", 1],
    ["a/b/x", "a/c/x", -1],
    ["10/x", "2/x", -1], // by name, not value
    ["a/x", "a/x", 0],
  ])("orders %s and %s as a walk by name meets them", (a, b, expected) => {
    expect(Math.sign(walkOrder(a, b))).toBe(expected);
  });
});
