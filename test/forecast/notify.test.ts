import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { FetchError, notify, UsageError } from "../../src/internal.js";
import { startHostileWebhook, startWebhook } from "../helpers/webhook.js";

const secretUrl = (base: string) =>
  `${base.replace("http://", "http://hookuser:hookpass@")}/services/T0/B0/s3cr3t-token?sig=qu3ry-secret`;
const noSecret = (message: string) => {
  for (const secret of ["s3cr3t-token", "qu3ry-secret", "hookuser", "hookpass", "/services"])
    expect(message).not.toContain(secret);
};
/** The error a promise rejects with, and how long it took to settle (ms). */
async function settled(promise: Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = performance.now();
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  return { error, ms: performance.now() - started };
}

describe("notify", () => {
  it("posts the JSON, with the address's user info as basic auth", async () => {
    const hook = await startWebhook(204);
    try {
      await notify(secretUrl(hook.url), { alerts: [1] });
      expect(hook.bodies).toEqual(['{"alerts":[1]}']);
      expect(hook.auth).toEqual([`Basic ${Buffer.from("hookuser:hookpass").toString("base64")}`]);
    } finally {
      hook.server.close();
    }
  });

  it.each([
    [500, /answered 500 \(not accepted\)/],
    [302, /answered 302 \(a redirect, not followed/],
  ])("fails on an answer %d, naming the host only", async (status, message) => {
    const target = await startWebhook(200);
    const hook = await startWebhook(status, `${target.url}/elsewhere`);
    try {
      const error = await notify(secretUrl(hook.url), { a: 1 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FetchError);
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).toContain(`http://127.0.0.1:${new URL(hook.url).port}/…`);
      noSecret((error as Error).message);
      noSecret(JSON.stringify(error) + String((error as Error).stack));
      expect(target.bodies).toEqual([]); // the redirect was not followed
    } finally {
      hook.server.close();
      target.server.close();
    }
  });

  it("gives up on a webhook that does not answer within the deadline", async () => {
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/s3cr3t-token`;
      const error = await notify(url, { alerts: [] }, { timeoutMs: 300 }).catch((e: unknown) => e);
      expect((error as FetchError).code).toBe("NOTIFY_TIMEOUT");
      noSecret((error as Error).message);
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });

  it("gives up at the deadline on a webhook that trickles its headers a byte at a time", async () => {
    const hostile = await startHostileWebhook("trickled-headers", 50);
    try {
      // a byte every 50 ms never leaves the line silent: the deadline is of the whole exchange
      const { error, ms } = await settled(notify(`${hostile.url}/s3cr3t-token`, { alerts: [] }, { timeoutMs: 600 }));
      expect((error as FetchError).code).toBe("NOTIFY_TIMEOUT");
      expect((error as Error).message).toMatch(/did not answer within 0\.6 s/);
      expect(ms).toBeLessThan(3000);
    } finally {
      hostile.close();
    }
  });

  it("is done at the 2xx status of a webhook whose body never ends, reading none of it", async () => {
    const hostile = await startHostileWebhook("endless-body", 20);
    try {
      const started = performance.now();
      await expect(notify(`${hostile.url}/hook`, { alerts: [] }, { timeoutMs: 5000 })).resolves.toEqual({
        status: 200,
      });
      expect(performance.now() - started).toBeLessThan(2500);
    } finally {
      hostile.close();
    }
  });

  it("refuses an answer whose headers pass 16 KiB, without reading on", async () => {
    const hostile = await startHostileWebhook("header-flood");
    try {
      const { error, ms } = await settled(notify(`${hostile.url}/s3cr3t-token`, { alerts: [] }, { timeoutMs: 5000 }));
      expect(error).toBeInstanceOf(FetchError);
      expect((error as Error).message).toMatch(/answered with headers over 16 KiB/);
      expect(ms).toBeLessThan(2500);
    } finally {
      hostile.close();
    }
  });

  it("refuses an address that is not http(s)", async () => {
    await expect(notify("ftp://example/x", {})).rejects.toThrow(/use http:\/\/ or https:\/\//);
  });

  it("refuses user info with a malformed %-escape as bad usage, in one line that does not repeat it", async () => {
    const error = await notify("http://us%zzer:pw%zz@127.0.0.1:9/hook", {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toBe(
      "bad webhook address: its user name or password holds a malformed %-escape (write a % sign as %25)",
    );
  });
});
