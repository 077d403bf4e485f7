import { describe, expect, it } from "vitest";
import { decodeAccountHour } from "../../src/capnp/decodeAccountHour.js";
import { encodeAccount, encodeCloudSpace } from "../../src/generate/encodeAccount.js";
import { generateHours } from "../../src/generate/generateHours.js";
import type { AccountHour, Source } from "../../src/input/types.js";
import { DATA_TABLES } from "../../src/store/schema.js";
import { stageHours } from "../../src/store/stageHours.js";

// The loader stages straight from the bytes into columns; decoding into records first
// (decodeAccountHour, the public decoder) must give exactly the same rows and errors.
const plain = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value, (_k, v: unknown) => (ArrayBuffer.isView(v) ? Array.from(v as Uint8Array) : v)));

function sampleHours(): AccountHour[] {
  const hours: AccountHour[] = [];
  let seed = 99;
  const random = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  let i = 0;
  for (const h of generateHours({ accounts: 3, spaces: 2, machines: 5, hours: 6, seed: 3 })) {
    const name = `${h.accountId}/2026/10/1/${i % 24}/account_capnp.bin`;
    const variant = i++ % 4;
    let sources: Source[];
    if (variant === 3) {
      // The controller's per-cloud-space files, one with a far pointer layout.
      sources = h.account.cloudspaces.map((cs, k) => ({
        name: `${h.accountId}/2026/10/1/${i % 24}/${cs.cloudSpaceId}.bin`, root: "CloudSpace", packed: k === 1,
        bytes: encodeCloudSpace(cs, { packed: k === 1, segmentWords: 64 }),
      }));
    } else {
      const bytes = encodeAccount(h.account, { oldSchema: variant === 1, packed: variant === 2 });
      if (variant === 0 && random() < 0.7) {
        // A damaged file: a few bytes overwritten (most fail to decode, at various depths).
        for (let k = 0; k < 4; k++) bytes[8 + Math.floor(random() * (bytes.length - 8))] = Math.floor(random() * 256);
      }
      sources = [{ name, root: "Account", packed: variant === 2, bytes }];
    }
    hours.push({ accountId: h.accountId, hourEpoch: h.hourEpoch, sources });
  }
  return hours;
}

describe("staging account-hours as columns", () => {
  it("gives the rows and errors of decoding into records first, for good, damaged, old-schema, packed and per-cloud-space files", () => {
    const hours = sampleHours();
    for (let size = 1; size <= 5; size += 2) {
      for (let at = 0; at < hours.length; at += size) {
        const group = hours.slice(at, at + size);
        const direct = stageHours(group, DATA_TABLES);
        const viaRecords = stageHours(group, DATA_TABLES, (h) => decodeAccountHour(h));
        expect(plain(direct)).toEqual(plain(viaRecords));
      }
    }
    const staged = stageHours(hours, DATA_TABLES);
    expect(staged.errors.length).toBeGreaterThan(0);
    expect(staged.batch.disks!.rows).toBeGreaterThan(0);
  });

  it("stages only the tables asked for", () => {
    const staged = stageHours(sampleHours().slice(1, 3), ["machines", "nics"]);
    expect(Object.keys(staged.batch).sort()).toEqual(["machines", "nics"]);
  });
});
