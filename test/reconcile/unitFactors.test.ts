import { describe, expect, it } from "vitest";
import { DEFAULT_UNITS } from "../../src/index.js";
import { suggestUnits, unitFactors } from "../../src/reconcile/unitFactors.js";

// The factor per unit between the platform's figures and ours, and the units file that cancels
// it: each unit's figure is linear in its constants, so one factor shared by every account is a
// constant (or a reading of the files), and a factor that varies is a difference of data.

const env = (ours: number, platform: number, unit: "CU" | "SU" | "TU" | "NU") => ({
  ours: { [unit]: ours },
  platform: { [unit]: platform },
});

describe("unit factors and the units file they suggest", () => {
  it.each([
    // unit, ours, platform (environment; the two accounts alike), the keys suggested
    ["CU", 100, 50, { gbPerCu: 8, vcpusPerCu: 4 }],
    ["SU", 10, 40, { gbPerSu: 256 }],
    ["TU", 8, 10, { iopsPerTu: 320 }],
    // a platform that bills packets per second at 1500 bytes a packet: 3600 × 1500
    ["NU", 2, 2 * 3600 * 1500, { nicReading: "host-packets-per-second", nicBytesPerValue: 1500 }],
    // a factor that is no whole number of bytes per packet: the values are bytes, each standing for 8 (bits counted as bytes)
    ["NU", 16, 2, { nicReading: "bytes", nicBytesPerValue: 0.125 }],
  ] as const)("%s: ours %d, the platform's %d: %j", (unit, ours, platform, changes) => {
    const accounts = [env(ours / 4, platform / 4, unit), env((3 * ours) / 4, (3 * platform) / 4, unit)];
    const factors = unitFactors(env(ours, platform, unit), accounts, 1e-9);
    const factor = factors.find((f) => f.unit === unit)!;
    expect(factor.factor).toBeCloseTo(platform / ours, 9);
    expect(factor.constant).toBe(true);
    for (const other of factors.filter((f) => f.unit !== unit))
      expect([other.factor, other.constant]).toEqual([null, false]);
    expect(suggestUnits(factors, DEFAULT_UNITS)).toEqual({ changes, units: [unit] });
  });

  it("a factor the accounts do not share is a difference of data: no units file is suggested", () => {
    const factors = unitFactors(env(100, 150, "CU"), [env(50, 50, "CU"), env(50, 100, "CU")], 1e-9);
    expect(factors[0]).toMatchObject({ unit: "CU", factor: 1.5, accounts: { least: 1, greatest: 2 }, constant: false });
    expect(suggestUnits(factors)).toBeUndefined();
  });

  it("figures that agree suggest nothing", () => {
    expect(suggestUnits(unitFactors(env(3, 3, "SU"), [env(3, 3, "SU")], 1e-9))).toBeUndefined();
  });
});
