import { FetchError } from "../base/errors.js";
import { endpointUrl } from "./endpointUrl.js";
import { httpRequest, readBodyText } from "./httpRequest.js";
import { displayUrl, redactError } from "./redact.js";
import type { ServiceSession } from "./serviceSession.js";
import { bodySnippet, statusError } from "./statusError.js";
import { withRetries } from "./withRetries.js";

/**
 * Calls an operation of the service that answers JSON, with a logged-in session: POST with
 * the parameters form-encoded in the body, GET with them in the query string (seed 4).
 * `path` is relative to the base address, e.g. `/restmachine/cloudapi/accounts/list`.
 * Transient failures are retried. Returns the parsed JSON. Throws FetchError: FETCH_AUTH
 * (401/403), FETCH_HTTP, FETCH_NOT_JSON (an excerpt quoted), FETCH_TOO_LARGE (an answer longer
 * than the policy's `maxJsonBytes`, never retried), FETCH_TIMEOUT, FETCH_NETWORK.
 */
export async function callService(
  session: ServiceSession,
  method: "GET" | "POST",
  path: string,
  params: Record<string, string> = {},
): Promise<unknown> {
  const url = endpointUrl(session.baseUrl, path);
  const form = new URLSearchParams(params);
  if (method === "GET") url.search = form.toString();
  const what = `${method} ${path.replace(/^\/restmachine\/cloudapi\//, "")}`;
  try {
    return await withRetries(async (_attempt, deadlineAt) => {
      const answer = await httpRequest({
        deadlineAt,
        method,
        url,
        ...(method === "POST" ? { form } : {}),
        headers: { accept: "application/json" },
        credentials: session.credentials,
        secrets: session.secrets,
        timeoutMs: session.policy.timeoutMs,
        maxRedirects: session.policy.maxRedirects,
      });
      const status = answer.response.statusCode ?? 0;
      if (status < 200 || status > 299) {
        throw await statusError(
          answer,
          what,
          "check the credentials: billing operations need a user with access to the billing group",
        );
      }
      const text = await readBodyText(
        answer,
        session.policy.timeoutMs,
        session.policy.maxJsonBytes,
        `${what}: the answer`,
        "raise maxJsonBytes if it is genuinely that long",
      );
      try {
        return JSON.parse(text) as unknown;
      } catch {
        const snippet = bodySnippet(text, answer.response.headers["content-type"]);
        throw new FetchError(
          "FETCH_NOT_JSON",
          `${what}: ${displayUrl(answer.url)} did not answer JSON${snippet ? `: ${snippet}` : " (an empty body)"}; check the url option`,
          { status },
        );
      }
    }, session.policy);
  } catch (error) {
    throw redactError(error, session.secrets);
  }
}
