import { open, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BlockReader } from "../../src/input/blockReader.js";
import { tempDir } from "./zipFixtures.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir()));
afterEach(() => cleanup());

describe("BlockReader", () => {
  it("returns the file's bytes for every range, across block boundaries and past the end", async () => {
    const content = Buffer.from(Array.from({ length: 1000 }, (_, i) => (i * 31 + 7) & 255));
    await writeFile(join(dir, "f"), content);
    const handle = await open(join(dir, "f"), "r");
    try {
      const reader = new BlockReader(handle, content.length, 64);
      const read = async (position: number, length: number) => Buffer.from(await reader.read(position, length));
      // sequential small reads (a central directory), a read straddling blocks, a read larger
      // than a block, backwards reads, and reads running past the end of the file
      const ranges: [number, number][] = [
        [0, 46],
        [46, 30],
        [76, 46],
        [60, 10],
        [63, 2],
        [100, 200],
        [5, 5],
        [990, 10],
        [995, 20],
        [1000, 4],
      ];
      for (const [position, length] of ranges) {
        expect(await read(position, length)).toEqual(content.subarray(position, position + length));
      }
    } finally {
      await handle.close();
    }
  });
});
