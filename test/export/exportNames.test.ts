import { describe, expect, it } from "vitest";
import * as cloudunits from "../../src/index.js";

describe("the exporters' names", () => {
  it("a text is <subject>To<Format>; the previous release's names are the same functions, kept one release", () => {
    expect(cloudunits.toBillingCsv).toBe(cloudunits.billingToCsv);
    expect(cloudunits.toBillingText).toBe(cloudunits.billingToText);
    expect(cloudunits.toFocusCsv).toBe(cloudunits.billingToFocusCsv);
    const exported = Object.keys(cloudunits).filter(
      (name) => typeof (cloudunits as Record<string, unknown>)[name] === "function",
    );
    // every text-giving function but the three deprecated ones reads <subject>To<Format>
    const textNamed = exported.filter((name) => /^to[A-Z]/.test(name));
    expect(textNamed.sort()).toEqual(["toBillingCsv", "toBillingText", "toFocusCsv"]);
  });
});
