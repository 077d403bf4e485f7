import { FetchError } from "../base/errors.js";
import { readSmallText, type HttpResponse } from "./httpRequest.js";
import { displayUrl } from "./redact.js";
import { retryAfterMs } from "./retryAfter.js";

/** Characters of a body quoted in a message, at most. */
const SNIPPET_CHARS = 200;

/** Control, invisible and direction-changing characters: a message shows none of them. */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u00ad\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]+/g;

/** True for text that is not text: a NUL, or a tenth of it bytes that were not UTF-8 (U+FFFD) or controls. */
function looksBinary(text: string): boolean {
  if (text.includes("\u0000")) return true;
  const odd = text.match(/[\ufffd\u0001-\u0008\u000e-\u001f]/g)?.length ?? 0;
  return odd >= 4 && odd * 10 >= text.length;
}

/**
 * `text` as a message may quote it: on one line, without control or invisible characters, at
 * most `maxChars` characters (then `…`).
 */
export function printableExcerpt(text: string, maxChars = SNIPPET_CHARS): string {
  const plain = text.replace(UNPRINTABLE, " ").replace(/\s+/g, " ").trim();
  const chars = [...plain];
  return chars.length > maxChars ? `${chars.slice(0, maxChars).join("")}…` : plain;
}

/**
 * A short, printable, single-line excerpt of a body for a message (HTML tags dropped, whitespace
 * collapsed, at most 200 characters); a binary body is described, never quoted.
 */
export function bodySnippet(text: string, contentType: string | undefined): string {
  if (looksBinary(text)) return "binary data (not shown)";
  let plain = text;
  if (/html/i.test(contentType ?? "") || /^\s*<(!doctype|html)/i.test(text)) {
    plain = plain.replace(/<(script|style)[\s\S]*?<\/\1>/gi, " ").replace(/<[^>]*>/g, " ");
  }
  return printableExcerpt(plain);
}

/**
 * The FetchError for an answer that is not 2xx, read from `answer` (whose body is consumed).
 * `what` names the call (`the token request`), `onAuthRefused` says what to do on 401/403.
 */
export async function statusError(answer: HttpResponse, what: string, onAuthRefused: string): Promise<FetchError> {
  const status = answer.response.statusCode ?? 0;
  const text = await readSmallText(answer);
  const snippet = bodySnippet(text, answer.response.headers["content-type"]);
  const said = snippet ? `; the server said: ${snippet}` : "";
  const where = displayUrl(answer.url);
  if (status === 401 || status === 403) {
    return new FetchError("FETCH_AUTH", `${what} was refused (HTTP ${status} from ${where}): ${onAuthRefused}${said}`, {
      status,
    });
  }
  if (status === 404) {
    return new FetchError(
      "FETCH_HTTP",
      `${what} found nothing (HTTP 404 from ${where}): check the url option (the base address, without /restmachine) and the ids${said}`,
      { status },
    );
  }
  const busy = status >= 500 || status === 429;
  const hint = busy ? "the service has a problem; try again later" : "check the arguments";
  // a busy server may say when to come back: withRetries waits that long
  const wait = busy ? retryAfterMs(answer.response.headers["retry-after"], Date.now()) : undefined;
  return new FetchError("FETCH_HTTP", `${what} failed (HTTP ${status} from ${where}): ${hint}${said}`, {
    status,
    ...(wait === undefined ? {} : { retryAfterMs: wait }),
  });
}
