import http from "node:http";
import https from "node:https";
import { FetchError, UsageError } from "../base/errors.js";

/** How `notify` posts. */
export interface NotifyOptions {
  /** Deadline of the whole exchange (connecting, sending, the answer's headers), ms; default `NOTIFY_LIMITS.deadlineMs`. */
  timeoutMs?: number;
}

/** What a webhook may cost (docs/safety.md): a deadline for the whole exchange, and what is read of its answer. */
export const NOTIFY_LIMITS = {
  /** Connecting, sending and the answer's status and headers, all within this many ms. */
  deadlineMs: 10_000,
  /** The answer's headers are read up to this many bytes (more is a failed exchange); its body is never read. */
  headerBytes: 16 * 1024,
} as const;

/** A webhook address, checked: where to post, how to show it, and the basic authentication its user info gives. */
export interface WebhookAddress {
  /** The address without its user info. */
  target: URL;
  /** Scheme, host and port only (see `webhookDisplay`). */
  display: string;
  /** `Basic …` from the address's user info, if it has any. */
  authorization?: string;
}

/**
 * A webhook address as messages show it: scheme, host and port only. Its path and query often
 * are its secret (a chat hook's token), so neither is ever written.
 */
export function webhookDisplay(url: URL): string {
  return `${url.protocol}//${url.host}/…`;
}

/**
 * Checks a webhook address (`--notify`): an http(s) URL whose user info, if any, is valid
 * percent-encoding. A UsageError of one line otherwise, which never repeats the address (its
 * user info, path and query may be secrets).
 */
export function webhookAddress(address: string): WebhookAddress {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    throw new UsageError("bad webhook address: not a URL (use http:// or https://)");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new UsageError(`bad webhook address: ${url.protocol} (use http:// or https://)`);
  let authorization: string | undefined;
  if (url.username !== "" || url.password !== "") {
    let user: string;
    let password: string;
    try {
      user = decodeURIComponent(url.username);
      password = decodeURIComponent(url.password);
    } catch {
      throw new UsageError(
        "bad webhook address: its user name or password holds a malformed %-escape (write a % sign as %25)",
      );
    }
    authorization = `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
  }
  const target = new URL(url);
  target.username = "";
  target.password = "";
  return { target, display: webhookDisplay(url), ...(authorization === undefined ? {} : { authorization }) };
}

/**
 * POSTs `body` as JSON to a webhook and resolves when it answers 2xx. The whole exchange has a
 * deadline (`timeoutMs`), and only the answer's status and headers are read (at most
 * `NOTIFY_LIMITS.headerBytes`), never its body: a webhook that trickles its answer or sends
 * one without end cannot hold the caller. A redirect is not followed (the JSON would go to an
 * address nobody gave); any other answer, the deadline or a network failure is a FetchError
 * whose message names the host only, never the path, query or user info of the address.
 */
export async function notify(
  address: string | WebhookAddress,
  body: unknown,
  options: NotifyOptions = {},
): Promise<{ status: number }> {
  const { target, display: where, authorization } = typeof address === "string" ? webhookAddress(address) : address;
  const timeoutMs = options.timeoutMs ?? NOTIFY_LIMITS.deadlineMs;
  const payload = Buffer.from(JSON.stringify(body));
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "content-length": String(payload.length),
    "user-agent": "cloudunits",
  };
  if (authorization !== undefined) headers.authorization = authorization;
  return new Promise((resolve, reject) => {
    const transport = target.protocol === "https:" ? https : http;
    const req = transport.request(target, {
      method: "POST",
      headers,
      agent: false,
      maxHeaderSize: NOTIFY_LIMITS.headerBytes,
    });
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      outcome();
      req.destroy(); // nothing more is read: the answer's body, if any, is left unread
    };
    const deadline = setTimeout(
      () =>
        settle(() =>
          reject(
            new FetchError("NOTIFY_TIMEOUT", `the webhook at ${where} did not answer within ${timeoutMs / 1000} s`),
          ),
        ),
      timeoutMs,
    );
    req.on("error", (error) =>
      settle(() => {
        const code = (error as { code?: unknown }).code;
        reject(
          code === "HPE_HEADER_OVERFLOW"
            ? new FetchError(
                "NOTIFY_HTTP",
                `the webhook at ${where} answered with headers over ${NOTIFY_LIMITS.headerBytes / 1024} KiB (not read)`,
              )
            : new FetchError(
                "NOTIFY_NETWORK",
                `posting the alerts to the webhook at ${where} failed: ${typeof code === "string" ? code : "network error"}`,
              ),
        );
      }),
    );
    req.on("response", (response) => {
      const status = response.statusCode ?? 0;
      if (status >= 200 && status < 300) return settle(() => resolve({ status }));
      const why =
        status >= 300 && status < 400 ? "a redirect, not followed: give the webhook's final address" : "not accepted";
      settle(() =>
        reject(new FetchError("NOTIFY_HTTP", `the webhook at ${where} answered ${status} (${why})`, { status })),
      );
    });
    req.end(payload);
  });
}
