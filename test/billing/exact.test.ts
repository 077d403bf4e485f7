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

  it.each([
    { a: "12.30", b: "0.05", difference: "12.25", order: 1 },
    { a: "0.1", b: "0.3", difference: "-0.2", order: -1 },
    { a: "-1.5", b: "-1.50", difference: "0", order: 0 },
    { a: "40/720", b: "0.0556", difference: "-0.0000444…", order: -1 },
  ])("$a − $b is $difference, and $a compares to $b as $order", ({ a, b, difference, order }) => {
    const of = (text: string) =>
      text.includes("/") ? Exact.of(BigInt(text.split("/")[0]!), BigInt(text.split("/")[1]!)) : Exact.parse(text)!;
    const d = of(a).sub(of(b));
    expect(d.toDecimalString() ?? `${d.toFixed(7)}…`).toBe(difference);
    expect(of(a).compare(of(b))).toBe(order);
    expect(of(b).compare(of(a))).toBe(-order || 0);
  });

  it("sorts amounts largest first by compare, as exact decimals and not as text or floats", () => {
    const amounts = ["9.99", "10.00", "0.10", "100", "10"].map((t) => Exact.parse(t)!);
    expect(amounts.sort((x, y) => y.compare(x)).map((x) => x.toFixed(2))).toEqual([
      "100.00",
      "10.00",
      "10.00",
      "9.99",
      "0.10",
    ]);
  });

  it("rejects text that is not a decimal number", () => {
    expect(Exact.parse("1,5")).toBeUndefined();
    expect(Exact.parse("")).toBeUndefined();
    expect(Exact.parse(".")).toBeUndefined();
  });

  it("keeps an amount's written decimals in its JSON and text, and loses them in arithmetic", () => {
    const recorded = Exact.amount("12.30");
    expect(JSON.stringify({ gross: recorded })).toBe('{"gross":"12.30"}');
    expect(`${recorded} EUR`).toBe("12.30 EUR");
    expect(String(Exact.amount("47241"))).toBe("47241"); // JPY, no decimals
    expect(recorded.equals(Exact.parse("12.3")!)).toBe(true);
    // 12.30 + 0.70 = 13.00: a sum is computed, not written, so it prints its exact decimal
    expect(recorded.add(Exact.amount("0.70")).toJSON()).toBe("13");
    // 1/3 rounded at 2 decimals, written with them: 0.33; 0.125 half-even at 2: 0.12; 5 at 2: 5.00
    expect(Exact.of(1, 3).fixed(2).toJSON()).toBe("0.33");
    expect(Exact.parse("0.125")!.fixed(2).toJSON()).toBe("0.12");
    expect(Exact.of(5).fixed(2).toString()).toBe("5.00");
    expect(() => Exact.amount("12,30")).toThrow(RangeError);
  });
});
