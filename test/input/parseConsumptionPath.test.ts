import { describe, expect, it } from "vitest";
import { BadFileError, parseConsumptionPath } from "../../src/internal.js";

// 2026-11-05T07:00:00Z = Date.UTC(2026, 10, 5, 7) / 1000, worked out by hand:
// days from 1970-01-01 to 2026-01-01 = 56 × 365 + 14 leap days = 20454;
// + Jan..Oct 2026 = 31+28+31+30+31+30+31+31+30+31 = 304; + 4 days → 20762 days;
// 20762 × 86400 + 7 × 3600 = 1793836800 + 25200 = 1793862000.
const NOV_5_07H = 1793862000;

describe("parseConsumptionPath", () => {
  it.each([
    ["7/2026/11/5/7/account_capnp.bin", 7, NOV_5_07H, "Account", null, false],
    ["7/2026/11/05/07/account_capnp.bin", 7, NOV_5_07H, "Account", null, false],
    ["/srv/billing/7/2026/11/5/7/account_capnp.bin", 7, NOV_5_07H, "Account", null, false],
    ["export/billing/7/2026/11/5/7/account_capnp.bin.packed", 7, NOV_5_07H, "Account", null, true],
    ["7/2026/11/5/7/42.bin", 7, NOV_5_07H, "CloudSpace", 42, false],
    ["7/2026/11/5/7/42.bin.packed", 7, NOV_5_07H, "CloudSpace", 42, true],
    ["4294967295/1970/1/1/0/account_capnp.bin", 4294967295, 0, "Account", null, false],
    ["1/2024/2/29/23/account_capnp.bin", 1, Date.UTC(2024, 1, 29, 23) / 1000, "Account", null, false],
  ] as const)("reads %s", (path, accountId, hourEpoch, root, cloudSpaceId, packed) => {
    expect(parseConsumptionPath(path)).toEqual({ accountId, hourEpoch, root, cloudSpaceId, packed });
  });

  it.each([
    "README.txt",
    "2026/11/5/7/account_capnp.bin", // no account folder
    "billing/2026/11/5/7/account_capnp.bin", // the account folder is not a number
    "7/2026/11/5/7/extra/account_capnp.bin", // a folder below the hour
    "7/2026/11/5/7/account_capnp.json",
    "7/2026/11/5/7/account.bin",
    "7/2026/11/5/7/account_capnp.bin.bak",
    "7/2026/nov/5/7/account_capnp.bin",
    // On POSIX a backslash is part of a name: this is one file in account 2's hour folder, not account 1's file
    ...(process.platform === "win32" ? [] : ["2/2026/10/1/0/1\\2026\\10\\1\\0\\account_capnp.bin"]),
  ])("ignores %s, which is not a consumption path", (path) => {
    expect(parseConsumptionPath(path)).toBeNull();
  });

  it.runIf(process.platform === "win32")("reads a Windows path with backslashes on Windows", () => {
    expect(parseConsumptionPath("C:\\billing\\7\\2026\\11\\5\\7\\account_capnp.bin")?.accountId).toBe(7);
  });

  it.each([
    ["7/2026/13/5/7/account_capnp.bin", "month 13"],
    ["7/2026/0/5/7/account_capnp.bin", "month 0"],
    ["7/2026/11/32/7/account_capnp.bin", "day 32"],
    ["7/2026/2/30/7/account_capnp.bin", "day 30 is impossible in 2026-02"],
    ["7/2025/2/29/7/account_capnp.bin", "day 29 is impossible in 2025-02"],
    ["7/2026/11/5/24/account_capnp.bin", "hour 24"],
    ["0/2026/11/5/7/account_capnp.bin", "account id 0"],
    ["4294967296/2026/11/5/7/account_capnp.bin", "account id 4294967296"],
    ["7/1969/12/31/23/account_capnp.bin", "year 1969"],
  ])("refuses %s, naming %s", (path, what) => {
    let error: unknown;
    try {
      parseConsumptionPath(path, `archive.zip!${path}`);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(BadFileError);
    expect((error as BadFileError).code).toBe("INPUT_BAD_PATH");
    expect((error as BadFileError).file).toBe(`archive.zip!${path}`);
    expect((error as BadFileError).message).toContain(what);
  });
});
