import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bill, generateHours, open, parseTime, UsageError, writeDataset } from "../src/index.js";

const OCT_1 = 1790812800; // 2026-10-01T00:00Z

/** The error `work` throws (or fails the test), for its class and code. */
async function thrown(work: () => unknown): Promise<UsageError> {
  try {
    await work();
  } catch (e) {
    expect(e).toBeInstanceOf(UsageError);
    return e as UsageError;
  }
  throw new Error("expected a UsageError");
}

describe("parseTime", () => {
  it.each([
    [OCT_1, OCT_1],
    [String(OCT_1), OCT_1],
    ["2026-10-01", OCT_1],
    ["2026-10-01T02:00+02:00", OCT_1],
    [99_999_999_999, 99_999_999_999], // the year 5138: still seconds
    [-86_400, -86_400],
  ])("reads %j as %i epoch seconds", (given, seconds) => {
    expect(parseTime(given)).toBe(seconds);
  });

  it.each([
    [
      OCT_1 * 1000,
      "MILLISECOND_EPOCH",
      /1790812800000 is epoch milliseconds.*give 1790812800 \(2026-10-01T00:00:00Z\)/,
    ],
    [String(OCT_1 * 1000), "MILLISECOND_EPOCH", /is epoch milliseconds/],
    [1e11, "MILLISECOND_EPOCH", /is epoch milliseconds/],
    [-(OCT_1 * 1000), "MILLISECOND_EPOCH", /is epoch milliseconds/],
    [OCT_1 + 0.5, "BAD_TIME", /epoch seconds, a whole number/],
    [Number.NaN, "BAD_TIME", /epoch seconds, a whole number/],
    ["2026-10-32", "BAD_TIME", /use epoch seconds or ISO 8601/],
    ["99999999999999999999", "BAD_TIME", /a whole number/],
  ])("refuses %j (code %s), naming what it is", async (given, code, message) => {
    const error = await thrown(() => parseTime(given, "--start"));
    expect(error.code).toBe(code);
    expect(error.message).toMatch(/^bad --start: /);
    expect(error.message).toMatch(message);
  });
});

describe("every call taking epoch seconds refuses epoch milliseconds (it would bill nothing, silently)", () => {
  let dir: string;
  let data: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "cloudunits-time-"));
    data = join(dir, "october.zip");
    await writeDataset({ out: data, accounts: 1, spaces: 1, machines: 1, hours: 2, start: OCT_1, seed: 1 });
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const msPeriod = { start: OCT_1 * 1000, end: (OCT_1 + 7200) * 1000 };

  it("bill, open().calculate and open().machineStats, with the same code", async () => {
    expect((await thrown(() => bill({ source: [data], period: msPeriod }))).code).toBe("MILLISECOND_EPOCH");
    const store = await open([data]);
    try {
      expect((await thrown(() => store.calculate(msPeriod))).code).toBe("MILLISECOND_EPOCH");
      expect((await thrown(() => store.calculate({ start: OCT_1, end: msPeriod.end, accountId: 1 }))).message).toMatch(
        /^bad end: /,
      );
      expect(
        (
          await thrown(() =>
            store.machineStats({ machineId: 1, from: msPeriod.start, till: msPeriod.end, include: ["cpu"] }),
          )
        ).code,
      ).toBe("MILLISECOND_EPOCH");
      // the same period in seconds bills the two hours
      const { consumption } = await store.calculate({ start: OCT_1, end: OCT_1 + 7200 });
      expect(consumption.CU).toBeGreaterThan(0);
    } finally {
      store.close();
    }
  });

  it("generateHours", () => {
    expect(() => generateHours({ start: OCT_1 * 1000 })).toThrow(/is epoch milliseconds/);
  });
});
