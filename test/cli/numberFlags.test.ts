import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/runCli.js";

// What a script writer meets: a number flag given a word is refused by that word (yargs reads it
// as NaN, and "bad --max-lag NaN" did not say what was typed), and a billing file written says so.

let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cloudunits-number-flags-"));
  const run = await runCli([
    "generate",
    "--out",
    join(dir, "data.zip"),
    "--accounts",
    "1",
    "--hours",
    "2",
    "--start",
    "2026-10-01",
  ]);
  expect(run.code, run.stderr).toBe(0);
}, 60_000);
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("a number flag given something else", () => {
  it.each([
    [["status", "--db", "w.duckdb", "--max-lag", "abc"], `bad --max-lag "abc": give a number`],
    [["status", "--db", "w.duckdb", "--max-lag=12h"], `bad --max-lag "12h": give a number`],
    [["serve", "--db", "w.duckdb", "--port", "80a"], `bad --port "80a": give a number`],
    [["generate", "--out", "x.zip", "--hours", "ten"], `bad --hours "ten": give a number`],
    [["billing", "data.zip", "--month", "2026-10", "--account-id", "first"], `bad --account-id "first": give a number`],
  ])("%j is a usage error naming what was given", async (args, message) => {
    const run = await runCli(args);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 2, stderr: `cloudunits: ${message}\n` });
  });

  it("a number, written as one, still reaches the command's own check", async () => {
    const run = await runCli(["status", "--db", join(dir, "none.duckdb"), "--max-lag", "-1"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("bad --max-lag -1: use a number of hours, 0 or more");
  });
});

describe("billing --out says what it wrote, as the other writers do", () => {
  it.each([
    ["xlsx", "bill.xlsx", []],
    ["csv", "bill.csv", []],
    ["xlsx", "invoices", ["--per-account", "--prices", join(import.meta.dirname, "../../examples/prices.yaml")]],
  ] as const)("--format %s --out %s", async (format, out, more) => {
    const run = await runCli([
      "billing",
      join(dir, "data.zip"),
      "--month",
      "2026-10",
      "--format",
      format,
      ...more,
      "--out",
      join(dir, out),
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(
      `cloudunits: wrote ${format}${more.length > 0 ? " workbooks" : ""} to ${join(dir, out)}\n`,
    );
    expect(statSync(join(dir, out)).size).toBeGreaterThan(0);
    expect(run.stdout).toBe("");
  });
});
