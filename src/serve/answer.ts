import type { IncomingMessage, ServerResponse } from "node:http";
import { CloudunitsError, RegisterBrokenError, UsageError, WarehouseBusyError } from "../base/errors.js";
import { NotFoundError } from "./notFound.js";
import { ClientBusyError } from "./warehouseQueue.js";
import { esc, page } from "./pages/html.js";

/** What the dashboard answers a request: a status, a type, a body and any headers of its own. */
export interface Answer {
  status?: number;
  type: string;
  body: string | Buffer;
  headers?: Record<string, string>;
}

export const HTML = "text/html; charset=utf-8";
const TEXT = "text/plain; charset=utf-8";

/** The headers of every answer: nothing cached by a proxy, no framing, no sniffing, scripts only from the dashboard. */
const SAFE_HEADERS = {
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
};

/** A page. */
export const htmlAnswer = (body: string): Answer => ({ type: HTML, body });

/** A short page for an error status, saying why. */
export function errorAnswer(status: number, message: string, headers?: Record<string, string>): Answer {
  return {
    status,
    type: HTML,
    body: page(`${status}`, `<h1>${status}</h1><p>${esc(message)}</p><p><a href="/">Overview</a></p>`),
    headers,
  };
}

export const notFound = (): Answer => errorAnswer(404, "No such page.");

/** A redirect to one of the dashboard's own paths (`location` is never another site's). */
export const redirect = (location: string, headers: Record<string, string> = {}): Answer => ({
  status: 303,
  type: TEXT,
  body: "",
  headers: { location, ...headers },
});

/** A page of the warehouse as it was before its last change, saying so (its figures are being computed again). */
export function staleAnswer(answer: Answer): Answer {
  if (answer.type !== HTML || typeof answer.body !== "string") return answer;
  const note =
    '<p class="stale" id="stale">The warehouse changed since these figures were computed (a sync wrote to it): they are being computed again. Reload in a moment for the current ones.</p>';
  return { ...answer, body: answer.body.replace("<main>\n", `<main>\n${note}\n`) };
}

/**
 * The answer to a failed request: 404 for an unknown id or month, 429 for a client with too many pages in flight, 400 for a bad request,
 * 409 for an issued file of a register that disagrees with its chain (changed outside cloudunits), 503 while the warehouse stays busy,
 * else 500 (told to `onError`).
 */
export function failureAnswer(error: unknown, onError: ((error: unknown) => void) | undefined): Answer {
  if (error instanceof NotFoundError) return errorAnswer(404, error.message);
  if (error instanceof ClientBusyError) return errorAnswer(429, error.message, { "retry-after": "5" });
  if (error instanceof WarehouseBusyError) return errorAnswer(503, error.message, { "retry-after": "10" });
  if (error instanceof RegisterBrokenError) return errorAnswer(409, error.message);
  if (error instanceof UsageError) return errorAnswer(400, error.message);
  try {
    onError?.(error);
  } catch {
    // the caller's hook failed: the request still gets its answer
  }
  const code = error instanceof CloudunitsError ? ` [${error.code}]` : "";
  return errorAnswer(
    500,
    `The figures could not be computed${code}: ${error instanceof Error ? error.message : String(error)}`,
  );
}

/**
 * Writes `answer` (with the safe headers) to `response`. Never throws: an answer that cannot be
 * written (a header Node refuses) is a 500 instead, and a response that cannot be written at
 * all is ended by closing its connection; no request ends the server.
 */
export function send(
  request: IncomingMessage,
  response: ServerResponse,
  answer: Answer,
  onError?: (error: unknown) => void,
): void {
  try {
    const body = typeof answer.body === "string" ? Buffer.from(answer.body) : answer.body;
    response.writeHead(answer.status ?? 200, {
      ...SAFE_HEADERS,
      "content-type": answer.type,
      "content-length": String(body.length),
      ...answer.headers,
    });
    response.end(request.method === "HEAD" ? undefined : body);
  } catch (error) {
    if (response.headersSent || answer.status === 500) {
      response.destroy();
      return;
    }
    send(request, response, failureAnswer(error, onError), onError);
  }
}
