import { describe, expect, it } from "vitest";
import { BadFileError, BadInputError, ConflictError } from "../../src/index.js";
import { exitCodeFor } from "../../src/cli/exitCode.js";

describe("errors users act on", () => {
  it("a conflict names the account, the hour in UTC and every file", () => {
    const e = new ConflictError(7, 1790812800, [
      "a.zip!7/2026/10/1/0/account_capnp.bin",
      "tree/7/2026/10/1/0/account_capnp.bin",
    ]);
    expect(e.message).toBe(
      "account 7, hour 2026-10-01T00:00:00Z: different files for the same account-hour: " +
        "a.zip!7/2026/10/1/0/account_capnp.bin, tree/7/2026/10/1/0/account_capnp.bin",
    );
    expect(exitCodeFor(e)).toBe(3);
  });

  it("a load with several bad files names each of them, and says how to go on", () => {
    const e = new BadInputError([
      new BadFileError("CAPNP_TRUNCATED", "x/7/2026/10/1/3/account_capnp.bin", "segment 0 declares 212 words, has 98"),
      new ConflictError(7, 1790816400, ["a", "b"]),
    ]);
    expect(e.message).toContain(
      "1 bad input file and 1 account-hour with different files (2 files) (use skipBad: true",
    );
    expect(e.message).toContain("x/7/2026/10/1/3/account_capnp.bin: segment 0 declares 212 words, has 98");
    expect(e.message).toContain("hour 2026-10-01T01:00:00Z");
    expect(exitCodeFor(e)).toBe(3);
  });

  it("conflicts are counted by the files they name: 2 account-hours of 2 files each are 4 files, not '2 bad input files'", () => {
    const e = new BadInputError([
      new ConflictError(7, 1790812800, ["a!x", "b!x"]),
      new ConflictError(7, 1790816400, ["a!y", "b!y"]),
    ]);
    expect(e.message.split("\n")[0]).toBe(
      "2 account-hours with different files (4 files) (use skipBad: true to go on without them):",
    );
    expect(new BadInputError([new BadFileError("CAPNP_TRUNCATED", "c", "short")]).message.split("\n")[0]).toBe(
      "1 bad input file (use skipBad: true to go on without them):",
    );
  });
});
