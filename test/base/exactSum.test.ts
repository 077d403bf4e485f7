import { describe, expect, it } from "vitest";
import { exactSum, SumBank, twoProductError } from "../../src/base/exactSum.js";

describe("SumBank.addTimes: n copies of a double, exactly", () => {
  it("keeps the product's rounding error: 3 × 0.1 less the double 3 * 0.1 is -2^-55, not 0", () => {
    // 0.1 is 0.1000000000000000055511151231257827...; 3 × that is 0.3000000000000000166533...,
    // a tie between the doubles 0.29999999999999998890 and 0.30000000000000004441, rounded to the even one (the latter)
    expect(3 * 0.1).toBe(0.30000000000000004);
    const bank = new SumBank();
    const i = bank.alloc(1);
    bank.addTimes(i, 0.1, 3);
    bank.add(i, -0.30000000000000004);
    expect(bank.value(i)).toBe(-(2 ** -55));
    expect(twoProductError(0.1, 3, 3 * 0.1)).toBe(-(2 ** -55));
  });

  it("gives the sum of adding the copies one by one, with other terms, to the bit (TU amounts like iops/400)", () => {
    const cases: [number, number][] = [
      [333 / 400, 100_003],
      [1001 / 400, 4368],
      [7 / 1024, 5],
      [0.1, 10],
      [1 / 3, 2 ** 20 + 1],
      [123.456, 1],
    ];
    for (const [x, n] of cases) {
      const bank = new SumBank();
      const times = bank.alloc(1);
      const ones = bank.alloc(1);
      for (const b of [times, ones]) bank.add(b, 1e-7);
      bank.addTimes(times, x, n);
      for (let k = 0; k < n; k++) bank.add(ones, x);
      bank.add(times, -x * n);
      bank.add(ones, -x * n);
      expect(bank.value(times), `${x} × ${n}`).toBe(bank.value(ones));
    }
    // and the same as the order-free sum of every term written out
    expect(exactSum([...Array(7).fill(333 / 400), 5 / 400])).toBe(
      (() => {
        const bank = new SumBank();
        const i = bank.alloc(1);
        bank.addTimes(i, 333 / 400, 7);
        bank.add(i, 5 / 400);
        return bank.value(i);
      })(),
    );
  });
});
