import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import {
  formatBytesLine,
  formatFilesLine,
  formatStepsLine,
  progressEnabled,
  startBytesProgress,
  startFilesProgress,
} from "../../src/cli/progress.js";

function captureStream(isTTY: boolean): { stream: PassThrough & { isTTY?: boolean }; text: () => string } {
  const stream: PassThrough & { isTTY?: boolean } = new PassThrough();
  stream.isTTY = isTTY;
  const chunks: Buffer[] = [];
  stream.on("data", (chunk: Buffer) => chunks.push(chunk));
  return { stream, text: () => Buffer.concat(chunks).toString("utf8") };
}

describe("progress", () => {
  it.each([
    { isTTY: true, CI: undefined, shown: true },
    { isTTY: true, CI: "true", shown: false },
    { isTTY: true, CI: "", shown: true },
    { isTTY: false, CI: undefined, shown: false },
  ])("is shown only on a terminal outside CI (tty $isTTY, CI $CI)", ({ isTTY, CI, shown }) => {
    const { stream } = captureStream(isTTY);
    expect(progressEnabled({ stream, env: CI === undefined ? {} : { CI } })).toBe(shown);
  });

  it("writes nothing on a pipe", () => {
    const { stream, text } = captureStream(false);
    const files = startFilesProgress("ingest", { stream, env: {} });
    files.update({ filesDone: 1, filesTotal: 2, bytesDone: 10, bytesTotal: 20 });
    files.stop();
    const bytes = startBytesProgress("fetch", { stream, env: {} });
    bytes.update(5, 10);
    bytes.stop();
    expect(text()).toBe("");
  });

  it("draws nothing before the first update", () => {
    const { stream, text } = captureStream(true);
    startBytesProgress("fetch", { stream, env: {} }).stop();
    startFilesProgress("ingest", { stream, env: {} }).stop();
    expect(text()).toBe("");
  });

  it("draws the files bar on a terminal", () => {
    const { stream, text } = captureStream(true);
    const files = startFilesProgress("ingest", { stream, env: {} });
    files.update({ filesDone: 3, filesTotal: 4, bytesDone: 3_000_000, bytesTotal: 4_000_000 });
    files.stop();
    expect(text()).toContain("3/4 files | 3.0/4.0 MB");
  });

  it.each([
    // 2.5 of 10 MB in 5 s → 0.5 MB/s, 7.5 MB left → 15 s
    {
      done: 2_500_000,
      total: 10_000_000,
      elapsed: 5,
      line: "get [██████░░░░░░░░░░░░░░░░░░] 25% | 2.5/10.0 MB | 0.5 MB/s | ETA 15s",
    },
    // size unknown: no bar, no ETA
    { done: 3_000_000, total: undefined, elapsed: 2, line: "get 3.0 MB | 1.5 MB/s" },
    // nothing yet: ETA unknown
    {
      done: 0,
      total: 1_000_000,
      elapsed: 0,
      line: "get [░░░░░░░░░░░░░░░░░░░░░░░░] 0% | 0.0/1.0 MB | 0.0 MB/s | ETA ?",
    },
  ])("the bytes bar shows size, rate and ETA ($line)", ({ done, total, elapsed, line }) => {
    expect(formatBytesLine("get", done, total, elapsed)).toBe(line);
  });

  it.each([
    // 1 of 4 MB in 30 s → 3 MB left at 1/30 MB/s → 90 s
    {
      state: { filesDone: 10, filesTotal: 40, bytesDone: 1_000_000, bytesTotal: 4_000_000 },
      elapsed: 30,
      line: "ingest [██████░░░░░░░░░░░░░░░░░░] 25% | 10/40 files | 1.0/4.0 MB | ETA 1m30s",
    },
    // 1 of 2 h of work done in 1 h
    {
      state: { filesDone: 1, filesTotal: 2, bytesDone: 500_000, bytesTotal: 1_000_000 },
      elapsed: 3600,
      line: "ingest [████████████░░░░░░░░░░░░] 50% | 1/2 files | 0.5/1.0 MB | ETA 1h00m",
    },
  ])("the files bar shows files, megabytes and ETA ($line)", ({ state, elapsed, line }) => {
    expect(formatFilesLine("ingest", state, elapsed)).toBe(line);
  });

  it.each([
    // 48 of 120 hours in 10 s: 40% (10 of 24 cells), 72 hours left at 4.8 hours/s
    {
      done: 48,
      total: 120,
      elapsed: 10,
      line: "syncing [██████████░░░░░░░░░░░░░░] 40% | 48/120 hours | account 7 2026-10-03 download | ETA 15s",
    },
    // nothing done yet: no rate, so no ETA
    {
      done: 0,
      total: 24,
      elapsed: 3,
      line: "syncing [░░░░░░░░░░░░░░░░░░░░░░░░] 0% | 0/24 hours | account 7 2026-10-03 download | ETA ?",
    },
  ])(
    "the sync bar shows hours done of all accounts' hours, the chunk in hand and ETA ($line)",
    ({ done, total, elapsed, line }) => {
      expect(formatStepsLine("syncing", "hours", done, total, "account 7 2026-10-03 download", elapsed)).toBe(line);
    },
  );
});
