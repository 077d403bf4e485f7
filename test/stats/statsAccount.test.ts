import { describe, expect, it } from "vitest";
import { statsAccount } from "../../src/stats/statsAccount.js";
import { fixtureConnection, T0, T1, T5 } from "./statsFixture.js";

describe("statsAccount", () => {
  it("finds the account a request reads, as the stats functions resolve it", async () => {
    const connection = await fixtureConnection();
    const period = { from: T0, till: T5 };
    expect(await statsAccount(connection, "machine", { id: 102, ...period })).toBe(7);
    expect(await statsAccount(connection, "machine", { id: 101, accountId: 8, ...period })).toBe(8);
    expect(await statsAccount(connection, "machine", { id: 101, from: T1, till: T5 })).toBe(7);
    expect(await statsAccount(connection, "cloudspace", { id: 71, ...period })).toBe(7);
    expect(await statsAccount(connection, "account", { id: 7, ...period })).toBe(7);
    expect(await statsAccount(connection, "machine", { id: 999, ...period })).toBeUndefined();
    await expect(statsAccount(connection, "cloudspace", { id: 70, ...period })).rejects.toThrow(
      /cloudspace 70 has samples in 2 accounts/,
    );
  });
});
