/**
 * A busy server's `Retry-After` (429, 503) is waited, in seconds or as an HTTP date, capped; without
 * one, the backoff is jittered. Against a real server on 127.0.0.1.
 */
import { describe, expect, it } from "vitest";
import { FetchError } from "../../src/index.js";
import { callService } from "../../src/fetch/callService.js";
import { retryAfterMs } from "../../src/fetch/retryAfter.js";
import { policyOf, type ServiceSession } from "../../src/fetch/serviceSession.js";
import { withRetries } from "../../src/fetch/withRetries.js";
import { serversPerTest } from "./fakeService.js";

const serve = serversPerTest();
const PATH = "/restmachine/cloudapi/accounts/list";

/** A server that answers `busy` (status and headers) to the first `times` calls, then `[]`; the times each call came, ms. */
async function busyServer(times: number, busy: { status: number; headers: Record<string, string> }) {
  const at: number[] = [];
  const server = await serve((_request, response) => {
    at.push(performance.now());
    if (at.length <= times)
      response.writeHead(busy.status, { ...busy.headers, "content-type": "text/plain" }).end("busy");
    else response.writeHead(200, { "content-type": "application/json" }).end("[]");
  });
  const session = (options: Parameters<typeof policyOf>[0] & { maxRetryAfterMs?: number }): ServiceSession => ({
    baseUrl: server.url,
    policy: { ...policyOf(options), ...(options.maxRetryAfterMs ? { maxRetryAfterMs: options.maxRetryAfterMs } : {}) },
    credentials: { kind: "bearer", token: "t0ken-for-tests" },
    secrets: [],
  });
  const gaps = () => at.slice(1).map((t, i) => t - at[i]!);
  return { session, gaps, calls: () => at.length };
}

describe("Retry-After", () => {
  it("a 503 with Retry-After: 1 is tried again after a second, though the backoff would retry at once", async () => {
    const server = await busyServer(1, { status: 503, headers: { "retry-after": "1" } });
    expect(await callService(server.session({ retries: 2, retryDelayMs: 0 }), "POST", PATH)).toEqual([]);
    expect(server.calls()).toBe(2);
    expect(server.gaps()[0]).toBeGreaterThanOrEqual(950); // 1 s asked, timer slack of 50 ms
    expect(server.gaps()[0]).toBeLessThan(3000);
  });

  it("a 429 with an HTTP date two seconds ahead is tried again about then", async () => {
    // an HTTP date has whole seconds: 2 s ahead, rounded down, is 1 to 2 s from now
    const date = new Date(Math.floor(Date.now() / 1000) * 1000 + 2000).toUTCString();
    const server = await busyServer(1, { status: 429, headers: { "retry-after": date } });
    expect(await callService(server.session({ retries: 1, retryDelayMs: 0 }), "GET", PATH)).toEqual([]);
    expect(server.gaps()[0]).toBeGreaterThanOrEqual(900);
    expect(server.gaps()[0]).toBeLessThan(3500);
  });

  it("a Retry-After of an hour is capped (here at 300 ms), and the error says so once the retries are spent", async () => {
    const server = await busyServer(5, { status: 503, headers: { "retry-after": "3600" } });
    const error = await callService(
      server.session({ retries: 1, retryDelayMs: 0, maxRetryAfterMs: 300 }),
      "POST",
      PATH,
    ).catch((e: unknown) => e as FetchError);
    expect(error).toBeInstanceOf(FetchError);
    expect((error as FetchError).status).toBe(503);
    expect((error as FetchError).retryAfterMs).toBe(3_600_000);
    expect((error as FetchError).message).toContain("(gave up after 2 attempts)");
    expect(server.calls()).toBe(2);
    expect(server.gaps()[0]).toBeGreaterThanOrEqual(280);
    expect(server.gaps()[0]).toBeLessThan(2000);
  });

  it("a wait that would pass the call's deadline is not waited: the call gives up at once", async () => {
    const server = await busyServer(5, { status: 503, headers: { "retry-after": "30" } });
    const started = performance.now();
    const error = await callService(
      server.session({ retries: 3, retryDelayMs: 0, deadlineMs: 5000 }),
      "POST",
      PATH,
    ).catch((e: unknown) => e as Error);
    expect((error as Error).message).toContain("(not retried: the deadline would pass)");
    expect(server.calls()).toBe(1);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it("reads seconds and HTTP dates; anything else is no Retry-After", () => {
    const now = Date.parse("2026-10-21T07:28:00Z");
    expect(retryAfterMs("120", now)).toBe(120_000);
    expect(retryAfterMs("Wed, 21 Oct 2026 07:28:30 GMT", now)).toBe(30_000);
    expect(retryAfterMs("Wed, 21 Oct 2026 07:00:00 GMT", now)).toBe(0); // a date past: no wait
    for (const bad of [undefined, "", "soon", "-5", "1.5", "2026-10-21"])
      expect(retryAfterMs(bad, now)).toBeUndefined();
  });
});

describe("backoff without Retry-After", () => {
  it("waits a random time up to retryDelayMs, then up to twice and four times as long (full jitter)", async () => {
    const draws = [0.5, 0.25, 1];
    const errors = [1, 2, 3].map(() => new FetchError("FETCH_HTTP", "HTTP 500", { status: 500 }));
    let calls = 0;
    const started = performance.now();
    const result = await withRetries(
      async () => {
        const error = errors[calls++];
        if (error) throw error;
        return "done";
      },
      { retries: 3, retryDelayMs: 200, random: () => draws.shift()! },
    );
    expect(result).toBe("done");
    // 0.5 × 200 + 0.25 × 400 + 1 × 800 = 100 + 100 + 800 = 1000 ms, where the bounds alone would be 1400
    const waited = performance.now() - started;
    expect(waited).toBeGreaterThanOrEqual(980);
    expect(waited).toBeLessThan(1350);
    expect(draws).toEqual([]);
  });
});
