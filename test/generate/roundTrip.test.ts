import { describe, expect, it } from "vitest";
import {
  decodeAccount,
  decodeCloudSpace,
  encodeAccount,
  encodeCloudSpace,
  generateHours,
  type EncodeOptions,
} from "../../src/internal.js";

const hours = [...generateHours({ accounts: 2, spaces: 3, machines: 6, hours: 4, seed: 21 })];

/** The records with every configuredIops null, as old-schema files read. */
function withoutIops<T>(record: T): T {
  return JSON.parse(JSON.stringify(record, (key, value: unknown) => (key === "configuredIops" ? null : value))) as T;
}

describe("generated files through cloudunits' own decoder", () => {
  it.each<[string, EncodeOptions]>([
    ["one segment", {}],
    ["segments of 16 words", { segmentWords: 16 }],
    ["double-far pointers", { segmentWords: 8, doubleFar: true }],
    ["packed", { packed: true }],
    ["old schema", { oldSchema: true }],
  ])("decode to exactly the generated records: %s", (_name, options) => {
    for (const h of hours) {
      const expected = options.oldSchema ? withoutIops(h.account) : h.account;
      expect(decodeAccount(encodeAccount(h.account, options), { packed: options.packed })).toEqual(expected);
      for (const [i, cs] of h.account.cloudspaces.entries()) {
        expect(decodeCloudSpace(encodeCloudSpace(cs, options), { packed: options.packed })).toEqual(
          expected.cloudspaces[i],
        );
      }
    }
  });
});
