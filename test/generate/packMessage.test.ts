import { describe, expect, it } from "vitest";
import { packMessage } from "../../src/generate/packMessage.js";

const bytes = (...values: number[]) => Uint8Array.from(values);
const word = (...values: number[]) => values;

describe("packMessage", () => {
  it.each<[string, number[], number[]]>([
    ["a zero word is a zero tag and a count of 0 more", word(0, 0, 0, 0, 0, 0, 0, 0), [0x00, 0x00]],
    ["three zero words are a zero tag and a count of 2 more", [...Array(24).fill(0)], [0x00, 0x02]],
    ["a sparse word keeps its nonzero bytes after the tag", word(1, 0, 0, 0, 0, 0, 0, 2), [0x81, 1, 2]],
    ["the spec's example word", word(0x08, 0, 0, 0, 0x03, 0, 0x02, 0), [0x51, 0x08, 0x03, 0x02]],
    [
      "a full word is tag 0xff, its bytes, and a count of 0 verbatim words",
      word(1, 2, 3, 4, 5, 6, 7, 8),
      [0xff, 1, 2, 3, 4, 5, 6, 7, 8, 0x00],
    ],
    [
      "a full word takes the next words with at most one zero byte verbatim",
      [...word(1, 2, 3, 4, 5, 6, 7, 8), ...word(9, 0, 9, 9, 9, 9, 9, 9), ...word(0, 0, 0, 0, 0, 0, 0, 5)],
      [0xff, 1, 2, 3, 4, 5, 6, 7, 8, 0x01, 9, 0, 9, 9, 9, 9, 9, 9, 0x80, 5],
    ],
  ])("%s", (_name, input, packed) => {
    expect([...packMessage(bytes(...input))]).toEqual(packed);
  });

  it("counts at most 255 further zero words after one zero tag", () => {
    const packed = packMessage(new Uint8Array(8 * 300));
    expect([...packed]).toEqual([0x00, 0xff, 0x00, 43]);
  });
});
