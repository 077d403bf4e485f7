import { describe, expect, it } from "vitest";
import {
  encodeAccount,
  encodeCloudSpace,
  generateHours,
  UsageError,
  type Account,
  type EncodeOptions,
} from "../../src/internal.js";
import { concat, OLD_SCHEMA, referenceDecode, referenceShape } from "./referenceDecode.js";

const hours = [...generateHours({ accounts: 2, spaces: 2, machines: 4, hours: 6, seed: 11 })];
const accounts = hours.map((h) => h.account);
const cloudSpaces = accounts.flatMap((a) => a.cloudspaces);

/** Segment count of a framed (unpacked) message. */
function segmentCount(message: Uint8Array): number {
  return new DataView(message.buffer, message.byteOffset).getUint32(0, true) + 1;
}

describe("encodeAccount", () => {
  it.each<[string, EncodeOptions]>([
    ["one segment", {}],
    ["segments of 64 words", { segmentWords: 64 }],
    ["segments of 1 word (every object behind a far pointer)", { segmentWords: 1 }],
    ["packed", { packed: true }],
    ["packed, segments of 32 words", { packed: true, segmentWords: 32 }],
    ["segments of 16 words, double-far pointers", { segmentWords: 16, doubleFar: true }],
    ["segments of 1 word, double-far pointers", { segmentWords: 1, doubleFar: true }],
  ])("writes Account files the reference tool decodes to the same records: %s", (_name, options) => {
    const stream = concat(accounts.map((a) => encodeAccount(a, options)));
    const decoded = referenceDecode(stream, "Account", { packed: options.packed });
    expect(decoded).toHaveLength(accounts.length);
    expect(decoded).toEqual(accounts.map((a) => referenceShape(a)));
  });

  it("splits a message over several segments only when segmentWords is given", () => {
    const account = accounts[0]!;
    expect(segmentCount(encodeAccount(account))).toBe(1);
    const split = encodeAccount(account, { segmentWords: 64 });
    expect(segmentCount(split)).toBeGreaterThan(2);
    // Each segment but the last holds at most 64 words, unless one object alone is larger.
    const view = new DataView(split.buffer, split.byteOffset);
    const sizes = Array.from({ length: segmentCount(split) }, (_, i) => view.getUint32(4 * (i + 1), true));
    expect(sizes.slice(0, -1).every((words) => words <= 64)).toBe(true);
  });

  it.each<[string, EncodeOptions, number]>([
    ["a far pointer to a landing pad in segment 1", { segmentWords: 1 }, 0b010],
    ["a double-far pointer to a two-word pad", { segmentWords: 1, doubleFar: true }, 0b110],
  ])("reaches the root through %s when segment 0 has no room", (_name, options, lowBits) => {
    const message = encodeAccount(accounts[0]!, options);
    const view = new DataView(message.buffer, message.byteOffset);
    const tableBytes = (4 * (segmentCount(message) + 1) + 7) & ~7;
    expect(view.getUint32(4, true)).toBe(1); // segment 0 holds only the root pointer
    expect(view.getUint32(tableBytes, true) & 0b111).toBe(lowBits);
    expect(view.getUint32(tableBytes + 4, true)).toBeGreaterThan(0); // the pad's segment
  });

  it("writes old-schema files whose disks have 24 bytes of data and no configuredIops", () => {
    const stream = concat(accounts.map((a) => encodeAccount(a, { oldSchema: true })));
    const withOld = referenceDecode(stream, "Account", { schema: OLD_SCHEMA });
    expect(withOld).toEqual(accounts.map((a) => referenceShape(a, { withoutIops: true })));
    // The current schema reads them too, without configuredIops: the pointer is not there.
    const withCurrent = referenceDecode(stream, "Account");
    expect(withCurrent).toEqual(accounts.map((a) => referenceShape(a, { withoutIops: true })));
  });

  it("saves one pointer word and seven data words per disk in the old schema", () => {
    const account = accounts[0]!;
    const disks = account.cloudspaces.flatMap((cs) => cs.machines).reduce((n, m) => n + m.disks.length, 0);
    expect(disks).toBeGreaterThan(0);
    expect(encodeAccount(account).length - encodeAccount(account, { oldSchema: true }).length).toBe(disks * 8 * 8);
  });

  it("rounds Float32 fields to float32 and leaves a null configuredIops out", () => {
    const account: Account = {
      accountId: 4_000_000_000,
      cloudspaces: [
        {
          cloudSpaceId: -5,
          accountId: 7,
          state: "DEPLOYED",
          machines: [
            {
              id: 12,
              type: "vm",
              vcpus: -3,
              cpuMinutes: 0.1,
              mem: 1024.3,
              imageName: "Ubuntu 22.04 – ü",
              status: "RUNNING",
              networks: [{ id: 0, type: "external", tx: 123456789, rx: 1e12 }],
              disks: [
                {
                  id: 1,
                  size: 10.5,
                  iopsRead: 1 / 3,
                  iopsWrite: 0,
                  iopsReadMax: 0,
                  iopsWriteMax: 0,
                  configuredIops: null,
                },
              ],
            },
          ],
        },
      ],
    };
    const [decoded] = referenceDecode(encodeAccount(account), "Account");
    expect(decoded).toEqual(referenceShape(account));
    const machine = (decoded as { cloudspaces: { machines: Record<string, unknown>[] }[] }).cloudspaces[0]!
      .machines[0]!;
    expect(machine.cpuMinutes).toBe(Math.fround(0.1));
    expect(machine.vcpus).toBe(-3);
    expect(machine.imageName).toBe("Ubuntu 22.04 – ü");
  });

  it("writes an account without cloud spaces as an empty list", () => {
    const [decoded] = referenceDecode(encodeAccount({ accountId: 3, cloudspaces: [] }), "Account");
    expect(decoded).toEqual({ accountId: 3, cloudspaces: [] });
  });

  it.each([0, -1, 1.5, 2 ** 29])("refuses segmentWords %s", (segmentWords) => {
    expect(() => encodeAccount(accounts[0]!, { segmentWords })).toThrow(UsageError);
  });
});

describe("encodeCloudSpace", () => {
  it.each<[string, EncodeOptions]>([
    ["one segment", {}],
    ["segments of 16 words, packed", { segmentWords: 16, packed: true }],
  ])("writes CloudSpace files the reference tool decodes to the same records: %s", (_name, options) => {
    const stream = concat(cloudSpaces.map((cs) => encodeCloudSpace(cs, options)));
    expect(referenceDecode(stream, "CloudSpace", { packed: options.packed })).toEqual(
      cloudSpaces.map((cs) => referenceShape(cs)),
    );
  });
});
