import { describe, expect, it } from "vitest";
import { hourPath } from "../../src/internal.js";

describe("hourPath", () => {
  it.each<[number, number, string]>([
    [7, 1790812800, "7/2026/10/1/0"], // 2026-10-01T00:00Z
    [7, 1790812800 + 9 * 3600, "7/2026/10/1/9"],
    [12, 1793491200 + 4 * 86400 + 7 * 3600, "12/2026/11/5/7"], // 2026-11-05T07:00Z
    [3, 1798761600 - 3600, "3/2026/12/31/23"], // the last hour of 2026
  ])("writes account %i at %i unpadded, in UTC, as %s", (accountId, hourEpoch, path) => {
    expect(hourPath(accountId, hourEpoch)).toBe(path);
  });

  it("zero-pads month, day and hour when asked", () => {
    expect(hourPath(12, 1793491200 + 4 * 86400 + 7 * 3600, true)).toBe("12/2026/11/05/07");
    expect(hourPath(3, 1798761600 - 3600, true)).toBe("3/2026/12/31/23");
  });
});
