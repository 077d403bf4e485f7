import http from "node:http";
import https from "node:https";
import { FetchError, UsageError } from "../base/errors.js";

/** How `notify` posts. */
export interface NotifyOptions {
  /** Longest silence from the webhook, ms; default 10 000. */
  timeoutMs?: number;
}

/**
 * A webhook address as messages show it: scheme, host and port only. Its path and query often
 * are its secret (a chat hook's token), so neither is ever written.
 */
export function webhookDisplay(url: URL): string {
  return `${url.protocol}//${url.host}/…`;
}

/**
 * POSTs `body` as JSON to a webhook and resolves when it answers 2xx. A redirect is not
 * followed (the JSON would go to an address nobody gave); any other answer, a timeout or a
 * network failure is a FetchError whose message names the host only, never the path, query or
 * user info of the address.
 */
export async function notify(address: string, body: unknown, options: NotifyOptions = {}): Promise<{ status: number }> {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    throw new UsageError("bad --notify address: not a URL (use http:// or https://)");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new UsageError(`bad --notify address: ${url.protocol} (use http:// or https://)`);
  const timeoutMs = options.timeoutMs ?? 10_000;
  const payload = Buffer.from(JSON.stringify(body));
  const where = webhookDisplay(url);
  const headers: Record<string, string> = { "content-type": "application/json", "content-length": String(payload.length), "user-agent": "cloudunits" };
  if (url.username !== "" || url.password !== "") {
    headers.authorization = `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString("base64")}`;
  }
  const target = new URL(url);
  target.username = "";
  target.password = "";
  return new Promise((resolve, reject) => {
    const transport = url.protocol === "https:" ? https : http;
    const req = transport.request(target, { method: "POST", headers, agent: false });
    req.setTimeout(timeoutMs, () => req.destroy(new FetchError("NOTIFY_TIMEOUT", `the webhook at ${where} did not answer within ${timeoutMs / 1000} s`)));
    req.on("error", (error) => {
      if (error instanceof FetchError) reject(error);
      else {
        const code = (error as { code?: unknown }).code;
        reject(new FetchError("NOTIFY_NETWORK", `posting the alerts to the webhook at ${where} failed: ${typeof code === "string" ? code : "network error"}`));
      }
    });
    req.on("response", (response) => {
      response.resume();
      const status = response.statusCode ?? 0;
      if (status >= 200 && status < 300) {
        response.on("end", () => resolve({ status }));
        return;
      }
      const why = status >= 300 && status < 400
        ? "a redirect, not followed: give the webhook's final address"
        : "not accepted";
      req.destroy();
      reject(new FetchError("NOTIFY_HTTP", `the webhook at ${where} answered ${status} (${why})`, { status }));
    });
    req.end(payload);
  });
}
