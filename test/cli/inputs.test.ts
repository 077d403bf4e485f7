import { describe, expect, it } from "vitest";
import { loadNotes, storeSourceOf } from "../../src/cli/inputs.js";
import { UsageError } from "../../src/base/errors.js";

describe("the shared input options", () => {
  it("takes input paths, or --db, exactly one of them", () => {
    expect(storeSourceOf({ inputs: ["a.zip", "tree"] })).toEqual(["a.zip", "tree"]);
    expect(storeSourceOf({ db: "w.duckdb" })).toEqual({ db: "w.duckdb" });
    expect(() => storeSourceOf({ inputs: ["a.zip"], db: "w.duckdb" })).toThrow(UsageError);
    expect(() => storeSourceOf({ inputs: ["a.zip"], db: "w.duckdb" })).toThrow(/not both/);
    expect(() => storeSourceOf({})).toThrow(/name the inputs/);
  });

  it("lists every skipped file with its reason and counts ignored paths; byte-identical duplicates are dropped silently (SPEC 5)", () => {
    expect(loadNotes({
      inputs: ["x"], filesLoaded: 3, accountHours: 3, ignoredPaths: 2,
      duplicates: ["b/7/2026/10/1/0/account_capnp.bin"],
      skipped: [{ file: "a/7/2026/10/1/1/account_capnp.bin", code: "CAPNP_TRUNCATED", reason: "segment 0 declares 9 words, has 2" }],
    })).toEqual([
      "skipped 1 bad file:",
      "  a/7/2026/10/1/1/account_capnp.bin: segment 0 declares 9 words, has 2 [CAPNP_TRUNCATED]",
      "ignored 2 files whose path is not a consumption path",
    ]);
    expect(loadNotes({ inputs: ["x"], filesLoaded: 3, accountHours: 3, ignoredPaths: 0, duplicates: [], skipped: [] })).toEqual([]);
  });
});
