import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BadFileError } from "../../src/base/errors.js";
import { ZIP_KIND, type Archive, type ArchiveEntry, type ArchiveKind } from "../../src/input/archive.js";
import { readAccountHours } from "../../src/input/readAccountHours.js";

// Input archives sit behind one interface, each kind known by its bytes: a new kind (a .tar
// reader, say) plugs in by implementing it. This test's kind is a toy: a magic line, then one
// line per entry, "name<TAB>base64 bytes".
const MAGIC = "TOYARCHIVE\n";

const TOY_KIND: ArchiveKind = {
  name: "toy",
  matches: ({ head }) => Buffer.from(head.subarray(0, MAGIC.length)).toString("latin1") === MAGIC,
  open: async (path, displayName): Promise<Archive> => {
    const lines = (await readFile(path, "utf8"))
      .slice(MAGIC.length)
      .split("\n")
      .filter((l) => l !== "");
    const entries = lines.map((line) => {
      const [name, data] = line.split("\t") as [string, string];
      return { name, displayName: `${displayName}!${name}`, sizeBytes: Buffer.from(data, "base64").length, data };
    });
    return {
      displayName,
      list: async () => entries,
      check: (entry: ArchiveEntry, limits) =>
        entry.sizeBytes > limits.maxEntryBytes
          ? new BadFileError("ARCHIVE_TOO_LARGE", entry.displayName, "too large")
          : null,
      read: async (entry: ArchiveEntry) =>
        new Uint8Array(Buffer.from(entries.find((e) => e.name === entry.name)!.data, "base64")),
      close: async () => {},
    };
  },
};

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "cloudunits-archive-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("an archive kind", () => {
  it("plugs into the input reader by its bytes: a toy archive's entries are read as account-hours", async () => {
    const toy = join(dir, "october.toy");
    const entry = (name: string, bytes: number[]) => `${name}\t${Buffer.from(bytes).toString("base64")}\n`;
    await writeFile(
      toy,
      MAGIC +
        entry("7/2026/10/1/0/account_capnp.bin", [1, 2, 3]) +
        entry("7/2026/10/1/1/account_capnp.bin", [4, 5]) +
        entry("README", [0]),
    );
    const reader = readAccountHours([toy], { archiveKinds: [ZIP_KIND, TOY_KIND] });
    const hours: [number, number, string, number[]][] = [];
    for await (const h of reader)
      for (const s of h.sources) hours.push([h.accountId, h.hourEpoch, s.name, [...s.bytes]]);
    expect(hours).toEqual([
      [7, 1790812800, `${toy}!7/2026/10/1/0/account_capnp.bin`, [1, 2, 3]],
      [7, 1790816400, `${toy}!7/2026/10/1/1/account_capnp.bin`, [4, 5]],
    ]);
    expect(reader.summary.ignoredPaths).toBe(1);
  });

  it("gets the archive layer's name checks: an unsafe or repeated entry name is refused, the other entries read", async () => {
    const toy = join(dir, "hostile.toy");
    const entry = (name: string) => `${name}\t${Buffer.from([9]).toString("base64")}\n`;
    const good = "7/2026/10/1/0/account_capnp.bin";
    const twice = "7/2026/10/1/2/account_capnp.bin";
    await writeFile(toy, MAGIC + entry(`../${good}`) + entry(`/${good}`) + entry(twice) + entry(good) + entry(twice));
    const bad: BadFileError[] = [];
    const names: string[] = [];
    for await (const h of readAccountHours([toy], { archiveKinds: [TOY_KIND], onBadFile: (e) => bad.push(e) }))
      names.push(...h.sources.map((s) => s.entry!));
    expect(names).toEqual([good]);
    expect(bad.map((e) => [e.code, e.file])).toEqual([
      ["ARCHIVE_UNSAFE_NAME", `${toy}!../${good}`],
      ["ARCHIVE_UNSAFE_NAME", `${toy}!/${good}`],
      ["ARCHIVE_DUPLICATE", `${toy}!${twice}`],
    ]);
  });

  it("is chosen by bytes, not by name: without the toy kind, the same file is refused as no archive known", async () => {
    const toy = join(dir, "looks-like.zip");
    await writeFile(toy, `${MAGIC}7/2026/10/1/0/account_capnp.bin\tAQID\n`);
    const error = await (async () => {
      for await (const _ of readAccountHours([toy])) void _;
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadFileError);
    expect((error as BadFileError).reason).toMatch(/not an archive of a kind read \(zip\)/);
  });
});
