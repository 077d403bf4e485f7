import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, statSync } from "node:fs";
import { mkdir, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  BadFileError,
  UsageError,
  readAccountHours,
  readDeferred,
  type AccountHour,
  type ReadOptions,
  type ReadProgress,
  type Source,
} from "../../src/internal.js";
import { contentOf, openFds, rawZip, tempDir, writeTree, writeYazl } from "./zipFixtures.js";

const hour = (y: number, m: number, d: number, h: number) => Date.UTC(y, m - 1, d, h) / 1000;

/** Every account-hour, as [accountId, ISO hour, source names relative to `base`]. */
async function collect(inputs: string[], base = "", options: ReadOptions = {}) {
  const reader = readAccountHours(inputs, options);
  const hours: [number, string, string[]][] = [];
  for await (const h of reader) {
    hours.push([
      h.accountId,
      new Date(h.hourEpoch * 1000).toISOString(),
      h.sources.map((s) => s.name.replace(base, "")),
    ]);
  }
  return { hours, summary: reader.summary };
}

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir()));
afterEach(() => cleanup());

describe("readAccountHours on directory trees", () => {
  it("reads unpadded and zero-padded folders as the same kind of hours", async () => {
    await writeTree(dir, [
      "7/2026/11/5/7/account_capnp.bin",
      "7/2026/11/05/08/account_capnp.bin",
      "7/2026/1/31/23/account_capnp.bin",
    ]);
    const reader = readAccountHours([dir]);
    const hours: AccountHour[] = [];
    for await (const h of reader) hours.push(h);
    expect(hours.map((h) => [h.accountId, h.hourEpoch])).toEqual([
      [7, hour(2026, 1, 31, 23)],
      [7, hour(2026, 11, 5, 7)],
      [7, hour(2026, 11, 5, 8)],
    ]);
    const first = hours[0]!.sources[0]!;
    expect(first.root).toBe("Account");
    expect(first.packed).toBe(false);
    expect(first.archive).toBeUndefined();
    expect(Buffer.from(first.bytes).toString()).toBe(contentOf("7/2026/1/31/23/account_capnp.bin").toString());
    expect(reader.summary).toMatchObject({ filesRead: 3, accountHours: 3, ignoredPaths: 0, badFiles: 0 });
  });

  it("gives the same account-hours from the root, the account folder or a day folder", async () => {
    await writeTree(dir, [
      "7/2026/11/5/7/account_capnp.bin",
      "7/2026/11/5/8/account_capnp.bin",
      "7/2026/11/6/0/account_capnp.bin",
      "9/2026/11/5/7/account_capnp.bin",
    ]);
    const fromRoot = (await collect([dir], dir)).hours;
    const fromAccount = (await collect([join(dir, "7")], dir)).hours;
    const fromDay = (await collect([join(dir, "7/2026/11/5")], dir)).hours;
    const fromHour = (await collect([join(dir, "7/2026/11/5/8")], dir)).hours;
    expect(fromRoot.map((h) => h[0])).toEqual([7, 7, 7, 9]);
    expect(fromAccount).toEqual(fromRoot.slice(0, 3));
    expect(fromDay).toEqual(fromRoot.slice(0, 2));
    expect(fromHour).toEqual([[7, "2026-11-05T08:00:00.000Z", ["/7/2026/11/5/8/account_capnp.bin"]]]);
  });

  it("reads a single consumption file given by path", async () => {
    await writeTree(dir, ["7/2026/11/5/7/account_capnp.bin.packed"]);
    const reader = readAccountHours([join(dir, "7/2026/11/5/7/account_capnp.bin.packed")]);
    const hours: AccountHour[] = [];
    for await (const h of reader) hours.push(h);
    expect(hours).toHaveLength(1);
    expect(hours[0]!.hourEpoch).toBe(hour(2026, 11, 5, 7));
    expect(hours[0]!.sources[0]!.packed).toBe(true);
  });

  it("groups the controller's cloud-space files into one account-hour, by cloud space id", async () => {
    await writeTree(dir, ["3/2026/1/1/0/12.bin", "3/2026/1/1/0/2.bin", "3/2026/1/1/1/2.bin"]);
    const reader = readAccountHours([dir]);
    const hours: AccountHour[] = [];
    for await (const h of reader) hours.push(h);
    expect(hours.map((h) => h.sources.map((s) => [s.name.replace(dir, ""), s.root]))).toEqual([
      [
        ["/3/2026/1/1/0/2.bin", "CloudSpace"],
        ["/3/2026/1/1/0/12.bin", "CloudSpace"],
      ],
      [["/3/2026/1/1/1/2.bin", "CloudSpace"]],
    ]);
  });

  it("ignores and counts files that are not at a consumption path", async () => {
    await writeTree(dir, [
      "7/2026/11/5/7/account_capnp.bin",
      "README.txt",
      "7/notes.md",
      "7/2026/11/5/7/account_capnp.bin.bak",
    ]);
    const { hours, summary } = await collect([dir], dir);
    expect(hours).toHaveLength(1);
    expect(summary.ignoredPaths).toBe(3);
    expect(summary.ignoredExamples.map((p) => p.replace(dir, ""))).toEqual([
      "/README.txt",
      "/7/notes.md",
      "/7/2026/11/5/7/account_capnp.bin.bak",
    ]);
  });

  it("forces packed decoding of every file with the packed option", async () => {
    await writeTree(dir, ["7/2026/11/5/7/account_capnp.bin"]);
    const reader = readAccountHours([dir], { packed: true });
    for await (const h of reader) expect(h.sources[0]!.packed).toBe(true);
    expect(reader.summary.accountHours).toBe(1);
  });

  it.each([
    ["7/2026/13/5/7/account_capnp.bin", "month 13"],
    ["7/2026/11/5/24/account_capnp.bin", "hour 24"],
  ])("throws a BadFileError naming %s (%s)", async (path, what) => {
    await writeTree(dir, ["7/2026/11/5/7/account_capnp.bin", path]);
    const error = await collect([dir]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadFileError);
    expect((error as BadFileError).code).toBe("INPUT_BAD_PATH");
    expect((error as BadFileError).file).toBe(join(dir, path));
    expect((error as BadFileError).message).toContain(what);
  });

  it("reports an impossible path to onBadFile and still yields the good hours", async () => {
    await writeTree(dir, ["7/2026/11/5/7/account_capnp.bin", "7/2026/13/5/7/account_capnp.bin"]);
    const bad: BadFileError[] = [];
    const { hours, summary } = await collect([dir], dir, { onBadFile: (e) => bad.push(e) });
    expect(hours.map((h) => h[1])).toEqual(["2026-11-05T07:00:00.000Z"]);
    expect(bad.map((e) => [e.code, e.file.replace(dir, "")])).toEqual([
      ["INPUT_BAD_PATH", "/7/2026/13/5/7/account_capnp.bin"],
    ]);
    expect(summary.badFiles).toBe(1);
    expect(summary.ignoredPaths).toBe(0);
  });

  it("throws a UsageError, before reading anything, when an input does not exist", async () => {
    await writeTree(dir, ["7/2026/11/5/7/account_capnp.bin"]);
    const missing = join(dir, "nope.zip");
    const error = await collect([dir, missing]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toContain(missing);
  });

  it("reads a file once when a folder and its parent are both given", async () => {
    await writeTree(dir, ["7/2026/11/5/7/account_capnp.bin"]);
    const { hours, summary } = await collect([dir, join(dir, "7")], dir);
    expect(hours).toEqual([[7, "2026-11-05T07:00:00.000Z", ["/7/2026/11/5/7/account_capnp.bin"]]]);
    expect(summary.filesRead).toBe(1);
  });
});

describe("readAccountHours on zip archives", () => {
  it("reads entries with and without leading folders, as getConsumption serves them", async () => {
    const plain = join(dir, "plain.zip");
    const nested = join(dir, "nested.zip");
    await writeYazl(plain, [{ name: "7/2026/11/5/7/account_capnp.bin" }]);
    await writeYazl(nested, [
      { name: "var/billing/8/2026/11/05/07/account_capnp.bin" },
      { name: "var/billing/" + "index.html" },
    ]);
    const reader = readAccountHours([plain, nested]);
    const hours: AccountHour[] = [];
    for await (const h of reader) hours.push(h);
    expect(hours.map((h) => [h.accountId, h.hourEpoch])).toEqual([
      [7, hour(2026, 11, 5, 7)],
      [8, hour(2026, 11, 5, 7)],
    ]);
    const source = hours[1]!.sources[0]!;
    expect(source.name).toBe(`${nested}!var/billing/8/2026/11/05/07/account_capnp.bin`);
    expect(source.archive).toBe(nested);
    expect(source.entry).toBe("var/billing/8/2026/11/05/07/account_capnp.bin");
    expect(Buffer.from(source.bytes).toString()).toBe(contentOf(source.entry!).toString());
    expect(reader.summary).toMatchObject({
      accountHours: 2,
      filesRead: 2,
      ignoredPaths: 1,
      ignoredExamples: [`${nested}!var/billing/index.html`],
    });
  });

  it("yields one account-hour holding every copy when a zip and a tree both have it", async () => {
    const zip = join(dir, "a.zip");
    await writeYazl(zip, [{ name: "7/2026/11/5/7/account_capnp.bin" }, { name: "7/2026/11/5/8/account_capnp.bin" }]);
    await writeTree(join(dir, "tree"), ["7/2026/11/05/07/account_capnp.bin"]);
    const { hours } = await collect([join(dir, "tree"), zip], dir);
    expect(hours).toEqual([
      [
        7,
        "2026-11-05T07:00:00.000Z",
        ["/a.zip!7/2026/11/5/7/account_capnp.bin", "/tree/7/2026/11/05/07/account_capnp.bin"],
      ],
      [7, "2026-11-05T08:00:00.000Z", ["/a.zip!7/2026/11/5/8/account_capnp.bin"]],
    ]);
  });

  it("yields the same order whatever the order of entries, files and inputs", async () => {
    const names = [
      "9/2026/1/1/0/account_capnp.bin",
      "7/2026/1/2/0/account_capnp.bin",
      "7/2026/1/1/5/account_capnp.bin",
      "7/2026/1/1/5/3.bin",
      "10/2025/12/31/23/account_capnp.bin",
      "7/2026/1/1/10/account_capnp.bin",
    ];
    const shuffled = [names[3]!, names[5]!, names[0]!, names[2]!, names[4]!, names[1]!];
    await writeYazl(
      join(dir, "a.zip"),
      names.map((name) => ({ name })),
    );
    await writeYazl(
      join(dir, "b.zip"),
      shuffled.map((name) => ({ name })),
    );
    await writeTree(join(dir, "t1"), names);
    await writeTree(join(dir, "t2"), shuffled);
    const a = (await collect([join(dir, "a.zip")], dir)).hours;
    const b = (await collect([join(dir, "b.zip")], dir)).hours;
    const t1 = (await collect([join(dir, "t1")], join(dir, "t1"))).hours;
    const t2 = (await collect([join(dir, "t2")], join(dir, "t2"))).hours;
    expect(a.map((h) => [h[0], h[1], h[2].map((n) => n.replace("/a.zip!", "/"))])).toEqual(t1);
    expect(b.map((h) => [h[0], h[1], h[2].map((n) => n.replace("/b.zip!", "/"))])).toEqual(t1);
    expect(t2).toEqual(t1);
    expect(t1.map((h) => [h[0], h[1]])).toEqual([
      [7, "2026-01-01T05:00:00.000Z"],
      [7, "2026-01-01T10:00:00.000Z"],
      [7, "2026-01-02T00:00:00.000Z"],
      [9, "2026-01-01T00:00:00.000Z"],
      [10, "2025-12-31T23:00:00.000Z"],
    ]);
    expect(t1[0]![2]).toEqual(["/7/2026/1/1/5/account_capnp.bin", "/7/2026/1/1/5/3.bin"]);
    const mixed = (await collect([join(dir, "b.zip"), join(dir, "t2"), join(dir, "a.zip")], dir)).hours;
    const reversed = (await collect([join(dir, "a.zip"), join(dir, "t2"), join(dir, "b.zip")], dir)).hours;
    expect(mixed).toEqual(reversed);
  });

  it("reports progress with totals known after indexing", async () => {
    await writeYazl(join(dir, "a.zip"), [
      { name: "7/2026/1/1/0/account_capnp.bin", data: Buffer.alloc(100, 1) },
      { name: "7/2026/1/1/1/account_capnp.bin", data: Buffer.alloc(50, 2) },
    ]);
    const seen: ReadProgress[] = [];
    const reader = readAccountHours([join(dir, "a.zip")], { onProgress: (p) => seen.push({ ...p }) });
    for await (const h of reader) expect(h.sources).toHaveLength(1);
    expect(seen[0]).toEqual({ filesRead: 0, bytesRead: 0, filesTotal: 2, bytesTotal: 150 });
    expect(seen.at(-1)).toEqual({ filesRead: 2, bytesRead: 150, filesTotal: 2, bytesTotal: 150 });
    expect(reader.summary).toMatchObject({ filesRead: 2, bytesRead: 150 });
  });

  it("treats an input file that is not a zip as one bad file", async () => {
    const notZip = join(dir, "consumption.zip");
    await writeFile(notZip, "<html>login required</html>");
    const error = await collect([notZip]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadFileError);
    expect((error as BadFileError).code).toBe("ARCHIVE_CORRUPT");
    expect((error as BadFileError).file).toBe(notZip);
  });

  it("treats a truncated zip as one bad file and goes on with the other inputs under onBadFile", async () => {
    const good = join(dir, "good.zip");
    await writeYazl(good, [{ name: "7/2026/1/1/0/account_capnp.bin" }, { name: "7/2026/1/1/1/account_capnp.bin" }]);
    const bytes = rawZip([
      { name: "8/2026/1/1/0/account_capnp.bin", data: Buffer.alloc(64, 7) },
      { name: "8/2026/1/1/1/account_capnp.bin", data: Buffer.alloc(64, 8) },
    ]);
    const truncated = join(dir, "truncated.zip");
    await writeFile(truncated, bytes.subarray(0, bytes.length - 30));
    const bad: BadFileError[] = [];
    const { hours } = await collect([truncated, good], dir, { onBadFile: (e) => bad.push(e) });
    expect(hours.map((h) => h[0])).toEqual([7, 7]);
    expect(bad.map((e) => [e.code, e.file])).toEqual([["ARCHIVE_CORRUPT", truncated]]);
  });

  it("reads the zips found in an input folder (as fetch writes them into one), each once, beside its tree files", async () => {
    await mkdir(join(dir, "dl/old"), { recursive: true });
    await writeYazl(join(dir, "dl/consumption-7.zip"), [
      { name: "7/2026/11/5/7/account_capnp.bin" },
      { name: "7/2026/11/5/8/account_capnp.bin" },
    ]);
    await writeYazl(join(dir, "dl/old/consumption-8"), [{ name: "var/billing/8/2026/11/5/7/account_capnp.bin" }]); // known by its bytes, not its name
    await writeTree(join(dir, "dl"), ["9/2026/11/5/7/account_capnp.bin"]);
    const { hours, summary } = await collect([join(dir, "dl"), join(dir, "dl/consumption-7.zip")], dir);
    expect(hours).toEqual([
      [7, "2026-11-05T07:00:00.000Z", ["/dl/consumption-7.zip!7/2026/11/5/7/account_capnp.bin"]],
      [7, "2026-11-05T08:00:00.000Z", ["/dl/consumption-7.zip!7/2026/11/5/8/account_capnp.bin"]],
      [8, "2026-11-05T07:00:00.000Z", ["/dl/old/consumption-8!var/billing/8/2026/11/5/7/account_capnp.bin"]],
      [9, "2026-11-05T07:00:00.000Z", ["/dl/9/2026/11/5/7/account_capnp.bin"]],
    ]);
    expect(summary.ignoredPaths).toBe(0);
  });

  it("ignores what in a folder holds no consumption file (a workbook is a zip too) and hidden downloads in progress, each counted once", async () => {
    await mkdir(join(dir, "dl"), { recursive: true });
    await writeYazl(join(dir, "dl/october.xlsx"), [
      { name: "xl/workbook.xml" },
      { name: "xl/styles.xml" },
      { name: "[Content_Types].xml" },
    ]);
    await writeYazl(join(dir, "dl/.consumption-7.zip.part-host-1-0123abcd.zip"), [
      { name: "7/2026/11/5/7/account_capnp.bin" },
    ]);
    await writeTree(join(dir, "dl"), ["notes.txt"]);
    const { hours, summary } = await collect([join(dir, "dl")], dir);
    expect(hours).toEqual([]);
    expect(summary.ignoredPaths).toBe(3);
    expect(summary.ignoredExamples.map((p) => p.replace(dir, ""))).toEqual([
      "/dl/.consumption-7.zip.part-host-1-0123abcd.zip",
      "/dl/notes.txt",
      "/dl/october.xlsx",
    ]);
  });

  it("names a damaged zip found in an input folder as a bad file, and reads the folder's other zips", async () => {
    await mkdir(join(dir, "dl"), { recursive: true });
    await writeYazl(join(dir, "dl/good.zip"), [{ name: "7/2026/11/5/7/account_capnp.bin" }]);
    const whole = rawZip([{ name: "8/2026/11/5/7/account_capnp.bin", data: contentOf("x") }]);
    await writeFile(join(dir, "dl/cut.zip"), whole.subarray(0, whole.length - 10)); // its end record cut short: a zip by its first bytes
    const bad: BadFileError[] = [];
    const { hours, summary } = await collect([join(dir, "dl")], dir, { onBadFile: (e) => bad.push(e) });
    expect(hours).toEqual([[7, "2026-11-05T07:00:00.000Z", ["/dl/good.zip!7/2026/11/5/7/account_capnp.bin"]]]);
    expect(bad.map((e) => [e.code, e.file.replace(dir, "")])).toEqual([["ARCHIVE_CORRUPT", "/dl/cut.zip"]]);
    expect(summary.ignoredPaths).toBe(0);
  });
});

describe("readAccountHours reads lazily", () => {
  it("reads an account-hour only when the consumer gets near it, not all inputs up front", async () => {
    const names = Array.from({ length: 8 }, (_, h) => `7/2026/1/1/${h}/account_capnp.bin`);
    await writeTree(dir, names);
    const seen: number[] = [];
    const bad: BadFileError[] = [];
    const reader = readAccountHours([dir], { readAheadHours: 2, onBadFile: (e) => bad.push(e) });
    for await (const h of reader) {
      seen.push(new Date(h.hourEpoch * 1000).getUTCHours());
      // Deleted after the first hour is yielded: hours 0–2 are read by then, hour 6 is not yet.
      if (seen.length === 1) await rm(join(dir, names[6]!));
    }
    expect(seen).toEqual([0, 1, 2, 3, 4, 5, 7]);
    expect(bad.map((e) => [e.code, e.file])).toEqual([["INPUT_UNREADABLE", join(dir, names[6]!)]]);
  });

  it("follows a symbolic link within the input folder, never one back up the tree", async () => {
    await writeTree(dir, ["data/7/2026/1/1/0/account_capnp.bin", "data/archive/8/2026/1/1/0/account_capnp.bin"]);
    await symlink(join(dir, "data/archive/8"), join(dir, "data/8"));
    await mkdir(join(dir, "data/7/2026/1/1/0/loop"), { recursive: true });
    await symlink(join(dir, "data"), join(dir, "data/7/2026/1/1/0/loop/back"));
    const { hours, summary } = await collect([join(dir, "data")], dir);
    expect(hours).toEqual([
      [7, "2026-01-01T00:00:00.000Z", ["/data/7/2026/1/1/0/account_capnp.bin"]],
      // the same file by two names (the link's and its own): the store finds their bytes the same
      [
        8,
        "2026-01-01T00:00:00.000Z",
        ["/data/8/2026/1/1/0/account_capnp.bin", "/data/archive/8/2026/1/1/0/account_capnp.bin"],
      ],
    ]);
    expect(summary.ignoredExamples).toEqual([join(dir, "data/7/2026/1/1/0/loop/back")]);
  });

  it("never follows a link out of the input folder (to / or another disk): each one that may hold consumption files is named", async () => {
    await writeTree(dir, ["data/7/2026/1/1/0/account_capnp.bin", "elsewhere/8/2026/1/1/0/account_capnp.bin"]);
    await symlink("/", join(dir, "data/root"));
    await symlink(join(dir, "elsewhere/8"), join(dir, "data/8"));
    await symlink(join(dir, "elsewhere/8/2026/1/1/0/account_capnp.bin"), join(dir, "data/7/2026/1/1/0/9.bin"));
    await symlink(join(dir, "elsewhere/8/2026/1/1/0/account_capnp.bin"), join(dir, "data/notes.txt"));
    const bad: BadFileError[] = [];
    const { hours, summary } = await collect([join(dir, "data")], dir, { onBadFile: (e) => bad.push(e) });
    expect(hours).toEqual([[7, "2026-01-01T00:00:00.000Z", ["/data/7/2026/1/1/0/account_capnp.bin"]]]);
    const outside = (target: string) =>
      `a symbolic link to ${target}, outside ${join(dir, "data")}: links are followed only within the input folder (give ${target} as an input of its own)`;
    expect(bad.map((e) => [e.code, e.file, e.reason])).toEqual([
      ["INPUT_LINK_OUTSIDE", join(dir, "data/8"), outside(join(dir, "elsewhere/8"))],
      ["INPUT_LINK_OUTSIDE", join(dir, "data/root"), outside("/")],
      [
        "INPUT_LINK_OUTSIDE",
        join(dir, "data/7/2026/1/1/0/9.bin"),
        outside(join(dir, "elsewhere/8/2026/1/1/0/account_capnp.bin")),
      ],
    ]);
    expect(summary.ignoredExamples).toEqual([join(dir, "data/notes.txt")]);
  });

  it("reads a file named with backslashes in account 2's hour folder as no consumption file, never as account 1's", async () => {
    await writeTree(dir, ["2/2026/10/1/0/1\\2026\\10\\1\\0\\account_capnp.bin"]);
    const { hours, summary } = await collect([dir], dir);
    expect([hours, summary.ignoredPaths]).toEqual([[], 1]);
  });

  it("names a FIFO at a consumption path, and never blocks on one put there after indexing", async () => {
    const fifo = join(dir, "7/2026/1/1/2/account_capnp.bin");
    await writeTree(dir, ["7/2026/1/1/0/account_capnp.bin", "7/2026/1/1/1/account_capnp.bin"]);
    await mkdir(join(dir, "7/2026/1/1/2"));
    execFileSync("mkfifo", [fifo]);
    const bad: BadFileError[] = [];
    const { hours } = await collect([dir], dir, { onBadFile: (e) => bad.push(e) });
    expect(hours.map((h) => h[1])).toEqual(["2026-01-01T00:00:00.000Z", "2026-01-01T01:00:00.000Z"]);
    expect(bad.map((e) => [e.code, e.file, e.reason])).toEqual([
      ["INPUT_NOT_A_FILE", fifo, "a FIFO (named pipe), not a regular file: it cannot be read"],
    ]);

    // Indexed as a file, replaced by a FIFO before it is read: named, never waited on.
    const replaced = join(dir, "7/2026/1/1/1/account_capnp.bin");
    for (const deferTreeReads of [false, true]) {
      rmSync(fifo, { force: true });
      rmSync(replaced); // the FIFO of the last round: writing to it would block
      await writeTree(dir, ["7/2026/1/1/1/account_capnp.bin"]);
      const errors: BadFileError[] = [];
      const onProgress = (progress: ReadProgress) => {
        if (progress.filesRead > 0 || !existsSync(replaced) || !statSync(replaced).isFile()) return;
        rmSync(replaced);
        execFileSync("mkfifo", [replaced]); // after indexing, before any read
      };
      const reader = readAccountHours([dir], { onBadFile: (e) => errors.push(e), onProgress, deferTreeReads });
      const read: string[] = [];
      for await (const h of reader) {
        for (const source of h.sources) {
          try {
            readDeferred(source);
            read.push(source.name);
          } catch (error) {
            errors.push(error as BadFileError);
          }
        }
      }
      expect(read).toEqual([join(dir, "7/2026/1/1/0/account_capnp.bin")]);
      expect(errors.map((e) => [e.code, e.file, e.reason])).toEqual([
        ["INPUT_NOT_A_FILE", replaced, "a FIFO (named pipe), not a regular file: it cannot be read"],
      ]);
    }
  });

  it("reads a file left unread with the bytes it has when read: as indexed, grown or shrunk since, and refuses one grown past the limit", async () => {
    const names = [
      "7/2026/1/1/0/account_capnp.bin",
      "7/2026/1/1/1/account_capnp.bin",
      "7/2026/1/1/2/account_capnp.bin",
    ];
    const grownPastLimit = "7/2026/1/1/3/account_capnp.bin";
    const sized = (n: number) => () => Buffer.alloc(n, 7);
    await writeTree(dir, names, sized(100));
    await writeTree(dir, [grownPastLimit], sized(100));
    const reader = readAccountHours([dir], { deferTreeReads: true, maxEntryBytes: 150 });
    const sizes: (number | string)[] = [];
    for await (const h of reader) {
      const source = h.sources[0]!;
      const name = source.name.replace(`${dir}/`, "");
      // after indexing (each was 100 bytes then), before the read
      if (name === names[1]) await writeFile(source.name, Buffer.alloc(120, 8));
      if (name === names[2]) await writeFile(source.name, Buffer.alloc(30, 9));
      if (name === grownPastLimit) await writeFile(source.name, Buffer.alloc(200, 9));
      try {
        readDeferred(source);
        sizes.push(source.bytes.byteLength, source.bytes.at(-1)!);
      } catch (error) {
        sizes.push((error as BadFileError).code);
      }
    }
    // unchanged: its 100 bytes of 7; grown: all 120 bytes of 8; shrunk: its 30 bytes of 9; 200 > 150: refused
    expect(sizes).toEqual([100, 7, 120, 8, 30, 9, "INPUT_TOO_LARGE"]);
  });

  it.runIf(process.platform === "linux")(
    "names a folder whose name is not valid UTF-8, and reads its neighbours",
    async () => {
      await writeTree(dir, ["7/2026/1/1/0/account_capnp.bin"]);
      const raw = Buffer.concat([Buffer.from(`${dir}/`), Buffer.from([0x62, 0x61, 0x64, 0xff])]);
      mkdirSync(raw);
      mkdirSync(Buffer.concat([raw, Buffer.from("/8")]));
      const bad: BadFileError[] = [];
      const { hours } = await collect([dir], dir, { onBadFile: (e) => bad.push(e) });
      expect(hours).toEqual([[7, "2026-01-01T00:00:00.000Z", ["/7/2026/1/1/0/account_capnp.bin"]]]);
      expect(bad.map((e) => [e.code, e.file, e.reason])).toEqual([
        [
          "INPUT_BAD_NAME",
          join(dir, "bad\uFFFD"),
          "the folder's name is not valid UTF-8 (its name's bytes are 62 61 64 ff); nothing in it is read: rename it",
        ],
      ]);
    },
  );
});

describe("readAccountHours bounds one account-hour", () => {
  it("refuses every file of an account-hour whose files add up to more than maxAccountHourBytes, naming each, and reads the others", async () => {
    const big = ["7/2026/1/1/0/1.bin", "7/2026/1/1/0/2.bin", "7/2026/1/1/0/3.bin"];
    await writeTree(dir, [...big, "7/2026/1/1/1/1.bin"], () => Buffer.alloc(40, 1));
    const bad: BadFileError[] = [];
    const { hours, summary } = await collect([dir], dir, { onBadFile: (e) => bad.push(e), maxAccountHourBytes: 100 });
    expect(hours).toEqual([[7, "2026-01-01T01:00:00.000Z", ["/7/2026/1/1/1/1.bin"]]]);
    const reason =
      "account 7, hour 2026-01-01T00:00:00Z: its 3 files declare 120 bytes in all, more than the limit of 100 for one account-hour; " +
      "none is read (raise maxAccountHourBytes if the files are trusted)";
    expect(bad.map((e) => [e.code, e.file, e.reason])).toEqual(
      big.map((name) => ["INPUT_HOUR_TOO_LARGE", join(dir, name), reason]),
    );
    expect(summary).toMatchObject({ filesRead: 1, accountHours: 1, badFiles: 3 });
    await expect(collect([dir], dir, { maxAccountHourBytes: 100 })).rejects.toMatchObject({
      code: "INPUT_HOUR_TOO_LARGE",
    });
    expect((await collect([dir], dir, { maxAccountHourBytes: 120 })).hours).toHaveLength(2);
  });
});

describe("readAccountHours with deferTreeReads", () => {
  it("leaves tree files unread, and readDeferred reads each or names the problem", async () => {
    const names = [
      "7/2026/1/1/0/account_capnp.bin",
      "7/2026/1/1/1/account_capnp.bin",
      "7/2026/1/1/2/account_capnp.bin",
    ];
    await writeTree(dir, names);
    const sources: Source[] = [];
    for await (const h of readAccountHours([dir], { deferTreeReads: true, maxEntryBytes: 100 }))
      sources.push(...h.sources);
    expect(sources.map((s) => [s.bytes.length, s.deferred?.path])).toEqual(names.map((n) => [0, join(dir, n)]));
    await rm(join(dir, names[1]!));
    await writeFile(join(dir, names[2]!), Buffer.alloc(101));
    readDeferred(sources[0]!);
    expect([Buffer.from(sources[0]!.bytes).equals(contentOf(names[0]!)), sources[0]!.deferred]).toEqual([
      true,
      undefined,
    ]);
    expect(() => readDeferred(sources[1]!)).toThrow(
      expect.objectContaining({ code: "INPUT_UNREADABLE", file: join(dir, names[1]!) }),
    );
    expect(() => readDeferred(sources[2]!)).toThrow(
      expect.objectContaining({
        code: "INPUT_TOO_LARGE",
        reason: "101 bytes, more than the limit of 100 (raise maxEntryBytes if the file is trusted)",
      }),
    );
  });
});

describe("readAccountHours releases files", () => {
  it("closes every archive when the consumer breaks out of the loop early", async () => {
    const names = Array.from({ length: 6 }, (_, h) => ({ name: `7/2026/1/1/${h}/account_capnp.bin` }));
    await writeYazl(join(dir, "a.zip"), names);
    await writeYazl(
      join(dir, "b.zip"),
      names.map(({ name }) => ({ name: `x/${name.replace(/^7/, "8")}` })),
    );
    await writeTree(
      join(dir, "t"),
      names.map(({ name }) => name.replace(/^7/, "9")),
    );
    const before = openFds();
    const reader = readAccountHours([join(dir, "a.zip"), join(dir, "b.zip"), join(dir, "t")]);
    let seen = 0;
    for await (const h of reader) {
      expect(h.accountId).toBe(7);
      if (++seen === 2) break;
    }
    expect(seen).toBe(2);
    expect(openFds()).toBe(before);
  });

  it("closes every archive when a bad file ends the reading", async () => {
    const zip = join(dir, "bad-crc.zip");
    await writeFile(
      zip,
      rawZip([
        { name: "7/2026/1/1/0/account_capnp.bin", data: Buffer.alloc(10, 1) },
        { name: "7/2026/1/1/1/account_capnp.bin", data: Buffer.alloc(10, 2), crc: 1234 },
        { name: "7/2026/1/1/2/account_capnp.bin", data: Buffer.alloc(10, 3) },
      ]),
    );
    await writeYazl(join(dir, "other.zip"), [{ name: "8/2026/1/1/0/account_capnp.bin" }]);
    const before = openFds();
    const seen: number[] = [];
    const error = await (async () => {
      for await (const h of readAccountHours([zip, join(dir, "other.zip")])) seen.push(h.hourEpoch);
    })().catch((e: unknown) => e);
    expect((error as BadFileError).code).toBe("ARCHIVE_CHECKSUM");
    expect(seen).toEqual([hour(2026, 1, 1, 0)]);
    expect(openFds()).toBe(before);
  });
});
