import { describe, expect, it } from "vitest";
import { FetchError } from "../../src/index.js";
import { withRetries } from "../../src/fetch/withRetries.js";

function failing(errors: Error[]): { attempt: () => Promise<string>; calls: () => number } {
  let calls = 0;
  return {
    attempt: async () => {
      const error = errors[calls++];
      if (error) throw error;
      return "done";
    },
    calls: () => calls,
  };
}

const http = (status: number) => new FetchError("FETCH_HTTP", `HTTP ${status}`, { status });
const network = (code: string) =>
  new FetchError("FETCH_NETWORK", code, { cause: Object.assign(new Error(code), { code }) });

describe("withRetries", () => {
  it.each([
    { what: "500", error: http(500), retried: true },
    { what: "503", error: http(503), retried: true },
    { what: "429", error: http(429), retried: true },
    { what: "404", error: http(404), retried: false },
    { what: "a refused login", error: new FetchError("FETCH_AUTH", "no", { status: 401 }), retried: false },
    { what: "a reset connection", error: network("ECONNRESET"), retried: true },
    { what: "an unknown host", error: network("ENOTFOUND"), retried: false },
    { what: "a timeout", error: new FetchError("FETCH_TIMEOUT", "slow"), retried: true },
    { what: "a cut-off body", error: new FetchError("FETCH_TRUNCATED", "cut"), retried: true },
    { what: "an HTML page", error: new FetchError("FETCH_NOT_ZIP", "html"), retried: false },
  ])("$what is retried: $retried", async ({ error, retried }) => {
    const run = failing([error]);
    const result = await withRetries(run.attempt, { retries: 1, retryDelayMs: 0 }).catch((e: unknown) => e);
    expect(result).toBe(retried ? "done" : error);
    expect(run.calls()).toBe(retried ? 2 : 1);
  });

  it("waits up to retryDelayMs, then up to twice as long, then four times (here the longest: the jitter drew 1)", async () => {
    const run = failing([http(500), http(500), http(500)]);
    const started = performance.now();
    expect(await withRetries(run.attempt, { retries: 3, retryDelayMs: 40, random: () => 1 })).toBe("done");
    // 40 + 80 + 160 ms of backoff
    expect(performance.now() - started).toBeGreaterThanOrEqual(275);
    expect(run.calls()).toBe(4);
  });

  it("stops after the retries and says how many attempts were made", async () => {
    const run = failing([http(502), http(502), http(502)]);
    const error = await withRetries(run.attempt, { retries: 2, retryDelayMs: 0 }).catch((e: unknown) => e as Error);
    expect(run.calls()).toBe(3);
    expect((error as Error).message).toBe("HTTP 502 (gave up after 3 attempts)");
  });
});
