import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateCommand } from "../../src/cli/commands/generate.js";
import { exitCodeFor } from "../../src/cli/exitCode.js";
import { UsageError } from "../../src/index.js";
import { inProcessCli } from "../helpers/inProcessCli.js";

let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "cloudunits-generate-cli-"));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Parses and runs `cloudunits <args>` in process, as src/cli/main.ts does; returns what it wrote on stderr, or throws its error. */
async function cli(...args: string[]): Promise<string> {
  const run = await inProcessCli([generateCommand], args);
  if (run.error !== undefined) throw run.error;
  return run.stderr;
}

describe("cloudunits generate", () => {
  it("writes the data set and prints a one-line summary on stderr", async () => {
    const out = join(root, "tree");
    const stderr = await cli(
      "generate",
      "--out",
      out,
      "--accounts",
      "1",
      "--spaces",
      "1",
      "--machines",
      "2",
      "--hours",
      "3",
      "--start",
      "2026-11-05T07:00Z",
      "--seed",
      "5",
      "--missing-hours",
      "0.34",
      "--packed",
    );
    expect(stderr).toMatch(/^cloudunits: wrote 2 files, [\d.]+ MB, 2 account-hours to .*tree\n$/);
    const present = [7, 8, 9].filter((h) => existsSync(join(out, `1/2026/11/5/${h}/account_capnp.bin.packed`)));
    expect(present).toHaveLength(2);
  });

  it("drops the listed hours, given as times, from every account", async () => {
    const out = join(root, "listed");
    const stderr = await cli(
      "generate",
      "--out",
      out,
      "--hours",
      "4",
      "--missing-hours",
      "2026-10-01T01:00Z,1790820000",
    );
    expect(stderr).toMatch(/wrote 4 files, .* 4 account-hours/);
    expect(existsSync(join(out, "1/2026/10/1/0"))).toBe(true);
    expect(existsSync(join(out, "1/2026/10/1/1"))).toBe(false);
    expect(existsSync(join(out, "2/2026/10/1/2"))).toBe(false);
  });

  it("reports the zip's size when out is a zip", async () => {
    const stderr = await cli("generate", "--out", join(root, "c.zip"), "--hours", "2", "--cloudspace-files");
    expect(stderr).toMatch(/^cloudunits: wrote 8 files, [\d.]+ MB, zip [\d.]+ MB, 4 account-hours to .*c\.zip\n$/);
  });

  it.each([
    ["a start off the hour", ["--start", "2026-10-01T00:30Z"], /start/],
    ["a start that is no time", ["--start", "soon"], /start/],
    ["a misspelt flag", ["--acounts", "3"], /acounts/],
    ["a count that is no number", ["--accounts", "many"], /accounts/],
    ["a segment size of 0 words", ["--segment-words", "0"], /segmentWords/],
    ["a missing-hours fraction above 1", ["--missing-hours", "1.5"], /missing-hours/],
  ])("refuses %s with a usage error (exit 2)", async (_name, args, message) => {
    const out = join(root, `never-${args[0]}-${args[1]}`);
    const error = await cli("generate", "--out", out, ...args).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(message);
    expect(exitCodeFor(error)).toBe(2);
    expect(existsSync(out)).toBe(false);
  });
});
