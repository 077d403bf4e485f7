import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, runCli } from "../helpers/runCli.js";

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "cloudunits-pipe-"));
  const made = await runCli([
    "generate",
    "--out",
    join(root, "d.zip"),
    "--accounts",
    "3",
    "--hours",
    "48",
    "--start",
    "2026-10-01",
  ]);
  expect(made.code).toBe(0);
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Runs `cloudunits ARGS | head -c BYTES`: the reader closes the pipe after its first chunk. */
function runIntoClosedPipe(args: string[]): Promise<{ code: number | null; stderr: string; read: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, CI: "1" } });
    let read = "";
    let stderr = "";
    child.stdout.once("data", (chunk: Buffer) => {
      read = chunk.toString("utf8");
      child.stdout.destroy();
    });
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    child.on("close", (code) => resolve({ code, stderr, read }));
  });
}

describe("a reader that closes the pipe early (cloudunits … | head)", () => {
  it("ends the command quietly with exit 0, where it was an unhandled EPIPE stack trace", async () => {
    const { code, stderr, read } = await runIntoClosedPipe([
      "billing",
      join(root, "d.zip"),
      "--start",
      "2026-10-01",
      "--end",
      "2026-10-03",
      "--format",
      "csv",
      "--detail",
      "hourly",
    ]);
    expect(read).toMatch(/^level,account_id/);
    expect(stderr).toBe("");
    expect(code).toBe(0);
  });
});
