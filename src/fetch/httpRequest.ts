import http from "node:http";
import https from "node:https";
import { FetchError, UsageError } from "../base/errors.js";
import { displayUrl, holdsSecret } from "./redact.js";
import type { Credentials } from "./types.js";

/** One HTTP exchange, redirects included. */
export interface HttpRequest {
  method: "GET" | "POST";
  url: URL;
  headers?: Record<string, string>;
  /** A form-encoded body (POST). */
  form?: URLSearchParams;
  /** Sent only to the origin of `url`: never to another host, port or scheme after a redirect. */
  credentials?: Credentials;
  /**
   * Values no other origin may see (login values; the token or key of `credentials` is added):
   * a redirect to another origin whose address holds one, in any encoding, is refused.
   */
  secrets?: readonly string[];
  /** Longest silence from the server, ms (before the answer and between body bytes). */
  timeoutMs: number;
  maxRedirects: number;
  /**
   * When the whole exchange must be over, epoch ms (redirects and the body included): the
   * connection is then cut and reading fails with FETCH_DEADLINE. Default: none.
   */
  deadlineAt?: number;
}

/** The answer, after every redirect: its body is still to be read from `response`. */
export interface HttpResponse {
  response: http.IncomingMessage;
  /** The URL that answered (after redirects). */
  url: URL;
  /** Stops the exchange (destroys the socket). */
  abort(): void;
  /** True once the server stayed silent longer than the timeout (the socket was then destroyed). */
  timedOut(): boolean;
  /** True once the request's deadline passed (the socket was then destroyed). */
  pastDeadline(): boolean;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Network error codes worth a retry: the connection failed or broke, not the address. */
const TRANSIENT_NETWORK = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "EPIPE",
  "ETIMEDOUT",
  "EAI_AGAIN",
  "ENETUNREACH",
  "EHOSTUNREACH",
  "ECONNABORTED",
]);

/** Marks a timeout raised by this module, so it is told apart from other socket errors. */
class SilenceTimeout extends Error {}

/** Marks the end of a request's deadline, raised by this module. */
class DeadlinePassed extends Error {}

/** A plain copy of a low-level error (message and code only): nothing else travels in a cause chain. */
function plainCause(error: unknown): Error {
  const copy = new Error(error instanceof Error ? error.message : String(error));
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string") (copy as Error & { code?: string }).code = code;
  return copy;
}

/** The FetchError for a failed socket, request or body read of `url`. */
export function networkError(error: unknown, url: URL, timeoutMs: number, what = "request to"): FetchError {
  if (error instanceof FetchError) return error;
  if (error instanceof DeadlinePassed) {
    return new FetchError(
      "FETCH_DEADLINE",
      `${what} ${displayUrl(url)} did not finish within its deadline (deadlineMs); it was cut off and not retried: try again later, raise deadlineMs, or ask for less at once`,
    );
  }
  if (error instanceof SilenceTimeout) {
    return new FetchError(
      "FETCH_TIMEOUT",
      `${what} ${displayUrl(url)} timed out: no data for ${timeoutMs / 1000} s; try again later or raise timeoutMs`,
    );
  }
  const code = (error as { code?: unknown } | null)?.code;
  const detail = typeof code === "string" ? code : error instanceof Error ? error.message : String(error);
  const hint =
    code === "ENOTFOUND" ? "check the host name in the URL" : "check the address and the network, then try again";
  return new FetchError("FETCH_NETWORK", `${what} ${displayUrl(url)} failed: ${detail}; ${hint}`, {
    cause: plainCause(error),
  });
}

/** True for failures a retry may cure: 5xx and 429 answers, broken connections, cut-off bodies, timeouts. */
export function isTransient(error: unknown): boolean {
  if (!(error instanceof FetchError)) return false;
  switch (error.code) {
    case "FETCH_TIMEOUT":
    case "FETCH_TRUNCATED":
      return true;
    case "FETCH_HTTP":
      return error.status !== undefined && (error.status >= 500 || error.status === 429);
    case "FETCH_NETWORK": {
      const code = (error.cause as { code?: unknown } | undefined)?.code;
      return typeof code === "string" && TRANSIENT_NETWORK.has(code);
    }
    default:
      return false;
  }
}

/** The URL of one hop with the credentials that hop may carry: the authkey only on the first origin. */
function hopUrl(url: URL, trusted: boolean, credentials: Credentials | undefined): URL {
  const hop = new URL(url);
  hop.searchParams.delete("authkey");
  if (trusted && credentials?.kind === "authkey") hop.searchParams.set("authkey", credentials.key);
  return hop;
}

function sendOnce(
  request: HttpRequest,
  url: URL,
  trusted: boolean,
  method: "GET" | "POST",
  body: string | undefined,
): Promise<HttpResponse> {
  const headers: Record<string, string> = { "user-agent": "cloudunits", ...request.headers };
  if (trusted && request.credentials?.kind === "bearer") headers.authorization = `bearer ${request.credentials.token}`;
  if (body !== undefined) {
    headers["content-type"] = "application/x-www-form-urlencoded";
    headers["content-length"] = String(Buffer.byteLength(body));
  }
  const target = hopUrl(url, trusted, request.credentials);
  const transport = target.protocol === "https:" ? https : http;
  return new Promise<HttpResponse>((resolve, reject) => {
    const req = transport.request(target, { method, headers, agent: false });
    let timedOut = false;
    let pastDeadline = false;
    req.setTimeout(request.timeoutMs, () => {
      timedOut = true;
      req.destroy(new SilenceTimeout());
    });
    const deadline =
      request.deadlineAt === undefined
        ? undefined
        : setTimeout(
            () => {
              pastDeadline = true;
              req.destroy(new DeadlinePassed());
            },
            Math.max(0, request.deadlineAt - Date.now()),
          );
    deadline?.unref();
    req.on("close", () => clearTimeout(deadline));
    req.on("error", (error) => reject(networkError(error, url, request.timeoutMs)));
    req.on("response", (response) => {
      // readers see body errors through their iterator; an aborted body nobody reads must not crash the process
      response.on("error", () => {});
      response.on("close", () => clearTimeout(deadline));
      resolve({
        response,
        url,
        abort: () => req.destroy(),
        timedOut: () => timedOut,
        pastDeadline: () => pastDeadline,
      });
    });
    req.end(body);
  });
}

/** The secrets of `request`: its own and its credentials' token or key. */
function secretsOf(request: HttpRequest): string[] {
  const credential = request.credentials?.kind === "bearer" ? request.credentials.token : request.credentials?.key;
  return [...(request.secrets ?? []), ...(credential === undefined ? [] : [credential])];
}

/**
 * Sends `request`, following up to `maxRedirects` redirects itself. Credentials (the bearer
 * header and the `authkey` parameter) go only to the origin of `request.url`; a redirect to
 * another origin gets neither, a form body (which may hold a password) is never re-sent to
 * another origin, and a redirect to another origin whose address holds a secret of the request
 * anywhere, in any encoding (an `AuthKey=` parameter, a `next=` address holding `authkey%3D…`,
 * a token in `t=`, base64…), is not followed: both are refused with FETCH_REDIRECT_REFUSED.
 */
export async function httpRequest(request: HttpRequest): Promise<HttpResponse> {
  if (request.url.protocol !== "http:" && request.url.protocol !== "https:") {
    throw new UsageError(`bad URL ${displayUrl(request.url)}: use http:// or https://`);
  }
  const origin = request.url.origin;
  let url = request.url;
  let method = request.method;
  let body = request.form?.toString();
  for (let hop = 0; ; hop++) {
    const trusted = url.origin === origin;
    const answer = await sendOnce(request, url, trusted, method, body);
    const status = answer.response.statusCode ?? 0;
    const location = answer.response.headers.location;
    if (!REDIRECTS.has(status) || location === undefined) return answer;
    answer.response.resume();
    answer.abort();
    if (hop >= request.maxRedirects) {
      throw new FetchError(
        "FETCH_REDIRECTS",
        `${displayUrl(request.url)}: more than ${request.maxRedirects} redirects; check the URL`,
        {
          status,
        },
      );
    }
    let next: URL;
    try {
      next = new URL(location, url);
    } catch {
      throw new FetchError("FETCH_HTTP", `${displayUrl(url)} redirected to an invalid address`, { status });
    }
    if (next.protocol !== "http:" && next.protocol !== "https:") {
      throw new FetchError("FETCH_HTTP", `${displayUrl(url)} redirected to an unsupported scheme ${next.protocol}`, {
        status,
      });
    }
    if (next.origin !== origin && holdsSecret(`${location}\n${next.href}`, secretsOf(request))) {
      throw new FetchError(
        "FETCH_REDIRECT_REFUSED",
        `${displayUrl(url)} redirected to another host (${next.origin}) with a secret of this session in the address; refusing to send it there: check the url option, or ask the service's operators`,
        { status },
      );
    }
    const keepsBody = status === 307 || status === 308;
    if (!keepsBody) {
      method = "GET";
      body = undefined;
    } else if (body !== undefined && next.origin !== origin) {
      throw new FetchError(
        "FETCH_REDIRECT_REFUSED",
        `${displayUrl(url)} redirected a login form to another host (${next.origin}); refusing to send credentials there: use that address directly if you trust it`,
        { status },
      );
    }
    url = next;
  }
}

/** The FetchError for a failure while reading the body of `answer`. */
export function bodyError(error: unknown, answer: HttpResponse, timeoutMs: number, what: string): FetchError {
  const cause = answer.pastDeadline() ? new DeadlinePassed() : answer.timedOut() ? new SilenceTimeout() : error;
  return networkError(cause, answer.url, timeoutMs, what);
}

/** Reads a small body as text (at most `maxBytes`), for error messages; gives "" on failure. */
export async function readSmallText(answer: HttpResponse, maxBytes = 64 * 1024): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of answer.response as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= maxBytes) break;
    }
  } catch {
    // the text is only for a message
  } finally {
    answer.abort();
  }
  return Buffer.concat(chunks).subarray(0, maxBytes).toString("utf8");
}

/** `bytes` for a message: `67108864 bytes (64 MiB)`. */
export function bytesText(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${bytes} bytes (${+(bytes / 1024 / 1024).toFixed(1)} MiB)` : `${bytes} bytes`;
}

/**
 * The FetchError FETCH_TOO_LARGE (never retried) when `answer` announces, or `receivedBytes`
 * reaches, more than `maxBytes`; undefined otherwise. `what` names the body, `hint` what to do.
 */
export function tooLargeError(
  answer: HttpResponse,
  receivedBytes: number,
  maxBytes: number,
  what: string,
  hint: string,
): FetchError | undefined {
  const length = answer.response.headers["content-length"];
  const announced = length !== undefined && /^\d+$/.test(length) ? Number(length) : 0;
  if (announced <= maxBytes && receivedBytes <= maxBytes) return undefined;
  const size = announced > maxBytes ? `announced ${bytesText(announced)}` : `went on past ${bytesText(maxBytes)}`;
  return new FetchError(
    "FETCH_TOO_LARGE",
    `${what} from ${displayUrl(answer.url)} ${size}, more than the limit of ${bytesText(maxBytes)}; it was not kept: ${hint}`,
  );
}

/**
 * Reads a whole small body (a token, a key, a JSON answer) as text, with the request's timeout,
 * or throws; a body longer than `maxBytes` is a FetchError FETCH_TOO_LARGE, read no further.
 */
export async function readBodyText(
  answer: HttpResponse,
  timeoutMs: number,
  maxBytes = 1024 * 1024,
  what = "the answer",
  hint = "check the address",
): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    const announced = tooLargeError(answer, 0, maxBytes, what, hint);
    if (announced) throw announced;
    for await (const chunk of answer.response as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      size += chunk.length;
      const tooLarge = tooLargeError(answer, size, maxBytes, what, hint);
      if (tooLarge) throw tooLarge;
    }
  } catch (error) {
    answer.abort();
    throw bodyError(error, answer, timeoutMs, "reading the answer of");
  }
  return Buffer.concat(chunks).toString("utf8");
}
