import { describe, expect, it } from "vitest";
import { SortedWindow } from "../../src/forecast/robust.js";
import { plainScore } from "../helpers/plainScore.js";

/** A deterministic series: noise, a daily rhythm, repeated values (ties), a step, zeros. */
function series(seed: number, n: number): number[] {
  let x = seed;
  const next = () => (x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  return Array.from({ length: n }, (_, i) => {
    const kind = (seed + Math.floor(i / 97)) % 4;
    if (kind === 0) return Math.round(next() * 4); // few distinct values: many ties
    if (kind === 1) return 0;
    return (i > n / 2 ? 3 : 1) * (10 + Math.sin(i / 3.8) * 4 + next());
  });
}

describe("SortedWindow", () => {
  it.each([
    [1, 168],
    [2, 167],
    [3, 48],
    [4, 14],
    [5, 1],
  ])("scores every point of series %d against the %d before it as sorting them does, to the bit", (seed, width) => {
    const values = series(seed, 700);
    const window = new SortedWindow(4);
    for (let i = 0; i < values.length; i++) {
      if (i >= width) {
        expect(window.size).toBe(width);
        expect(window.score(values[i]!, 0.05, 0.01)).toEqual(
          plainScore(values[i]!, values.slice(i - width, i), 0.05, 0.01),
        );
        window.remove(values[i - width]!);
      }
      window.insert(values[i]!);
    }
  });

  it("holds what it is filled with, and refuses to remove a value it does not hold", () => {
    const window = new SortedWindow();
    window.fill([5, 1, 3, 3]);
    expect([window.size, window.median(), window.mad(3)]).toEqual([4, 3, 1]);
    expect(() => window.remove(4)).toThrow(/not in the window/);
  });
});
