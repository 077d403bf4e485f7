import { describe, expect, it } from "vitest";
import { Exact } from "../../src/index.js";

describe("exact money arithmetic", () => {
  it.each([
    { value: "0.125", decimals: 2, expected: "0.12" },
    { value: "0.135", decimals: 2, expected: "0.14" },
    { value: "2.5", decimals: 0, expected: "2" },
    { value: "3.5", decimals: 0, expected: "4" },
    { value: "-0.125", decimals: 2, expected: "-0.12" },
    { value: "-0.001", decimals: 2, expected: "0.00" },
    { value: "1.005", decimals: 2, expected: "1.00" },
    { value: "1.0051", decimals: 2, expected: "1.01" },
    { value: "7", decimals: 3, expected: "7.000" },
  ])("$value rounds half-even to $expected at $decimals decimals", ({ value, decimals, expected }) => {
    expect(Exact.parse(value)!.toFixed(decimals)).toBe(expected);
  });

  it("0.1 × 3 is exactly 0.3 (no float error)", () => {
    expect(Exact.fromNumber(3).mul(Exact.parse("0.1")!).toDecimalString()).toBe("0.3");
    expect(Exact.parse("0.1")!.add(Exact.parse("0.2")!).equals(Exact.parse("0.3")!)).toBe(true);
  });

  it("a quantity is taken as the decimal it prints as", () => {
    expect(Exact.fromNumber(0.8325).toDecimalString()).toBe("0.8325");
    expect(Exact.fromNumber(1e-7).toDecimalString()).toBe("0.0000001");
  });

  it("a monthly price divided by 720 hours stays exact until rounded", () => {
    const perHour = Exact.parse("40")!.div(Exact.of(720));
    expect(perHour.toDecimalString()).toBeUndefined();
    expect(perHour.mul(Exact.of(720)).toDecimalString()).toBe("40");
    expect(perHour.toFixed(4)).toBe("0.0556");
  });

  it("rejects text that is not a decimal number", () => {
    expect(Exact.parse("1,5")).toBeUndefined();
    expect(Exact.parse("")).toBeUndefined();
    expect(Exact.parse(".")).toBeUndefined();
  });
});
