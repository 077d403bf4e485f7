// Mutation fuzz: bit flips over the framing and pointer words of real files, truncations and
// random bytes, and list-kind swaps of the cloud-space and machine pointers (issue 14). Every result must be either the reference tool's decode of the same bytes or
// our typed CapnpError: never another exception, never a hang. CLOUDUNITS_FUZZ_LONG=1 runs
// many more cases and also asks the reference about the messages we refuse.
import { spawn } from "node:child_process";
import { expect, it } from "vitest";
import { EXPANSION_LIMIT_FACTOR, MIN_EXPANSION_LIMIT_WORDS } from "../../src/capnp/DecodeOptions.js";
import { CapnpError, decodeAccount, decodeCloudSpace, type Account, type CloudSpace } from "../../src/internal.js";
import { listKindSwaps } from "../helpers/listKindSwaps.mjs";
import { prng, randomAccount, randomCloudSpace, toCapnpText } from "./randomRecords.js";
import { describeWith } from "../helpers/prerequisites.js";
import { OLD_SCHEMA, SCHEMA, concat, encodeTexts, fromJson, referenceJson, type Root } from "./reference.js";

const LONG = process.env.CLOUDUNITS_FUZZ_LONG === "1";
const MUTATIONS_PER_FILE = LONG ? 4000 : 250;
const SWAPS_PER_FILE = LONG ? 4000 : 200;
/** In the short run, this many refused messages are also shown to the reference. */
const REFUSALS_ASKED = LONG ? 300 : 12;
/** Reference processes run at once (the machine is shared). */
const CONCURRENCY = 2;

/** The struct sizes of the schema, as struct pointers and composite tags carry them (hi word). */
const SCHEMA_STRUCT_SIZES = new Set([0x10001, 0x20001, 0x50002, 0x10002, 0x10003, 0x00003, 0x00007]);

/** Word offsets (bytes) that hold the segment table or look like pointers of this schema. */
function framingAndPointerWords(bytes: Uint8Array): number[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const segments = view.getUint32(0, true) + 1;
  const tableBytes = 8 * (Math.floor(segments / 2) + 1);
  const out: number[] = [];
  for (let at = 0; at < tableBytes; at += 8) out.push(at);
  for (let at = tableBytes; at < bytes.length; at += 8) {
    const lo = view.getUint32(at, true);
    const hi = view.getUint32(at + 4, true);
    const kind = lo & 3;
    const looksLikePointer =
      (kind === 0 && SCHEMA_STRUCT_SIZES.has(hi)) ||
      (kind === 1 && ((hi & 7) === 7 || (hi & 7) === 2) && hi >>> 3 < (bytes.length / 8) * 8) ||
      (kind === 2 && hi < segments);
    if (looksLikePointer) out.push(at);
  }
  return out;
}

type Outcome = { value: Account | CloudSpace } | { error: CapnpError };

/** Words the records of a decoded value take at the schema's struct sizes (texts aside). */
function recordWords(value: Account | CloudSpace): number {
  const space = (cs: CloudSpace) =>
    3 +
    cs.machines.reduce(
      (n, m) => n + 7 + 3 * m.networks.length + m.disks.reduce((d, k) => d + 4 + (k.configuredIops ? 7 : 0), 0),
      0,
    );
  return "cloudspaces" in value ? 2 + value.cloudspaces.reduce((n, cs) => n + space(cs), 0) : space(value);
}

/** The default expansion limit of a file of `bytes` bytes, words. */
const expansionLimit = (bytes: number) =>
  Math.max(EXPANSION_LIMIT_FACTOR * Math.ceil(bytes / 8), MIN_EXPANSION_LIMIT_WORDS);

function ours(bytes: Uint8Array, root: Root): Outcome {
  // CPU time, not wall time: the test must not fail because the machine is busy.
  const started = process.cpuUsage();
  try {
    const value =
      root === "Account" ? decodeAccount(bytes, { name: "fuzz" }) : decodeCloudSpace(bytes, { name: "fuzz" });
    return { value };
  } catch (error) {
    // Anything but our typed error fails the test here, with the offending bytes.
    if (!(error instanceof CapnpError)) {
      throw new Error(`non-CapnpError on ${Buffer.from(bytes).toString("hex")}: ${String(error)}`, { cause: error });
    }
    return { error };
  } finally {
    const used = process.cpuUsage(started);
    expect((used.user + used.system) / 1000, "CPU milliseconds of one decode").toBeLessThan(500);
  }
}

type Mutation = { bytes: Uint8Array; kind: "flip" | "truncation" | "random" };

function mutations(file: Uint8Array, rand: () => number, count: number): Mutation[] {
  const targets = framingAndPointerWords(file);
  const out: Mutation[] = [];
  for (let i = 0; i < count; i++) {
    const r = rand();
    if (r < 0.7) {
      const bytes = file.slice();
      const flips = rand() < 0.5 ? 1 : 2;
      for (let f = 0; f < flips; f++) {
        const word = targets[Math.floor(rand() * targets.length)]!;
        const bit = Math.floor(rand() * 64);
        bytes[word + (bit >> 3)]! ^= 1 << (bit & 7);
      }
      out.push({ bytes, kind: "flip" });
    } else if (r < 0.85) {
      out.push({ bytes: file.slice(0, Math.floor(rand() * file.length)), kind: "truncation" });
    } else {
      // Random bytes, half of them behind a plausible one-segment table.
      const words = Math.floor(rand() * 40);
      const bytes = new Uint8Array(8 * words + (rand() < 0.2 ? Math.floor(rand() * 8) : 0)).map(() =>
        Math.floor(rand() * 256),
      );
      if (words > 0 && rand() < 0.5) {
        new DataView(bytes.buffer).setUint32(0, 0, true);
        new DataView(bytes.buffer).setUint32(4, words - 1, true);
      }
      out.push({ bytes, kind: "random" });
    }
  }
  return out;
}

/**
 * Shows the messages we accept to the reference, as one stream; returns the indexes the
 * reference refuses (the stream restarts after each).
 */
function acceptedButReferenceRefuses(messages: Uint8Array[], decoded: (Account | CloudSpace)[], root: Root): number[] {
  const refused: number[] = [];
  let start = 0;
  while (start < messages.length) {
    const r = referenceJson(concat(messages.slice(start)), root);
    r.messages.forEach((json, i) => {
      expect(decoded[start + i], `message ${start + i}: ${Buffer.from(messages[start + i]!).toString("hex")}`).toEqual(
        fromJson(json, root),
      );
    });
    if (r.error === null) break;
    refused.push(start + r.messages.length);
    start += r.messages.length + 1;
  }
  return refused;
}

/** The reference's verdict on one message: true when it decodes it. */
function referenceAccepts(bytes: Uint8Array, root: Root): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const child = spawn("capnp", ["convert", "binary:json", "--short", "--quiet", SCHEMA, root], {
      stdio: ["pipe", "ignore", "ignore"],
    });
    child.on("error", reject);
    child.on("close", (status) => resolve(status === 0 && bytes.length > 0));
    child.stdin.on("error", () => undefined);
    child.stdin.end(bytes);
  });
}

/** Files the reference writes: one segment, many, the older schema, a per-cloud-space file. */
function realFiles(rand: () => number, spaces: number): { name: string; root: Root; file: Uint8Array }[] {
  const account = (oldSchema = false) => toCapnpText(randomAccount(rand, { spaces, machines: 3, parts: 2, oldSchema }));
  return [
    { name: "one segment", root: "Account", file: encodeTexts([account()], "Account")[0]! },
    { name: "many segments", root: "Account", file: encodeTexts([account()], "Account", { segmentWords: 24 })[0]! },
    {
      name: "older schema",
      root: "Account",
      file: encodeTexts([account(true)], "Account", { schema: OLD_SCHEMA })[0]!,
    },
    {
      name: "cloud space",
      root: "CloudSpace",
      file: encodeTexts([toCapnpText(randomCloudSpace(rand, { spaces: 1, machines: 4, parts: 2 }))], "CloudSpace", {
        segmentWords: 32,
      })[0]!,
    },
  ];
}

describeWith("capnp", "mutated files decode as the reference does, or fail with a CapnpError", () => {
  const rand = prng(Number(process.env.CLOUDUNITS_FUZZ_SEED ?? 20261122));
  const corpus = realFiles(rand, 2);

  for (const { name, root, file } of corpus) {
    it(
      `${name}: flips, truncations and random bytes`,
      async () => {
        const mutated = mutations(file, rand, MUTATIONS_PER_FILE);
        const messages = mutated.map((m) => m.bytes);
        const outcomes = messages.map((m) => ours(m, root));
        const acceptedIndexes = outcomes.flatMap((o, i) => ("value" in o ? [i] : []));
        const accepted = acceptedIndexes.map((i) => messages[i]!);
        const refusedByReference = acceptedButReferenceRefuses(
          accepted,
          acceptedIndexes.map((i) => (outcomes[i] as { value: Account | CloudSpace }).value),
          root,
        );
        expect(refusedByReference.map((i) => Buffer.from(accepted[i]!).toString("hex"))).toEqual([]);

        // Messages we refuse that the reference reads: only for the documented reasons.
        const refusals = outcomes.flatMap((o, i) => ("error" in o ? [{ error: o.error, ...mutated[i]! }] : []));
        expect(await referenceAccepts(file, root)).toBe(true);
        // Bit flips first: truncations and random bytes rarely make a message the reference reads.
        const asked = [
          ...refusals.filter((r) => r.kind === "flip"),
          ...refusals.filter((r) => r.kind !== "flip"),
        ].slice(0, REFUSALS_ASKED);
        const verdicts = await inPool(asked.map((r) => () => referenceAccepts(r.bytes, root)));
        const stricter = asked.filter((_, i) => verdicts[i]);
        for (const { error, bytes } of stricter) {
          const documented = STRICTER_THAN_REFERENCE.some((allowed) => allowed(error));
          expect(documented, `${error.code} ${error.reason} on ${Buffer.from(bytes).toString("hex")}`).toBe(true);
        }
        if (LONG) {
          console.log(
            `${name}: ${messages.length} messages, ${accepted.length} read as the reference does, ${refusals.length} refused, of which ${stricter.length} the reference reads:`,
            countBy(stricter.map((s) => s.error.code)),
          );
        }
        expect(accepted.length).toBeGreaterThan(0);
        expect(refusals.length).toBeGreaterThan(0);
      },
      LONG ? 1_800_000 : 60_000,
    );
  }
});

describeWith(
  "capnp",
  "list-kind swaps of the cloud-space and machine pointers decode as the reference does, within the expansion limit",
  () => {
    const rand = prng(Number(process.env.CLOUDUNITS_FUZZ_SEED ?? 20261123));
    const corpus = realFiles(rand, 3);
    const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

    for (const { name, root, file } of corpus) {
      it(
        `${name}: element sizes and counts swapped`,
        async () => {
          const messages = listKindSwaps(file, root, rand, SWAPS_PER_FILE);
          const outcomes = messages.map((m) => ours(m, root));
          const acceptedIndexes = outcomes.flatMap((o, i) => ("value" in o ? [i] : []));
          const values = acceptedIndexes.map((i) => (outcomes[i] as { value: Account | CloudSpace }).value);
          const accepted = acceptedIndexes.map((i) => messages[i]!);
          expect(acceptedButReferenceRefuses(accepted, values, root).map((i) => hex(accepted[i]!))).toEqual([]);

          // No message we accept makes more records than its expansion limit allows.
          const over = accepted.filter((bytes, i) => recordWords(values[i]!) > expansionLimit(bytes.length));
          expect(
            over.slice(0, 3).map(hex),
            `${over.length} of ${accepted.length} accepted messages over the limit`,
          ).toEqual([]);

          // The expansion limit stops swaps the reference reads (lists of empty elements): a
          // documented strictness, as is every other refusal the reference reads.
          const refusals = outcomes.flatMap((o, i) => ("error" in o ? [{ error: o.error, bytes: messages[i]! }] : []));
          const expanding = refusals.filter((r) => r.error.code === "CAPNP_EXPANSION_LIMIT");
          expect(expanding.length).toBeGreaterThan(0);
          // Not the swaps past the traversal limit: the reference reads a list of up to 8 Mi empty
          // elements, and prints each (gigabytes of JSON); they are a documented strictness anyway.
          const others = refusals.filter(
            (r) => r.error.code !== "CAPNP_EXPANSION_LIMIT" && r.error.code !== "CAPNP_TRAVERSAL_LIMIT",
          );
          const asked = [...expanding.slice(0, REFUSALS_ASKED / 2), ...others].slice(0, REFUSALS_ASKED);
          const verdicts = await inPool(asked.map((r) => () => referenceAccepts(r.bytes, root)));
          const stricter = asked.filter((_, i) => verdicts[i]);
          for (const { error, bytes } of stricter) {
            expect(
              STRICTER_THAN_REFERENCE.some((allowed) => allowed(error)),
              `${error.code} ${error.reason} on ${hex(bytes)}`,
            ).toBe(true);
          }
          expect(stricter.some((r) => r.error.code === "CAPNP_EXPANSION_LIMIT")).toBe(true);
          if (LONG) {
            console.log(
              `${name}: ${messages.length} swaps, ${accepted.length} read as the reference does, ${refusals.length} refused:`,
              countBy(refusals.map((r) => r.error.code)),
            );
          }
          expect(accepted.length).toBeGreaterThan(0);
        },
        LONG ? 1_800_000 : 60_000,
      );
    }
  },
);

/**
 * Where we are stricter than the reference library, on purpose: it reads an empty stream as no
 * message and trailing bytes as the start of the next message of a stream; its traversal
 * limit is 8 Mi words, ours 8 × the message (at least 64 Ki words), and it has no expansion
 * limit (ours: 8 × the file's own words, at least 64 words); it reads a composite
 * list tag's element count modulo 2^29 (a list holds at most 2^29 − 1 elements), we refuse
 * the corrupt count.
 */
const STRICTER_THAN_REFERENCE: ((error: CapnpError) => boolean)[] = [
  (e) =>
    e.code === "CAPNP_TRAILING_BYTES" ||
    e.code === "CAPNP_TRUNCATED" ||
    e.code === "CAPNP_TRAVERSAL_LIMIT" ||
    e.code === "CAPNP_EXPANSION_LIMIT",
  (e) => e.code === "CAPNP_BAD_LIST" && e.reason.includes("more than a list holds"),
];

/** Runs the tasks at most CONCURRENCY at a time; results in order. */
async function inPool<T>(tasks: (() => Promise<T>)[]): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]!();
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return results;
}

function countBy(values: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) out[v] = (out[v] ?? 0) + 1;
  return out;
}
