import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BadFileError, listAccountHours } from "../../src/index.js";
import { openFds, rawZip, tempDir, writeTree, writeYazl } from "./zipFixtures.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir()));
afterEach(() => cleanup());

describe("listAccountHours", () => {
  it("lists account-hours by name with their files and sizes, and closes the archives", async () => {
    const zip = join(dir, "download.zip");
    await writeYazl(zip, [
      { name: "billing/7/2026/11/5/8/account_capnp.bin", data: Buffer.alloc(30) },
      { name: "billing/7/2026/11/5/7/account_capnp.bin", data: Buffer.alloc(20) },
      { name: "billing/9/2026/11/5/7/4.bin.packed", data: Buffer.alloc(10) },
      { name: "billing/manifest.json", data: Buffer.alloc(5) },
    ]);
    const before = openFds();
    const listing = await listAccountHours([zip]);
    expect(openFds()).toBe(before);
    expect(listing.accountHours).toEqual([
      {
        accountId: 7,
        hourEpoch: Date.UTC(2026, 10, 5, 7) / 1000,
        sources: [
          {
            name: `${zip}!billing/7/2026/11/5/7/account_capnp.bin`,
            archive: zip,
            entry: "billing/7/2026/11/5/7/account_capnp.bin",
            root: "Account",
            packed: false,
            sizeBytes: 20,
          },
        ],
      },
      {
        accountId: 7,
        hourEpoch: Date.UTC(2026, 10, 5, 8) / 1000,
        sources: [expect.objectContaining({ entry: "billing/7/2026/11/5/8/account_capnp.bin", sizeBytes: 30 })],
      },
      {
        accountId: 9,
        hourEpoch: Date.UTC(2026, 10, 5, 7) / 1000,
        sources: [expect.objectContaining({ root: "CloudSpace", packed: true, sizeBytes: 10 })],
      },
    ]);
    expect(listing).toMatchObject({ filesTotal: 3, bytesTotal: 60, ignoredPaths: 1, badFiles: 0 });
    expect(listing.ignoredExamples).toEqual([`${zip}!billing/manifest.json`]);
  });

  it("reads no bytes: an entry with a damaged CRC is listed, not refused", async () => {
    const zip = join(dir, "damaged.zip");
    await writeFile(zip, rawZip([{ name: "7/2026/1/1/0/account_capnp.bin", data: Buffer.from("abc"), crc: 1 }]));
    const listing = await listAccountHours([zip]);
    expect(listing.accountHours.map((h) => h.accountId)).toEqual([7]);
  });

  it("refuses an impossible path, or reports it to onBadFile and lists the rest", async () => {
    await writeTree(dir, ["7/2026/11/5/7/account_capnp.bin", "7/2026/11/5/24/account_capnp.bin"]);
    const error = await listAccountHours([dir]).catch((e: unknown) => e);
    expect((error as BadFileError).code).toBe("INPUT_BAD_PATH");
    expect((error as BadFileError).message).toContain("hour 24");
    const bad: string[] = [];
    const listing = await listAccountHours([dir], { onBadFile: (e) => bad.push(e.file) });
    expect(listing.accountHours).toHaveLength(1);
    expect(bad).toEqual([join(dir, "7/2026/11/5/24/account_capnp.bin")]);
    expect(listing.badFiles).toBe(1);
  });
});
