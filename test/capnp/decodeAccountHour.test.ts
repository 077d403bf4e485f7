import { describe, expect, it } from "vitest";
import { CapnpError, UsageError, decodeAccountHour, type AccountHour, type Source } from "../../src/index.js";
import { BYTE, COMPOSITE, NULL, data, listPtr, message, pack, structPtr, tag, textBytes, textWords } from "./words.js";

const HOUR = 1793469600; // 2026-10-31T18:00Z

/** An Account file: account `accountId` with one cloud space `cloudSpaceId`, DEPLOYED. */
function accountFile(accountId: number, cloudSpaceId: number): Uint8Array {
  return message([
    structPtr(0, 1, 1),
    data(accountId),
    listPtr(0, COMPOSITE, 3),
    tag(1, 1, 2),
    data(cloudSpaceId, accountId),
    NULL,
    listPtr(0, BYTE, textBytes("DEPLOYED")),
    ...textWords("DEPLOYED"),
  ]);
}

/** A controller's CloudSpace file. */
function cloudSpaceFile(accountId: number, cloudSpaceId: number, state: string): Uint8Array {
  return message([
    structPtr(0, 1, 2),
    data(cloudSpaceId, accountId),
    NULL,
    listPtr(0, BYTE, textBytes(state)),
    ...textWords(state),
  ]);
}

function source(name: string, root: Source["root"], bytes: Uint8Array, packed = false): Source {
  return { name, root, packed, bytes };
}

describe("decodeAccountHour", () => {
  it("takes the account and hour from the path and keeps the file's own account id apart", () => {
    const hour: AccountHour = {
      accountId: 8,
      hourEpoch: HOUR,
      sources: [source("8/2026/10/31/18/account_capnp.bin", "Account", accountFile(7, 5))],
    };
    const decoded = decodeAccountHour(hour);
    expect(decoded.accountId).toBe(8);
    expect(decoded.hourEpoch).toBe(HOUR);
    expect(decoded.rootAccountId).toBe(7);
    expect(decoded.account).toEqual({
      accountId: 7,
      cloudspaces: [{ cloudSpaceId: 5, accountId: 7, machines: [], state: "DEPLOYED" }],
    });
  });

  it("combines the controller's CloudSpace files into one account, in source order", () => {
    const hour: AccountHour = {
      accountId: 8,
      hourEpoch: HOUR,
      sources: [
        source("8/2026/10/31/18/12.bin", "CloudSpace", cloudSpaceFile(8, 12, "DEPLOYED")),
        source("8/2026/10/31/18/3.bin.packed", "CloudSpace", pack(cloudSpaceFile(8, 3, "DESTROYED")), true),
      ],
    };
    const decoded = decodeAccountHour(hour);
    expect(decoded.rootAccountId).toBeNull();
    expect(decoded.account.accountId).toBe(8);
    expect(decoded.account.cloudspaces.map((c) => [c.cloudSpaceId, c.state])).toEqual([
      [12, "DEPLOYED"],
      [3, "DESTROYED"],
    ]);
  });

  it("reads each source packed or not as the source says", () => {
    const packed = pack(accountFile(7, 5));
    const hour: AccountHour = {
      accountId: 7,
      hourEpoch: HOUR,
      sources: [source("a.bin.packed", "Account", packed, true)],
    };
    expect(decodeAccountHour(hour).account.cloudspaces[0]!.cloudSpaceId).toBe(5);
    expect(() => decodeAccountHour({ ...hour, sources: [source("a.bin", "Account", packed, false)] })).toThrowError(
      CapnpError,
    );
  });

  it("names the bad source in the error", () => {
    const broken = cloudSpaceFile(8, 3, "DEPLOYED").slice(0, 24);
    const hour: AccountHour = {
      accountId: 8,
      hourEpoch: HOUR,
      sources: [
        source("zips/a.zip!8/2026/10/31/18/12.bin", "CloudSpace", cloudSpaceFile(8, 12, "DEPLOYED")),
        source("zips/a.zip!8/2026/10/31/18/3.bin", "CloudSpace", broken),
      ],
    };
    expect(() => decodeAccountHour(hour)).toThrowError(
      expect.objectContaining({ code: "CAPNP_TRUNCATED", file: "zips/a.zip!8/2026/10/31/18/3.bin" }),
    );
  });

  it("refuses an account-hour that mixes an Account file with other files", () => {
    const hour: AccountHour = {
      accountId: 8,
      hourEpoch: HOUR,
      sources: [
        source("a.bin", "Account", accountFile(8, 1)),
        source("3.bin", "CloudSpace", cloudSpaceFile(8, 3, "DEPLOYED")),
      ],
    };
    expect(() => decodeAccountHour(hour)).toThrowError(UsageError);
  });

  it("passes the limits on to every source", () => {
    const hour: AccountHour = {
      accountId: 7,
      hourEpoch: HOUR,
      sources: [source("a.bin", "Account", accountFile(7, 5))],
    };
    expect(() => decodeAccountHour(hour, { nestingLimit: 2 })).toThrowError(
      expect.objectContaining({ code: "CAPNP_NESTING_LIMIT", file: "a.bin" }),
    );
  });
});
