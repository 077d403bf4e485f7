import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cpSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { billInputs, writeDataset } from "../../src/internal.js";

const START = Date.UTC(2026, 9, 1) / 1000;
const period = { start: START, end: START + 48 * 3600 };
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cloudunits-stream-"));
  await writeDataset({
    out: join(dir, "tree"),
    accounts: 3,
    spaces: 2,
    machines: 3,
    hours: 48,
    start: START,
    seed: 11,
  });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("billing a large input folder while it is walked", () => {
  it("gives the bill of the folder indexed whole, every level, on the main thread and on workers", async () => {
    const whole = await billInputs([join(dir, "tree")], period, { workers: 0 });
    for (const workers of [0, 2]) {
      const streamed = await billInputs([join(dir, "tree")], period, { workers, streamAfterBytes: 1 });
      expect(streamed.lines).toEqual(whole.lines);
      expect(streamed.quality).toEqual(whole.quality);
      expect(streamed.data).toEqual(whole.data);
    }
    expect(whole.lines.filter((l) => l.level === "machine")).toHaveLength(3 * 2 * 3);
  });

  it("reads a folder again, indexed whole, when its hours turn out out of order after billing began", async () => {
    // the first hours of account 1's first day, moved to an unpadded folder walked after the padded one: the walk goes back in time
    const tree = join(dir, "twins");
    cpSync(join(dir, "tree"), tree, { recursive: true });
    renameSync(join(tree, "1/2026/10/1"), join(tree, "1/2026/10/01"));
    cpSync(join(tree, "1/2026/10/01/0"), join(tree, "1/2026/10/1/0"), { recursive: true });
    rmSync(join(tree, "1/2026/10/01/0"), { recursive: true });
    const whole = await billInputs([join(dir, "tree")], period, { workers: 0 });
    const streamed = await billInputs([tree], period, { workers: 0, streamAfterBytes: 1 });
    expect(streamed.lines).toEqual(whole.lines);
    expect(streamed.quality.missingHours).toEqual(whole.quality.missingHours);
  });
});
