import { spawnSync } from "node:child_process";
import { readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BadFileError, listAccountHours, readAccountHours, type ReadOptions } from "../../src/index.js";
import { openFds, rawZip, tempDir, type RawEnd, type RawEntry } from "./zipFixtures.js";

const GOOD = "7/2026/1/1/0/account_capnp.bin";
const good: RawEntry = { name: GOOD, data: Buffer.from("good bytes") };

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir()));
afterEach(() => cleanup());

/** Writes `entries` as a zip and reads it: the first error thrown, and what onBadFile saw. */
async function readZip(entries: RawEntry[], options: ReadOptions = {}, end: RawEnd = {}) {
  const zip = join(dir, "consumption.zip");
  await writeFile(zip, rawZip(entries, end));
  let thrown: BadFileError | undefined;
  try {
    for await (const hour of readAccountHours([zip], options)) expect(hour).toBeDefined();
  } catch (error) {
    thrown = error as BadFileError;
  }
  const reported: BadFileError[] = [];
  const names: string[] = [];
  for await (const hour of readAccountHours([zip], { ...options, onBadFile: (e) => reported.push(e) })) {
    names.push(...hour.sources.map((s) => s.entry!));
  }
  return { zip, thrown, reported, names };
}

describe("zip archives are read safely", () => {
  it.each([
    ["a parent-folder entry", `../${GOOD}`, "a `..` part"],
    ["an absolute entry", `/${GOOD}`, "an absolute path"],
    ["a backslash entry", GOOD.replaceAll("/", "\\"), "a backslash"],
  ])("refuses %s, naming archive and entry, and still reads the good entries", async (_, name, why) => {
    const { zip, thrown, reported, names } = await readZip([{ name, data: Buffer.from("evil") }, good]);
    expect(thrown).toBeInstanceOf(BadFileError);
    expect(thrown!.code).toBe("ARCHIVE_UNSAFE_NAME");
    expect(thrown!.file).toBe(`${zip}!${name}`);
    expect(thrown!.message).toContain(why);
    expect(reported.map((e) => e.code)).toEqual(["ARCHIVE_UNSAFE_NAME"]);
    expect(names).toEqual([GOOD]);
    expect((await readdir(dir)).sort()).toEqual(["consumption.zip"]); // nothing extracted, anywhere
  });

  it("refuses every copy of a duplicated entry name", async () => {
    const twice = "7/2026/1/1/5/account_capnp.bin";
    const { zip, thrown, reported, names } = await readZip([
      { name: twice, data: Buffer.from("first") },
      good,
      { name: twice, data: Buffer.from("second") },
    ]);
    expect(thrown!.code).toBe("ARCHIVE_DUPLICATE");
    expect(thrown!.file).toBe(`${zip}!${twice}`);
    expect(reported.map((e) => e.code)).toEqual(["ARCHIVE_DUPLICATE"]);
    expect(names).toEqual([GOOD]);
  });

  it.each([
    [
      "a deflated entry holding more than it declares",
      { deflate: true, uncompressedSize: 100 },
      "holds more than the 100 bytes",
    ],
    [
      "a deflated entry holding less than it declares",
      { deflate: true, uncompressedSize: 300 },
      "holds 200 bytes but declares 300",
    ],
    ["a stored entry whose sizes disagree", { uncompressedSize: 150 }, "stored entry declares 150 bytes but holds 200"],
  ])("refuses %s", async (_, lie, why) => {
    const liar = { name: "7/2026/1/1/3/account_capnp.bin", data: Buffer.alloc(200, 0x41), ...lie };
    const before = openFds();
    const { zip, thrown, reported, names } = await readZip([good, liar]);
    expect(thrown!.code).toBe("ARCHIVE_SIZE_MISMATCH");
    expect(thrown!.file).toBe(`${zip}!${liar.name}`);
    expect(thrown!.message).toContain(why);
    expect(reported.map((e) => e.code)).toEqual(["ARCHIVE_SIZE_MISMATCH"]);
    expect(names).toEqual([GOOD]);
    expect(openFds()).toBe(before);
  });

  it("refuses a zip bomb: a compression ratio over 1000", async () => {
    const bomb = { name: "7/2026/1/1/9/account_capnp.bin", data: Buffer.alloc(4 * 1024 * 1024), deflate: true };
    const { zip, thrown, names } = await readZip([bomb, good]);
    expect(thrown!.code).toBe("ARCHIVE_RATIO");
    expect(thrown!.file).toBe(`${zip}!${bomb.name}`);
    expect(thrown!.message).toMatch(/compression ratio 10\d\d /);
    expect(names).toEqual([GOOD]);
  });

  it("accepts an ordinary compression ratio, and a lower ratio limit refuses it", async () => {
    const zeros = { name: "7/2026/1/1/9/account_capnp.bin", data: Buffer.alloc(10_000), deflate: true };
    expect((await readZip([zeros])).names).toEqual([zeros.name]);
    expect((await readZip([zeros], { maxCompressionRatio: 50 })).thrown!.code).toBe("ARCHIVE_RATIO");
  });

  it("refuses an entry whose CRC-32 does not match its bytes", async () => {
    const damaged = {
      name: "7/2026/1/1/4/account_capnp.bin",
      data: Buffer.from("flipped bits"),
      deflate: true,
      crc: 0xdeadbeef,
    };
    const { zip, thrown, reported, names } = await readZip([good, damaged]);
    expect(thrown!.code).toBe("ARCHIVE_CHECKSUM");
    expect(thrown!.file).toBe(`${zip}!${damaged.name}`);
    expect(thrown!.message).toContain("0xdeadbeef");
    expect(reported.map((e) => e.code)).toEqual(["ARCHIVE_CHECKSUM"]);
    expect(names).toEqual([GOOD]);
  });

  it("refuses an entry larger than maxEntryBytes", async () => {
    const big = { name: "7/2026/1/1/2/account_capnp.bin", data: Buffer.alloc(64, 1) };
    const { zip, thrown, names } = await readZip([good, big], { maxEntryBytes: 32 });
    expect(thrown!.code).toBe("ARCHIVE_TOO_LARGE");
    expect(thrown!.file).toBe(`${zip}!${big.name}`);
    expect(names).toEqual([GOOD]);
  });

  it("refuses a whole archive with more entries than maxEntries", async () => {
    const entries = [0, 1, 2].map((h) => ({ name: `7/2026/1/1/${h}/account_capnp.bin`, data: Buffer.from("x") }));
    const { zip, thrown, reported, names } = await readZip(entries, { maxEntries: 2 });
    expect(thrown!.code).toBe("ARCHIVE_TOO_MANY_ENTRIES");
    expect(thrown!.file).toBe(zip);
    expect(reported).toHaveLength(1);
    expect(names).toEqual([]);
  });

  it("refuses a whole archive whose consumption files add up to more than maxTotalBytes", async () => {
    const entries = [0, 1, 2].map((h) => ({ name: `7/2026/1/1/${h}/account_capnp.bin`, data: Buffer.alloc(40) }));
    const { zip, thrown, names } = await readZip(entries, { maxTotalBytes: 100 });
    expect(thrown!.code).toBe("ARCHIVE_TOO_LARGE");
    expect(thrown!.file).toBe(zip);
    expect(names).toEqual([]);
  });

  it("reads an entry whose local header has a longer extra field than the central directory says", async () => {
    const entry = { ...good, localExtra: Buffer.alloc(300, 0x55), deflate: true };
    const zip = join(dir, "extra.zip");
    await writeFile(zip, rawZip([entry]));
    const contents: string[] = [];
    for await (const hour of readAccountHours([zip]))
      contents.push(...hour.sources.map((s) => Buffer.from(s.bytes).toString()));
    expect(contents).toEqual(["good bytes"]);
  });

  it("refuses an entry whose local header is missing, and still reads the good entries", async () => {
    const broken = { name: "7/2026/1/1/6/account_capnp.bin", data: Buffer.from("x"), badLocalHeader: true };
    const { zip, thrown, names } = await readZip([good, broken]);
    expect(thrown!.code).toBe("ARCHIVE_CORRUPT");
    expect(thrown!.file).toBe(`${zip}!${broken.name}`);
    expect(thrown!.message).toContain("no local file header");
    expect(names).toEqual([GOOD]);
  });

  it.each([
    ["an encrypted entry", { flags: 0x801 }, "encrypted entry"],
    ["a strongly encrypted entry", { flags: 0x841 }, "strongly encrypted entry"],
    ["an entry compressed with another method than deflate", { method: 12 }, "unsupported compression method 12"],
  ])("refuses %s by name, and still reads the good entries", async (_, how, why) => {
    const odd = { name: "7/2026/1/1/8/account_capnp.bin", data: Buffer.from("odd"), ...how };
    const { zip, thrown, names } = await readZip([good, odd]);
    expect(thrown!.code).toBe("ARCHIVE_CORRUPT");
    expect(thrown!.file).toBe(`${zip}!${odd.name}`);
    expect(thrown!.message).toContain(why);
    expect(names).toEqual([GOOD]);
  });
});

describe("zip archives are read whole or refused, never in part", () => {
  const second = { name: "7/2026/1/1/1/account_capnp.bin", data: Buffer.from("second") };

  it("refuses an archive whose end record counts fewer entries than its directory holds (1 for 2 billed half)", async () => {
    const { zip, thrown, reported, names } = await readZip([good, second], {}, { entryCount: 1 });
    expect([thrown?.code, thrown?.file, thrown?.reason]).toEqual([
      "ARCHIVE_CORRUPT",
      zip,
      "corrupt central directory (the end record declares 1 entry, the directory holds 2: refused, it would be read in part)",
    ]);
    expect([reported.length, names]).toEqual([1, []]);
  });

  it("refuses 70,000 entries without zip64, whose 16-bit count reads as 4,464", async () => {
    const entries = Array.from({ length: 70_000 }, (_, i) => ({ name: `notes/${i}`, data: Buffer.alloc(0) }));
    const zip = join(dir, "many.zip");
    await writeFile(zip, rawZip([good, ...entries]));
    const reported: BadFileError[] = [];
    const listing = await listAccountHours([zip], { onBadFile: (e) => reported.push(e) });
    expect(listing.accountHours).toEqual([]);
    expect(reported.map((e) => e.reason)).toEqual([
      "corrupt central directory (the end record declares 4465 entries, the directory holds 70001: refused, it would be read in part)",
    ]);
  });

  it("refuses an archive whose comment holds a fake end record (it read as empty)", async () => {
    const fake = Buffer.alloc(22);
    fake.writeUInt32LE(0x06054b50, 0); // no entries, an empty directory, no comment: it ends the file too
    const { zip, thrown, names } = await readZip([good, second], {}, { comment: fake });
    expect([thrown?.code, thrown?.file]).toEqual(["ARCHIVE_CORRUPT", zip]);
    expect(thrown?.reason).toMatch(
      /^two end records \(at bytes \d+ and \d+\): the archive's comment holds a second one/,
    );
    expect(names).toEqual([]);
  });

  it("reads a zip64 archive whose classic end record holds 0xFFFF in its disk fields, as unzip and Python do", async () => {
    const zip64 = rawZip([good, second], { zip64: {} });
    expect(zip64.readUInt16LE(zip64.length - 22 + 4)).toBe(0xffff); // the classic record's disk fields: "see the zip64 record"
    const { zip, thrown, names } = await readZip([good, second], {}, { zip64: {} });
    const others = spawnSync(
      "python3",
      ["-c", "import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); print(z.testzip(), z.namelist())", zip],
      { encoding: "utf8" },
    );
    if (others.status !== null) expect(others.stdout).toBe(`None ['${GOOD}', '${second.name}']\n`); // the archive is a valid one
    expect([thrown, names]).toEqual([undefined, [GOOD, second.name]]);
  });

  it("refuses a zip64 archive whose zip64 end record says it spans disks", async () => {
    const { zip, thrown, names } = await readZip([good, second], {}, { zip64: { disk: 1 } });
    expect([thrown?.code, thrown?.file, thrown?.reason]).toEqual([
      "ARCHIVE_CORRUPT",
      zip,
      "a multi-disk (split) archive, not supported",
    ]);
    expect(names).toEqual([]);
  });

  it("reads an archive with an ordinary comment", async () => {
    const { thrown, names } = await readZip([good, second], {}, { comment: Buffer.from("made by the platform") });
    expect([thrown, names]).toEqual([undefined, [GOOD, second.name]]);
  });

  it.each([
    ["every entry at the same bytes (a Fifield-style bomb)", 0],
    ["an entry starting inside another", 10],
  ])("refuses overlapping entries outright: %s", async (_, offset) => {
    const zeros = Buffer.alloc(200_000);
    const bomb = [0, 1, 2].map((h) => ({
      name: `7/2026/1/1/${h}/account_capnp.bin`,
      data: zeros,
      deflate: true,
      localHeaderOffset: h === 0 ? undefined : offset,
    }));
    const { zip, thrown, reported, names } = await readZip(bomb);
    expect([thrown?.code, thrown?.file]).toEqual(["ARCHIVE_OVERLAP", zip]);
    expect(thrown?.reason).toMatch(
      /^entries "7\/2026\/1\/1\/\d\/account_capnp.bin" and "7\/2026\/1\/1\/\d\/account_capnp.bin" overlap .*: a crafted archive \(a zip bomb\?\); nothing in it is read$/,
    );
    expect([reported.map((e) => e.code), names]).toEqual([["ARCHIVE_OVERLAP"], []]);
  });
});
