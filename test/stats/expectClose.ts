import { expect } from "vitest";
import type { SeriesTree } from "../../src/index.js";

/** Deep equality with numbers compared to 12 decimals (sums in SQL may add in another order). */
export function expectClose(actual: SeriesTree, expected: SeriesTree): void {
  if (Array.isArray(expected)) {
    expect(Array.isArray(actual)).toBe(true);
    const values = actual as (number | null)[];
    expect(values).toHaveLength(expected.length);
    expected.forEach((e, i) => {
      if (e === null) expect(values[i]).toBeNull();
      else expect(values[i]).toBeCloseTo(e, 12);
    });
    return;
  }
  expect(Object.keys(actual)).toEqual(Object.keys(expected));
  for (const key of Object.keys(expected)) expectClose((actual as Record<string, SeriesTree>)[key]!, expected[key]!);
}
