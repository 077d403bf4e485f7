import { describe, expect, it } from "vitest";
import { withRoom } from "../../src/base/growArray.js";

describe("withRoom: the growth of the typed arrays that hold a run's numbers (index, exact sums, fingerprints)", () => {
  it.each([
    // kind, length, used, wanted -> new length
    ["Float64Array", 4, 4, 5, 8],
    ["Int32Array", 4, 3, 9, 9],
    ["Uint8Array", 256, 256, 257, 512],
    ["Uint32Array", 1, 1, 2, 2],
  ] as const)(
    "%s of %i, %i used, room for %i: a new one of length %i keeping the used elements",
    (kind, length, used, wanted, grown) => {
      const array = new globalThis[kind](length).map((_, i) => i + 1);
      const result = withRoom(array, used, wanted);
      expect(result).not.toBe(array);
      expect(result.constructor).toBe(array.constructor);
      expect(result.length).toBe(grown);
      expect([...result.subarray(0, used)]).toEqual([...array.subarray(0, used)]);
    },
  );

  it("returns the array itself when it has room, and a Buffer stays a Buffer", () => {
    const array = new Float64Array(8);
    expect(withRoom(array, 2, 8)).toBe(array);
    const bytes = Buffer.from("abcdef");
    const grown = withRoom(bytes, 3, 7);
    expect(Buffer.isBuffer(grown)).toBe(true);
    expect(grown.length).toBe(12);
    expect(grown.toString("utf8", 0, 3)).toBe("abc");
  });
});
