import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  BadInputError,
  openWarehouse,
  writeDataset,
  type BillingLine,
  type BillingOptions,
  type Period,
} from "../../src/internal.js";
import { hourlyFilesLines } from "../../src/billing/hourlyFiles.js";
import { hourlyLines } from "../../src/billing/hourlyWarehouse.js";
import { hourPath } from "../../src/generate/hourPath.js";
import { OCT_1, HOUR } from "../helpers/warehouse.js";

// The hourly lines of input files, read by hour straight from the files, are those of the
// warehouse the same files load into, to the bit, batch by batch.

let root: string;
const sets = new Map<string, string>();
const SHAPE = { accounts: 3, spaces: 2, machines: 3, hours: 10, start: OCT_1, seed: 5 };
const SETS = [
  ["plain tree", {}],
  ["per-cloud-space files", { cloudSpaceFiles: true }],
  ["missing hours", { missingHours: 0.3 }],
  ["zip", { out: "data.zip" }],
] as const;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "cloudunits-fileshourly-"));
  for (const [name, options] of SETS) {
    const out = join(root, "out" in options ? options.out : name.replace(/\W+/g, "-"));
    await writeDataset({ ...SHAPE, ...options, out });
    sets.set(name, out);
  }
});
afterAll(() => rm(root, { recursive: true, force: true }));

async function all(lines: AsyncIterable<BillingLine[]>): Promise<BillingLine[][]> {
  const out: BillingLine[][] = [];
  for await (const batch of lines) out.push(batch);
  return out;
}

describe("hourly lines read by hour from the files", () => {
  const cases: [string, Period, BillingOptions][] = [
    ["every account", { start: OCT_1, end: OCT_1 + 10 * HOUR }, {}],
    [
      "one account from an unaligned start, per month, sum rollup",
      { start: OCT_1 + 1800, end: OCT_1 + 7 * HOUR, accountId: 2 },
      { per: "month", cuRollup: "sum", allUnits: true },
    ],
  ];
  it.each(SETS.map(([name]) => name))("are the warehouse's, hour by hour: %s", async (name) => {
    const warehouse = await openWarehouse([sets.get(name)!], { workers: 0 });
    try {
      for (const [, params, options] of cases) {
        const fromFiles = await all(hourlyFilesLines([sets.get(name)!], params, options));
        expect(fromFiles).toEqual(await all(hourlyLines(warehouse.connection, params, options)));
        expect(fromFiles.length).toBeGreaterThan(3);
      }
    } finally {
      warehouse.close();
    }
  });

  it("leave out a bad file with skipBad, and name it without", async () => {
    const dir = join(root, "bad");
    await writeDataset({ ...SHAPE, hours: 4, out: dir });
    await writeFile(join(dir, hourPath(2, OCT_1 + 2 * HOUR), "account_capnp.bin"), new Uint8Array([1, 2, 3]));
    const params = { start: OCT_1, end: OCT_1 + 4 * HOUR };
    await expect(all(hourlyFilesLines([dir], params))).rejects.toBeInstanceOf(BadInputError);
    const skipped = await all(hourlyFilesLines([dir], params, { skipBad: true }));
    expect(skipped[2]!.filter((l) => l.level === "account").map((l) => l.accountId)).toEqual([1, 3]);
  });

  it("stop reading when the reader leaves", async () => {
    let n = 0;
    for await (const batch of hourlyFilesLines([sets.get("plain tree")!], { start: OCT_1, end: OCT_1 + 10 * HOUR })) {
      expect(batch[0]!.level).toBe("environment");
      if (++n === 2) break;
    }
    expect(n).toBe(2);
  });
});
