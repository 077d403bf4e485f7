import { describe, expect, it } from "vitest";
import { splitAmount } from "../../src/index.js";

describe("largest-remainder split", () => {
  it.each([
    {
      what: "thirds: the cent left over goes to the lower id",
      total: 100n,
      shares: [
        [1, 1],
        [2, 1],
        [3, 1],
      ],
      parts: [34n, 33n, 33n],
    },
    {
      what: "ties go to the lower id whatever the order",
      total: 100n,
      shares: [
        [3, 1],
        [2, 1],
        [1, 1],
      ],
      parts: [33n, 33n, 34n],
    },
    {
      what: "the largest remainders get the cents",
      total: 7n,
      shares: [
        [1, 0.5],
        [2, 0.25],
        [3, 0.25],
      ],
      parts: [3n, 2n, 2n],
    },
    {
      what: "a larger remainder wins over a lower id",
      total: 10n,
      shares: [
        [1, 1],
        [2, 2],
      ],
      parts: [3n, 7n],
    },
    {
      what: "all weights 0: equal shares",
      total: 10n,
      shares: [
        [1, 0],
        [2, 0],
      ],
      parts: [5n, 5n],
    },
    {
      what: "all weights 0, an odd cent: to the lower id",
      total: 11n,
      shares: [
        [5, 0],
        [4, 0],
      ],
      parts: [5n, 6n],
    },
    {
      what: "a weight 0 beside others gets nothing",
      total: 9n,
      shares: [
        [1, 0],
        [2, 3],
      ],
      parts: [0n, 9n],
    },
    {
      what: "nothing to split",
      total: 0n,
      shares: [
        [1, 1],
        [2, 2],
      ],
      parts: [0n, 0n],
    },
    {
      what: "a tiny weight",
      total: 1n,
      shares: [
        [1, 1e-20],
        [2, 1],
      ],
      parts: [0n, 1n],
    },
    {
      what: "a credit (negative) splits like a charge",
      total: -7n,
      shares: [
        [1, 1],
        [2, 1],
      ],
      parts: [-4n, -3n],
    },
    {
      what: "weights as floats that print as 0.1 and 0.2",
      total: 3n,
      shares: [
        [1, 0.1],
        [2, 0.2],
      ],
      parts: [1n, 2n],
    },
    { what: "no shares", total: 5n, shares: [], parts: [] },
  ])("$what", ({ total, shares, parts }) => {
    const got = splitAmount(
      total,
      shares.map(([id, weight]) => ({ id: id!, weight: weight! })),
    );
    expect(got).toEqual(parts);
    if (shares.length > 0) expect(got.reduce((a, b) => a + b, 0n)).toBe(total);
  });

  it("refuses a negative or non-finite weight", () => {
    expect(() => splitAmount(1n, [{ id: 1, weight: -1 }])).toThrow(/bad weight/);
    expect(() => splitAmount(1n, [{ id: 1, weight: Number.NaN }])).toThrow(/bad weight/);
  });
});
