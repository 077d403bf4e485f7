/** Downloads are bounded: in size, in total time, and a full disk is not refilled by retries. */
import type http from "node:http";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EnvironmentError, FetchError, fetchConsumption } from "../../src/index.js";
import type { FetchConsumptionOptions } from "../../src/index.js";
import { downloadToFile } from "../../src/fetch/downloadToFile.js";
import { httpRequest, isTransient } from "../../src/fetch/httpRequest.js";
import { withRetries } from "../../src/fetch/withRetries.js";
import { runCli } from "../helpers/runCli.js";
import {
  CONSUMPTION_PATH,
  SECRETS,
  platform,
  serversPerTest,
  sessionFetchOptions,
  type FakeServer,
  type Handler,
} from "./fakeService.js";

const START = 1790812800; // 2026-10-01T00:00Z
const MIB = 1024 * 1024;
const ZIP_START = Buffer.from("PK\x03\x04", "latin1");

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "cloudunits-limits-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const serve = serversPerTest();

let outCount = 0;
const options = (server: FakeServer, overrides: Partial<FetchConsumptionOptions> = {}) =>
  sessionFetchOptions(server, join(dir, `out-${++outCount}`, "consumption.zip"), overrides);

/** A body that starts like a zip and never ends (no Content-Length): 64 KiB at a time, as fast as the client reads. Counts what was sent. */
function endlessZip(sent: { bytes: number }): Handler {
  const block = Buffer.concat([ZIP_START, Buffer.alloc(64 * 1024 - ZIP_START.length)]);
  return (_request, response) => {
    response.writeHead(200, { "content-type": "application/zip" });
    const write = () => {
      while (!response.destroyed) {
        sent.bytes += block.length;
        if (!response.write(block)) return void response.once("drain", write);
      }
    };
    write();
  };
}

/** One byte of a zip's start every `everyMs`: never silent for long, never done. */
function tricklingZip(everyMs: number): Handler {
  return (_request, response: http.ServerResponse) => {
    response.writeHead(200, { "content-type": "application/zip", "content-length": "1000000" });
    let i = 0;
    const timer = setInterval(() => {
      if (response.destroyed) return clearInterval(timer);
      response.write(ZIP_START.subarray(i % 4, (i % 4) + 1));
      i++;
    }, everyMs);
    response.on("close", () => clearInterval(timer));
  };
}

const filesIn = async (out: string) => readdir(join(out, "..")).catch(() => []);

describe("download size cap", () => {
  it("an endless body is cut off at maxDownloadBytes, refused (FETCH_TOO_LARGE), not retried, and nothing is left on disk", async () => {
    const sent = { bytes: 0 };
    const server = await serve(platform(endlessZip(sent)));
    const opts = options(server, { maxDownloadBytes: 2 * MIB, retries: 3 });
    const error = await fetchConsumption(opts).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FetchError);
    expect(error).toMatchObject({ code: "FETCH_TOO_LARGE" });
    expect((error as Error).message).toMatch(
      /went on past 2097152 bytes \(2 MiB\), more than the limit of 2097152 bytes \(2 MiB\)/,
    );
    expect((error as Error).message).toContain("raise maxDownloadBytes if the archive is genuinely that large"); // the option; the CLI says the flag (below)
    expect(server.seenAt(CONSUMPTION_PATH)).toHaveLength(1);
    expect(sent.bytes).toBeLessThan(64 * MIB); // socket buffers only, not an endless file
    expect(await filesIn(opts.out)).toEqual([]);
  });

  it("an announced length over the cap is refused before the body is read", async () => {
    const server = await serve(
      platform((_request, response) => {
        response.writeHead(200, { "content-type": "application/zip", "content-length": String(5 * 1024 ** 3) });
        response.write(ZIP_START);
      }),
    );
    const opts = options(server, { maxDownloadBytes: MIB });
    const error = await fetchConsumption(opts).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "FETCH_TOO_LARGE" });
    expect((error as Error).message).toContain(
      "announced 5368709120 bytes (5120 MiB), more than the limit of 1048576 bytes (1 MiB)",
    );
    expect(server.seenAt(CONSUMPTION_PATH)).toHaveLength(1);
    expect(await filesIn(opts.out)).toEqual([]);
  });

  it("the CLI takes the cap in MiB (--max-download-mib) and exits 4 naming it", async () => {
    const server = await serve(platform(endlessZip({ bytes: 0 })));
    const run = await runCli(
      [
        "fetch",
        "--url",
        server.url,
        "--account-id",
        "7",
        "--start",
        String(START),
        "--end",
        String(START + 3600),
        "--out",
        join(dir, "cli.zip"),
        "--max-download-mib",
        "1",
      ],
      { CLOUDUNITS_USERNAME: SECRETS.username, CLOUDUNITS_PASSWORD: SECRETS.password },
    );
    expect(run.stderr).toMatch(
      /the consumption download of account 7 from http:\/\/127\.0\.0\.1:\d+\/restmachine\/cloudapi\/accounts\/getConsumption went on past 1048576 bytes/,
    );
    expect(run.stderr).toContain(
      "raise --max-download-mib if the archive is genuinely that large, or sync in smaller chunks (--chunk day)",
    );
    expect(run.code).toBe(4);
  }, 60_000);
});

describe("download deadline", () => {
  it("a server sending a byte every 50 ms (never silent for the 2 s timeout) is cut off at the deadline, not retried", async () => {
    const server = await serve(platform(tricklingZip(50)));
    const opts = options(server, { deadlineMs: 1500, retries: 3 });
    const error = await fetchConsumption(opts).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FetchError);
    expect(error).toMatchObject({ code: "FETCH_DEADLINE" });
    expect((error as Error).message).toMatch(
      /did not finish within its deadline \(deadlineMs\); it was cut off and not retried: try again later, raise deadlineMs/,
    );
    expect(server.seenAt(CONSUMPTION_PATH)).toHaveLength(1);
    expect(await filesIn(opts.out)).toEqual([]);
  }, 30_000);

  it("retries stop at the deadline: a service failing with 500 is not asked again once the next wait would pass it", async () => {
    const server = await serve(
      platform((_request, response) => response.writeHead(500, { "content-type": "text/plain" }).end("down")),
    );
    const started = performance.now();
    const error = await fetchConsumption(options(server, { retries: 20, retryDelayMs: 200, deadlineMs: 1000 })).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: "FETCH_HTTP", status: 500 });
    // the waits are random (full jitter) up to 200, 400, 800 ms...: how many fit in the second varies, the 21 never
    const attempts = server.seenAt(CONSUMPTION_PATH).length;
    expect((error as Error).message).toContain(`gave up after ${attempts} attempts, at the deadline`);
    expect(attempts).toBeLessThan(21);
    expect(performance.now() - started).toBeLessThan(1000 + 500);
  }, 30_000);
});

describe("a full disk", () => {
  it("is the environment (EnvironmentError DISK_FULL, exit 8), not transient, and the download is asked once, not refilled by retries", async () => {
    const sent = { bytes: 0 };
    const server = await serve(endlessZip(sent));
    let attempts = 0;
    const error = await withRetries(
      async () => {
        attempts++;
        const answer = await httpRequest({
          method: "GET",
          url: new URL(`${server.url}/archive`),
          timeoutMs: 2000,
          maxRedirects: 0,
        });
        return downloadToFile(
          answer,
          "/dev/full",
          { what: "the download", timeoutMs: 2000, maxBytes: 64 * MIB },
          () => {},
        );
      },
      { retries: 3, retryDelayMs: 5 },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EnvironmentError);
    expect(error).toMatchObject({ code: "DISK_FULL", file: "/dev/full" });
    expect((error as Error).message).toBe(
      "cannot write /dev/full: no space left on the device; nothing committed was lost (the partial download was removed, and not retried): free some space (or raise the quota) and run again",
    );
    expect(isTransient(error)).toBe(false);
    expect(attempts).toBe(1);
  });
});
