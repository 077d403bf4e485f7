// The expansion limit (8 × a file's own words, at least 64 words) must leave every real file
// far inside it: the generator's files of every kind, packed ones measured against their
// packed bytes, decode to at most half of it.
import { describe, expect, it } from "vitest";
import { EXPANSION_LIMIT_FACTOR } from "../../src/capnp/DecodeOptions.js";
import { openMessage } from "../../src/capnp/openMessage.js";
import { RecordBuilder } from "../../src/capnp/RecordBuilder.js";
import { visitAccountRoot, visitCloudSpaceRoot } from "../../src/capnp/visitRecords.js";
import { encodeAccount, encodeCloudSpace, generateHours, unpack, type EncodeOptions } from "../../src/internal.js";

/** Words charged per word of the file, for one file. */
function chargedPerInputWord(bytes: Uint8Array, root: "Account" | "CloudSpace", packed: boolean): number {
  const reader = openMessage(bytes, { packed });
  if (root === "Account") visitAccountRoot(reader, new RecordBuilder());
  else visitCloudSpaceRoot(reader, new RecordBuilder());
  return reader.chargedWords / Math.ceil(bytes.length / 8);
}

const KINDS: Record<string, EncodeOptions> = {
  "one segment": {},
  packed: { packed: true },
  "older schema": { oldSchema: true },
  "older schema, packed": { oldSchema: true, packed: true },
  "many segments": { segmentWords: 16 },
  "many segments, packed": { segmentWords: 16, packed: true },
  "double-far pointers": { segmentWords: 8, doubleFar: true },
};

describe("the expansion limit and real files", () => {
  // Small and large hours; DISABLED cloud spaces (every machine halted, no traffic) pack best.
  const hours = [
    ...generateHours({ accounts: 2, spaces: 1, machines: 1, hours: 4, seed: 3 }),
    ...generateHours({ accounts: 2, spaces: 4, machines: 12, hours: 4, seed: 4 }),
  ];

  for (const [kind, options] of Object.entries(KINDS)) {
    it(`${kind}: Account and per-cloud-space files use at most half their expansion limit`, () => {
      let worst = 0;
      for (const hour of hours) {
        worst = Math.max(
          worst,
          chargedPerInputWord(encodeAccount(hour.account, options), "Account", options.packed === true),
        );
        for (const cloudSpace of hour.account.cloudspaces) {
          worst = Math.max(
            worst,
            chargedPerInputWord(encodeCloudSpace(cloudSpace, options), "CloudSpace", options.packed === true),
          );
        }
      }
      expect(worst).toBeGreaterThan(0.5);
      expect(worst).toBeLessThanOrEqual(EXPANSION_LIMIT_FACTOR / 2);
    });

    if (options.packed) {
      it(`${kind}: files unpack to at most half their expansion limit, which bounds unpacking too`, () => {
        let worst = 0;
        for (const hour of hours) {
          const files = [
            encodeAccount(hour.account, options),
            ...hour.account.cloudspaces.map((c) => encodeCloudSpace(c, options)),
          ];
          for (const file of files) worst = Math.max(worst, unpack(file).length / file.length);
        }
        expect(worst).toBeGreaterThan(1);
        expect(worst).toBeLessThanOrEqual(EXPANSION_LIMIT_FACTOR / 2);
      });
    }
  }
});
