import { FetchError } from "../errors.js";
import { readSmallText, type HttpResponse } from "./httpRequest.js";
import { displayUrl } from "./redact.js";

const SNIPPET_CHARS = 200;

/** A short, single-line excerpt of a body for a message: HTML tags dropped, whitespace collapsed. */
export function bodySnippet(text: string, contentType: string | undefined): string {
  let plain = text;
  if (/html/i.test(contentType ?? "") || /^\s*<(!doctype|html)/i.test(text)) {
    plain = plain.replace(/<(script|style)[\s\S]*?<\/\1>/gi, " ").replace(/<[^>]*>/g, " ");
  }
  plain = plain.replace(/[\u0000-\u001f\u007f]+/g, " ").replace(/\s+/g, " ").trim();
  return plain.length > SNIPPET_CHARS ? `${plain.slice(0, SNIPPET_CHARS)}…` : plain;
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
    return new FetchError("FETCH_AUTH", `${what} was refused (HTTP ${status} from ${where}): ${onAuthRefused}${said}`, { status });
  }
  if (status === 404) {
    return new FetchError("FETCH_HTTP", `${what} found nothing (HTTP 404 from ${where}): check --url (the base address, without /restmachine) and the ids${said}`, { status });
  }
  const hint = status >= 500 || status === 429 ? "the service has a problem; try again later" : "check the arguments";
  return new FetchError("FETCH_HTTP", `${what} failed (HTTP ${status} from ${where}): ${hint}${said}`, { status });
}
