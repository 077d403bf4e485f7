// Our decoder against the reference C++ tool on random values: single- and multi-segment
// messages (far pointers), files of the older schema, packed files.
import { expect, it } from "vitest";
import { decodeAccount, decodeCloudSpace, unpack, type Account, type CloudSpace } from "../../src/internal.js";
import { prng, randomAccount, randomCloudSpace, toCapnpText, type Shape } from "./randomRecords.js";
import { describeWith } from "../helpers/prerequisites.js";
import { concat, encodeText, encodeTexts, fromJson, OLD_SCHEMA, referenceJson, type Root } from "./reference.js";

const SMALL: Shape = { spaces: 3, machines: 4, parts: 3 };
const BIG: Shape = { spaces: 6, machines: 40, parts: 4 };

function decode(bytes: Uint8Array, root: Root, packed = false): Account | CloudSpace {
  return root === "Account"
    ? decodeAccount(bytes, { name: "t", packed })
    : decodeCloudSpace(bytes, { name: "t", packed });
}

function values(root: Root, seed: number, count: number, shape: Shape): (Account | CloudSpace)[] {
  const rand = prng(seed);
  return Array.from({ length: count }, () =>
    root === "Account" ? randomAccount(rand, shape) : randomCloudSpace(rand, shape),
  );
}

/** Decodes each message with ours and with the reference; both must equal the value encoded. */
function expectSameAsReference(messages: Uint8Array[], expected: (Account | CloudSpace)[], root: Root): void {
  const reference = referenceJson(concat(messages), root);
  expect(reference.error).toBeNull();
  expect(reference.messages).toHaveLength(messages.length);
  messages.forEach((message, i) => {
    const ours = decode(message, root);
    expect(ours).toEqual(fromJson(reference.messages[i], root));
    expect(ours).toEqual(expected[i]);
  });
}

describeWith("capnp", "decoding matches the reference capnp tool", () => {
  for (const root of ["Account", "CloudSpace"] as const) {
    it(`reads 40 random single-segment ${root} messages field by field`, () => {
      const expected = values(root, 1, 40, SMALL);
      expectSameAsReference(encodeTexts(expected.map(toCapnpText), root), expected, root);
    });

    it(`reads big ${root} messages split over many segments, through far pointers`, () => {
      const expected = values(root, 2, 4, BIG);
      for (const segmentWords of [16, 200, 5000]) {
        const messages = encodeTexts(expected.map(toCapnpText), root, { segmentWords });
        if (segmentWords < 5000) {
          for (const m of messages) expect(new DataView(m.buffer).getUint32(0, true) + 1).toBeGreaterThan(1);
        }
        expectSameAsReference(messages, expected, root);
      }
    });
  }

  it("reads files of the older schema (Disk without configuredIops) with configuredIops null", () => {
    const expected = values("Account", 3, 10, { ...SMALL, oldSchema: true });
    const messages = encodeTexts(expected.map(toCapnpText), "Account", { schema: OLD_SCHEMA, segmentWords: 64 });
    expect(
      expected.some((a) => (a as Account).cloudspaces.some((c) => c.machines.some((m) => m.disks.length > 0))),
    ).toBe(true);
    expectSameAsReference(messages, expected, "Account");
  });

  it("reads packed files like their unpacked form", () => {
    const expected = values("Account", 4, 3, BIG);
    for (const value of expected) {
      const text = toCapnpText(value);
      const packed = encodeText(text, "Account", { packed: true });
      const plain = encodeText(text, "Account");
      expect(packed.length).toBeLessThan(plain.length);
      expect(unpack(packed)).toEqual(plain);
      expect(decode(packed, "Account", true)).toEqual(value);
      expect(decode(packed, "Account", true)).toEqual(decode(plain, "Account"));
    }
  });
});
