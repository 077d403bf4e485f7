// Named malformed and edge-case messages, built word by word: each is refused with its own
// stable code (and, where the reference tool can tell, the reference refuses it too), or reads
// exactly as the reference reads it.
import { describe, expect, it } from "vitest";
import { BadFileError, CapnpError, decodeAccount, decodeCloudSpace, unpack, type Account } from "../../src/internal.js";
import { openMessage } from "../../src/capnp/openMessage.js";
import { packMessage } from "../../src/generate/packMessage.js";
import { needs } from "../helpers/prerequisites.js";
import { accountFromJson, cloudSpaceFromJson, concat, referenceJson, type Root } from "./reference.js";
import {
  BIT,
  BYTE,
  COMPOSITE,
  EIGHT_BYTES,
  FOUR_BYTES,
  NULL,
  POINTER,
  VOID,
  data,
  farPtr,
  floats,
  listPtr,
  message,
  structPtr,
  tag,
  textBytes,
  textWords,
  type Word,
} from "./words.js";

const FILE = "7/2026/10/31/18/account_capnp.bin";

/** Account 7 with one cloud space 5 in state DEPLOYED. */
const TINY_WORDS: Word[] = [
  structPtr(0, 1, 1),
  data(7),
  listPtr(0, COMPOSITE, 3),
  tag(1, 1, 2),
  data(5, 7),
  NULL,
  listPtr(0, BYTE, textBytes("DEPLOYED")),
  ...textWords("DEPLOYED"),
];
const TINY = message(TINY_WORDS);
const TINY_ACCOUNT: Account = {
  accountId: 7,
  cloudspaces: [{ cloudSpaceId: 5, accountId: 7, machines: [], state: "DEPLOYED" }],
};

function withWord(words: Word[], index: number, word: Word): Word[] {
  return words.map((w, i) => (i === index ? word : w));
}

/** The error `decode` throws, checked to be our typed error for FILE. */
function refusal(decode: () => unknown): CapnpError {
  try {
    decode();
  } catch (error) {
    expect(error).toBeInstanceOf(CapnpError);
    expect(error).toBeInstanceOf(BadFileError);
    expect((error as CapnpError).file).toBe(FILE);
    return error as CapnpError;
  }
  throw new Error("expected the message to be refused");
}

function accountRefusal(
  bytes: Uint8Array,
  options: { packed?: boolean; traversalLimitWords?: number; expansionLimitWords?: number } = {},
): CapnpError {
  return refusal(() => decodeAccount(bytes, { name: FILE, ...options }));
}

/** The reference tool's verdict on one message: its decode, or null when it refuses it. */
function reference(bytes: Uint8Array, root: Root = "Account"): unknown {
  const r = referenceJson(bytes, root);
  if (r.error !== null) return null;
  expect(r.messages).toHaveLength(1);
  return root === "Account"
    ? accountFromJson(r.messages[0] as Record<string, unknown>)
    : cloudSpaceFromJson(r.messages[0] as Record<string, unknown>);
}
const referenceRefuses = (bytes: Uint8Array, root: Root = "Account") => {
  if (needs("capnp")) expect(reference(bytes, root)).toBeNull();
};
const referenceReads = (bytes: Uint8Array, expected: unknown, root: Root = "Account") => {
  if (needs("capnp")) expect(reference(bytes, root)).toEqual(expected);
};

describe("framing", () => {
  it("reads a well-formed hand-built message", () => {
    expect(decodeAccount(TINY)).toEqual(TINY_ACCOUNT);
    referenceReads(TINY, TINY_ACCOUNT);
  });

  it("refuses a segment count of 0xFFFFFFFF before reading further", () => {
    const bytes = new Uint8Array([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]);
    const error = accountRefusal(bytes);
    expect(error.code).toBe("CAPNP_SEGMENT_TABLE");
    expect(error.message).toBe(
      `${FILE}: segment table declares 4294967296 segments (at most 512): not a Cap'n Proto message, or a corrupt one`,
    );
  });

  it("refuses a segment table longer than the file", () => {
    expect(accountRefusal(new Uint8Array([3, 0, 0, 0, 1, 0, 0, 0])).code).toBe("CAPNP_TRUNCATED");
  });

  it("names the segment that declares more words than the file has", () => {
    const bytes = TINY.slice();
    new DataView(bytes.buffer).setUint32(4, 212, true);
    const error = accountRefusal(bytes);
    expect(error.code).toBe("CAPNP_TRUNCATED");
    expect(error.message).toBe(`${FILE}: segment 0 declares 212 words, has ${TINY_WORDS.length}`);
    referenceRefuses(bytes);
  });

  it("refuses a second segment past the end of the file", () => {
    const bytes = message(TINY_WORDS, [NULL, NULL]);
    expect(decodeAccount(bytes)).toEqual(TINY_ACCOUNT);
    expect(accountRefusal(bytes.subarray(0, bytes.length - 8)).reason).toBe("segment 1 declares 2 words, has 1");
  });

  it("refuses bytes after the last segment, whole words or not", () => {
    for (const extra of [8, 3]) {
      const error = accountRefusal(concat([TINY, new Uint8Array(extra)]));
      expect(error.code).toBe("CAPNP_TRAILING_BYTES");
      expect(error.reason).toContain(`${extra} bytes after the last segment`);
    }
  });

  it("refuses an empty file and a file shorter than a segment table", () => {
    expect(accountRefusal(new Uint8Array(0)).code).toBe("CAPNP_TRUNCATED");
    expect(accountRefusal(new Uint8Array(5)).code).toBe("CAPNP_TRUNCATED");
  });

  it("refuses an empty first segment (no root pointer) and reads a null root as defaults", () => {
    expect(accountRefusal(message([])).code).toBe("CAPNP_BAD_POINTER");
    expect(decodeAccount(message([NULL]))).toEqual({ accountId: 0, cloudspaces: [] });
    referenceReads(message([NULL]), { accountId: 0, cloudspaces: [] });
  });
});

describe("pointers", () => {
  it("refuses pointers outside their segment, forward and backward", () => {
    for (const root of [structPtr(100, 1, 1), structPtr(-5, 1, 0)]) {
      const bytes = message(withWord(TINY_WORDS, 0, root));
      expect(accountRefusal(bytes).code).toBe("CAPNP_OUT_OF_BOUNDS");
      referenceRefuses(bytes);
    }
    const longList = message(withWord(TINY_WORDS, 2, listPtr(0, COMPOSITE, 300)));
    expect(accountRefusal(longList).code).toBe("CAPNP_OUT_OF_BOUNDS");
    referenceRefuses(longList);
  });

  it("reads an empty list or struct wherever its pointer points, as the reference does", () => {
    for (const offset of [64, -100]) {
      const emptyList = message([structPtr(0, 1, 1), data(7), listPtr(offset, EIGHT_BYTES, 0)]);
      expect(decodeAccount(emptyList)).toEqual({ accountId: 7, cloudspaces: [] });
      referenceReads(emptyList, { accountId: 7, cloudspaces: [] });
    }
    const emptyRoot = message([structPtr(-100, 0, 0)]);
    expect(decodeAccount(emptyRoot)).toEqual({ accountId: 0, cloudspaces: [] });
    referenceReads(emptyRoot, { accountId: 0, cloudspaces: [] });
  });

  it("refuses a pointer of the wrong kind", () => {
    const structForList = message(withWord(TINY_WORDS, 2, structPtr(0, 1, 2)));
    expect(accountRefusal(structForList).code).toBe("CAPNP_BAD_POINTER");
    referenceRefuses(structForList);
    const capability = message(withWord(TINY_WORDS, 0, [3, 0]));
    expect(accountRefusal(capability).code).toBe("CAPNP_BAD_POINTER");
    referenceRefuses(capability);
  });

  it("fails fast on a pointer to itself", () => {
    // The root struct's only pointer points at its own word, as a struct.
    const bytes = message([structPtr(0, 0, 1), structPtr(-1, 0, 1)]);
    expect(accountRefusal(bytes).code).toBe("CAPNP_BAD_POINTER");
    referenceRefuses(bytes);
    // Followed as structs, the same cycle is stopped by the nesting limit.
    expect(() => walkChain(bytes)).toThrowError(expect.objectContaining({ code: "CAPNP_NESTING_LIMIT" }));
  });

  it("refuses a far pointer to a missing segment and a landing pad outside its segment", () => {
    const missing = message([farPtr(3, 0)]);
    expect(accountRefusal(missing).code).toBe("CAPNP_BAD_POINTER");
    expect(accountRefusal(missing).reason).toBe("far pointer at segment 0 word 0 names segment 3, the message has 1");
    referenceRefuses(missing);
    const outside = message([farPtr(1, 5)], [structPtr(0, 1, 0), data(7)]);
    expect(accountRefusal(outside).code).toBe("CAPNP_OUT_OF_BOUNDS");
    referenceRefuses(outside);
  });

  it("follows single-far and double-far pointers to another segment", () => {
    const expected = { accountId: 7, cloudspaces: [] };
    const single = message([farPtr(1, 1)], [data(99), structPtr(0, 1, 1), data(7), NULL]);
    expect(decodeAccount(single)).toEqual(expected);
    referenceReads(single, expected);
    // Pad in segment 1: a far pointer to the content (segment 2, word 1), then its tag.
    const double = message([farPtr(1, 0, true)], [farPtr(2, 1), structPtr(0, 1, 1)], [data(1), data(7), NULL]);
    expect(decodeAccount(double)).toEqual(expected);
    referenceReads(double, expected);
  });

  it("refuses a double-far pointer whose landing pad is bad", () => {
    const notFar = message([farPtr(1, 0, true)], [structPtr(0, 1, 1), structPtr(0, 1, 1)], [data(7), NULL]);
    expect(accountRefusal(notFar).code).toBe("CAPNP_BAD_POINTER");
    expect(accountRefusal(notFar).reason).toContain(
      "double-far pointer at segment 0 word 0: its landing pad starts with a struct pointer",
    );
    referenceRefuses(notFar);
    const toMissing = message([farPtr(1, 0, true)], [farPtr(9, 0), structPtr(0, 1, 1)], [data(7), NULL]);
    expect(accountRefusal(toMissing).code).toBe("CAPNP_BAD_POINTER");
    referenceRefuses(toMissing);
    const padOutside = message([farPtr(1, 1, true)], [farPtr(2, 0), structPtr(0, 1, 1)], [data(7), NULL]);
    expect(accountRefusal(padOutside).code).toBe("CAPNP_OUT_OF_BOUNDS");
    referenceRefuses(padOutside);
  });
});

describe("lists and text", () => {
  it("refuses a composite list whose elements overrun its word count", () => {
    const bytes = message(withWord(TINY_WORDS, 3, tag(2, 1, 2)));
    const error = accountRefusal(bytes);
    expect(error.code).toBe("CAPNP_BAD_LIST");
    expect(error.reason).toBe("composite list at segment 0 word 3: 2 elements of 3 words overrun its 3 words");
    referenceRefuses(bytes);
  });

  it("refuses a composite tag counting more elements than a list holds (the reference reads it modulo 2^29)", () => {
    const bytes = message(withWord(TINY_WORDS, 3, tag(2 ** 29 + 1, 1, 2)));
    const error = accountRefusal(bytes);
    expect(error.code).toBe("CAPNP_BAD_LIST");
    expect(error.reason).toBe(
      "composite list at segment 0 word 3 declares 536870913 elements, more than a list holds (536870911)",
    );
    if (needs("capnp")) expect(reference(bytes)).toEqual(TINY_ACCOUNT);
  });

  it("refuses a composite list whose tag is not a struct tag", () => {
    const bytes = message(withWord(TINY_WORDS, 3, listPtr(1, BYTE, 1)));
    expect(accountRefusal(bytes).code).toBe("CAPNP_BAD_LIST");
    referenceRefuses(bytes);
  });

  it("stops a List(Void) of 2^29 - 1 elements at the traversal limit, at once", () => {
    const bytes = message([structPtr(0, 1, 1), data(7), listPtr(0, VOID, 2 ** 29 - 1)]);
    const started = performance.now();
    expect(accountRefusal(bytes).code).toBe("CAPNP_TRAVERSAL_LIMIT");
    expect(performance.now() - started).toBeLessThan(100);
    referenceRefuses(bytes);
  });

  it("stops a composite list of 2^29 - 1 empty structs at the traversal limit", () => {
    const bytes = message([structPtr(0, 1, 1), data(7), listPtr(0, COMPOSITE, 0), tag(2 ** 29 - 1, 0, 0)]);
    expect(accountRefusal(bytes).code).toBe("CAPNP_TRAVERSAL_LIMIT");
    referenceRefuses(bytes);
  });

  it("stops many pointers aliasing one list at the traversal and expansion limits, which the caller may raise", () => {
    const spaces = 2000;
    const machines = 50;
    // Root, then a composite list of cloud spaces (1 data word, 2 pointers), then one list of
    // machines (2 data words, 5 null pointers) that every cloud space points at.
    const words: Word[] = [structPtr(0, 1, 1), data(7), listPtr(0, COMPOSITE, spaces * 3), tag(spaces, 1, 2)];
    const shared = 4 + spaces * 3;
    for (let i = 0; i < spaces; i++) {
      const pointer = 4 + 3 * i + 1;
      words.push(data(i, 7), listPtr(shared - pointer - 1, COMPOSITE, machines * 7), NULL);
    }
    words.push(tag(machines, 2, 5));
    for (let i = 0; i < machines; i++) words.push(data(i, 2), floats(1, 1024), NULL, NULL, NULL, NULL, NULL);
    const bytes = message(words);
    // 100,000 machines from 51 KB: the expansion limit (8 × its 6,356 words) is the lower of the
    // two and stops it first; each limit is raised apart.
    expect(accountRefusal(bytes).code).toBe("CAPNP_EXPANSION_LIMIT");
    expect(accountRefusal(bytes, { expansionLimitWords: 2_000_000 }).code).toBe("CAPNP_TRAVERSAL_LIMIT");
    expect(accountRefusal(bytes, { traversalLimitWords: 2_000_000 }).code).toBe("CAPNP_EXPANSION_LIMIT");
    const account = decodeAccount(bytes, { traversalLimitWords: 2_000_000, expansionLimitWords: 2_000_000 });
    expect(account.cloudspaces).toHaveLength(spaces);
    expect(account.cloudspaces[spaces - 1]!.machines[machines - 1]).toMatchObject({
      id: machines - 1,
      vcpus: 2,
      mem: 1024,
    });
  });

  // The shapes of issue 14: each within the traversal limit (64 Ki words), so 2,000 copies
  // made 18.7 million empty machine-hours. Each element costs its schema size (machine 7
  // words, cloud space 3) against the expansion limit: 8 × the file's words, at least 64.
  const emptyMachines = (count: number) =>
    message([
      structPtr(0, 1, 1),
      data(7),
      listPtr(0, COMPOSITE, 3),
      tag(1, 1, 2),
      data(5, 7),
      listPtr(0, VOID, count),
      NULL,
    ]);
  const emptySpaces = (count: number) => message([structPtr(0, 1, 1), data(7), listPtr(0, VOID, count)]);
  const emptyMachine = {
    id: 0,
    type: "",
    vcpus: 0,
    cpuMinutes: 0,
    mem: 0,
    networks: [],
    disks: [],
    imageName: "",
    status: "",
  };
  const emptySpace = { cloudSpaceId: 0, accountId: 0, machines: [], state: "" };

  it("stops a 64-byte file whose machines are a List(Void) of 9,361 at the expansion limit, not the traversal limit", () => {
    const bytes = emptyMachines(9361);
    expect(bytes.length).toBe(64);
    const error = accountRefusal(bytes);
    expect(error.code).toBe("CAPNP_EXPANSION_LIMIT");
    expect(error.message).toMatch(
      /^7\/2026\/10\/31\/18\/account_capnp\.bin: the message decodes to more than its expansion limit of 64 words/,
    );
    // Read as the reference reads it once the caller raises the limit for a file it trusts.
    const expected = {
      accountId: 7,
      cloudspaces: [{ cloudSpaceId: 5, accountId: 7, state: "", machines: Array(9361).fill(emptyMachine) }],
    };
    expect(decodeAccount(bytes, { expansionLimitWords: 70_000 })).toEqual(expected);
    referenceReads(bytes, expected);
  });

  it("stops a 32-byte file of 21,844 empty cloud spaces (a List(Void)) at the expansion limit", () => {
    const bytes = emptySpaces(21844);
    expect(bytes.length).toBe(32);
    expect(accountRefusal(bytes).code).toBe("CAPNP_EXPANSION_LIMIT");
    const expected = { accountId: 7, cloudspaces: Array(21844).fill(emptySpace) };
    expect(decodeAccount(bytes, { expansionLimitWords: 70_000 })).toEqual(expected);
    referenceReads(bytes, expected);
  });

  it("lets a small file make at most its floor of 64 words: 8 empty machines, not 9; 20 empty cloud spaces, not 21", () => {
    // Charged: the root (2 words), the cloud-space list (tag + 3), then 7 per machine.
    expect(decodeAccount(emptyMachines(8)).cloudspaces[0]!.machines).toHaveLength(8);
    expect(accountRefusal(emptyMachines(9)).code).toBe("CAPNP_EXPANSION_LIMIT");
    expect(decodeAccount(emptySpaces(20)).cloudspaces).toHaveLength(20);
    expect(accountRefusal(emptySpaces(21)).code).toBe("CAPNP_EXPANSION_LIMIT");
  });

  it("measures a packed file's expansion against its packed bytes: zero runs do not multiply what it makes", () => {
    // 4,000 empty machines as a composite list of zero words: 28,000 words unpacked (within
    // the traversal limit of 8 × the message), about 250 bytes packed.
    const words: Word[] = [
      structPtr(0, 1, 1),
      data(7),
      listPtr(0, COMPOSITE, 3),
      tag(1, 1, 2),
      data(5, 7),
      listPtr(1, COMPOSITE, 4000 * 7),
      NULL,
      tag(4000, 2, 5),
    ];
    for (let i = 0; i < 4000 * 7; i++) words.push(NULL);
    const packed = packMessage(message(words));
    expect(packed.length).toBeLessThan(300);
    expect(accountRefusal(packed, { packed: true }).code).toBe("CAPNP_EXPANSION_LIMIT");
    expect(decodeAccount(message(words)).cloudspaces[0]!.machines).toHaveLength(4000);
  });

  it("refuses text without its NUL, empty text lists and non-byte lists as text", () => {
    const noNul = message([
      ...withWord(TINY_WORDS.slice(0, 7), 6, listPtr(0, BYTE, 8)),
      ...textWords("DEPLOYED", false),
    ]);
    expect(accountRefusal(noNul).code).toBe("CAPNP_BAD_TEXT");
    referenceRefuses(noNul);
    const empty = message(withWord(TINY_WORDS, 6, listPtr(0, BYTE, 0)));
    expect(accountRefusal(empty).code).toBe("CAPNP_BAD_TEXT");
    referenceRefuses(empty);
    const words = message(withWord(TINY_WORDS, 6, listPtr(0, FOUR_BYTES, 2)));
    expect(accountRefusal(words).code).toBe("CAPNP_BAD_TEXT");
    referenceRefuses(words);
  });

  it("reads lists of pointers or of Int32 as lists of structs, like the reference; refuses bit lists", () => {
    // A CloudSpace whose machines list is a list of 2 pointers to texts: each element reads as
    // a VMachine with no data and one pointer, its `type`.
    const pointers = message([
      structPtr(0, 1, 2),
      data(5, 7),
      listPtr(1, POINTER, 2),
      NULL,
      listPtr(1, BYTE, textBytes("vm")),
      listPtr(1, BYTE, textBytes("routeros")),
      ...textWords("vm"),
      ...textWords("routeros"),
    ]);
    const machine = (type: string, id = 0) => ({
      id,
      type,
      vcpus: 0,
      cpuMinutes: 0,
      mem: 0,
      networks: [],
      disks: [],
      imageName: "",
      status: "",
    });
    const expected = { cloudSpaceId: 5, accountId: 7, machines: [machine("vm"), machine("routeros")], state: "" };
    expect(decodeCloudSpace(pointers)).toEqual(expected);
    referenceReads(pointers, expected, "CloudSpace");
    // A list of Int32: each element reads as a VMachine whose 4-byte data section holds `id`.
    const ints = message([structPtr(0, 1, 2), data(5, 7), listPtr(1, FOUR_BYTES, 3), NULL, data(11, 12), data(13)]);
    const expectedInts = { ...expected, machines: [machine("", 11), machine("", 12), machine("", 13)] };
    expect(decodeCloudSpace(ints)).toEqual(expectedInts);
    referenceReads(ints, expectedInts, "CloudSpace");
    const bits = message([structPtr(0, 1, 2), data(5, 7), listPtr(1, BIT, 3), NULL, data(7)]);
    expect(refusal(() => decodeCloudSpace(bits, { name: FILE })).code).toBe("CAPNP_BAD_LIST");
    referenceRefuses(bits, "CloudSpace");
  });

  it("reads fields past a smaller data section as 0 and skips the rest of a larger one", () => {
    const machine = {
      id: 0,
      type: "vm",
      vcpus: 0,
      cpuMinutes: 0,
      mem: 0,
      networks: [],
      disks: [],
      imageName: "",
      status: "",
    };
    // Machines of 1 data word (id, vcpus: no cpuMinutes, no mem) and 1 pointer (type).
    const smaller = message([
      structPtr(0, 1, 2),
      data(5, 7),
      listPtr(1, COMPOSITE, 4),
      NULL,
      tag(2, 1, 1),
      data(11, 3),
      listPtr(2, BYTE, textBytes("vm")),
      data(12, 4),
      listPtr(0, BYTE, textBytes("vm")),
      ...textWords("vm"),
    ]);
    const expectedSmaller = {
      cloudSpaceId: 5,
      accountId: 7,
      state: "",
      machines: [
        { ...machine, id: 11, vcpus: 3 },
        { ...machine, id: 12, vcpus: 4 },
      ],
    };
    expect(decodeCloudSpace(smaller)).toEqual(expectedSmaller);
    referenceReads(smaller, expectedSmaller, "CloudSpace");
    // A machine of 3 data words and 7 pointers: a newer schema's extra data and pointers,
    // here garbage (out of bounds, a capability), are never read.
    const larger = message([
      structPtr(0, 1, 2),
      data(5, 7),
      listPtr(1, COMPOSITE, 10),
      NULL,
      tag(1, 3, 7),
      data(21, 2),
      floats(30, 2048),
      data(0xdeadbeef, 0xdeadbeef),
      listPtr(6, BYTE, textBytes("vm")),
      NULL,
      NULL,
      NULL,
      listPtr(3, BYTE, textBytes("RUNNING")),
      listPtr(1000, COMPOSITE, 5),
      [3, 0],
      ...textWords("vm"),
      ...textWords("RUNNING"),
    ]);
    const expectedLarger = {
      cloudSpaceId: 5,
      accountId: 7,
      state: "",
      machines: [{ ...machine, id: 21, vcpus: 2, cpuMinutes: 30, mem: 2048, status: "RUNNING" }],
    };
    expect(decodeCloudSpace(larger)).toEqual(expectedLarger);
    referenceReads(larger, expectedLarger, "CloudSpace");
  });
});

describe("limits", () => {
  it("reads 64 nested structs and refuses 65", () => {
    expect(walkChain(chain(64))).toBe(64);
    expect(() => walkChain(chain(65))).toThrowError(expect.objectContaining({ code: "CAPNP_NESTING_LIMIT" }));
  });

  it("counts the configured limits of a disk as depth 8 of an account", () => {
    const bytes = message([
      structPtr(0, 1, 1),
      data(7),
      listPtr(0, COMPOSITE, 3),
      tag(1, 1, 2),
      data(5, 7),
      listPtr(1, COMPOSITE, 7),
      NULL,
      tag(1, 2, 5),
      data(1, 2),
      floats(3, 4),
      NULL,
      NULL,
      listPtr(2, COMPOSITE, 4),
      NULL,
      NULL,
      tag(1, 3, 1),
      data(1),
      floats(0),
      floats(0),
      structPtr(0, 7, 0),
      floats(1, 2),
      NULL,
      NULL,
      NULL,
      NULL,
      NULL,
      NULL,
    ]);
    const account = decodeAccount(bytes, { nestingLimit: 8 });
    expect(account.cloudspaces[0]!.machines[0]!.disks[0]!.configuredIops).toMatchObject({
      totalBytesSec: 1,
      readBytesSec: 2,
    });
    expect(() => decodeAccount(bytes, { nestingLimit: 7 })).toThrowError(
      expect.objectContaining({ code: "CAPNP_NESTING_LIMIT" }),
    );
  });
});

describe("packed encoding", () => {
  it("refuses packed data cut inside a word or a run", () => {
    const cases = [
      new Uint8Array([0x00]), // zero word without its run count
      new Uint8Array([0x03, 0x01]), // tag names two bytes, one follows
      new Uint8Array([0xff, 1, 2, 3, 4, 5, 6, 7, 8, 0x02, 1, 2, 3, 4, 5, 6, 7, 8]), // run of 2 words, 1 present
      new Uint8Array([0xff, 1, 2, 3, 4]), // verbatim word cut short
    ];
    for (const bytes of cases) {
      const error = accountRefusal(bytes, { packed: true });
      expect(error.code).toBe("CAPNP_PACKED");
    }
  });

  it("unpacks runs of zero and verbatim words", () => {
    const packed = new Uint8Array([0x00, 0x02, 0xff, 1, 2, 3, 4, 5, 6, 7, 8, 0x01, 9, 9, 9, 9, 9, 9, 9, 9, 0x81, 5, 6]);
    const expected = new Uint8Array(8 * 6);
    expected.set([1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9, 9, 9, 9, 9, 9, 5, 0, 0, 0, 0, 0, 0, 6], 24);
    expect(unpack(packed)).toEqual(expected);
  });

  it("refuses a packed file that unpacks past maxUnpackedBytes", () => {
    const bomb = new Uint8Array(2000).fill(0xff).map((_, i) => (i % 2 === 0 ? 0x00 : 0xff));
    expect(unpack(bomb, { expansionLimitWords: 1 << 20 }).length).toBe(1000 * 256 * 8);
    const error = refusal(() => unpack(bomb, { name: FILE, expansionLimitWords: 1 << 20, maxUnpackedBytes: 1 << 20 }));
    expect([error.code, error.message]).toEqual([
      "CAPNP_PACKED",
      `${FILE}: packed data of 2000 bytes unpacks to more than 1048576 bytes (maxUnpackedBytes); raise the limit only for a file you trust`,
    ]);
  });

  it("refuses a packed file of zero runs past its expansion limit while unpacking, long before 256 MiB", () => {
    // 2,000 bytes of zero runs unpack to 4 MB (the 392 KB file of the report made 255 MiB): 8 × 250 words is the most.
    const bomb = new Uint8Array(2000).map((_, i) => (i % 2 === 0 ? 0x00 : 0xff));
    const error = refusal(() => unpack(bomb, { name: FILE }));
    expect([error.code, error.message]).toEqual([
      "CAPNP_EXPANSION_LIMIT",
      `${FILE}: packed data of 2000 bytes unpacks to more than its expansion limit of 2000 words, 8 × its own size (expansionLimitWords); raise the limit only for a file you trust`,
    ]);
    expect(accountRefusal(bomb, { packed: true }).code).toBe("CAPNP_EXPANSION_LIMIT");
  });
});

/** n structs, each with one pointer to the next; the last pointer is null. */
function chain(n: number): Uint8Array {
  return message([...Array.from({ length: n }, () => structPtr(0, 0, 1)), NULL]);
}

/** Follows pointer 0 from struct to struct as far as it goes; returns the depth reached. */
function walkChain(bytes: Uint8Array): number {
  const m = openMessage(bytes, { name: FILE });
  let depth = 1;
  if (!m.struct(0, m.rootPointer(), depth)) return 0;
  while (m.struct(m.segment, m.position + m.dataBytes, depth + 1)) depth++;
  return depth;
}
