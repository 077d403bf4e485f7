import { FetchError } from "../base/errors.js";
import { assertNever } from "../base/errors.js";
import { endpointUrl } from "./endpointUrl.js";
import { httpRequest, readBodyText, type HttpResponse } from "./httpRequest.js";
import { displayUrl } from "./redact.js";
import { statusError } from "./statusError.js";
import { withRetries, type RetryPolicy } from "./withRetries.js";
import type { Credentials, FetchAuth } from "./types.js";

/** Timeouts and retries of the login calls. */
export interface LoginPolicy extends RetryPolicy {
  timeoutMs: number;
  maxRedirects: number;
}

/**
 * The token or key in a login answer: the plain-text body of the seed, also accepted as a
 * JSON string (`"abc"`) or a JSON object with `id_token`, `access_token`, `token` or `key`.
 */
function credentialText(body: string, where: string): string {
  let text = body.trim();
  if (text.startsWith('"') || text.startsWith("{")) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed === "string") text = parsed;
      else if (parsed !== null && typeof parsed === "object") {
        const record = parsed as Record<string, unknown>;
        const found = [record.id_token, record.access_token, record.token, record.key].find(
          (v) => typeof v === "string",
        );
        if (typeof found === "string") text = found;
      }
    } catch {
      // not JSON: the plain-text form
    }
  }
  text = text.trim();
  if (!/^[\x21-\x7e]+$/.test(text)) {
    throw new FetchError(
      "FETCH_AUTH",
      `${where} answered without a usable token or key (${text.length === 0 ? "an empty body" : "text with spaces or control characters"}); check the address`,
    );
  }
  return text;
}

async function login(
  url: URL,
  form: URLSearchParams,
  secrets: string[],
  what: string,
  onRefused: string,
  policy: LoginPolicy,
): Promise<string> {
  return withRetries(async (_attempt, deadlineAt) => {
    const answer: HttpResponse = await httpRequest({
      deadlineAt,
      method: "POST",
      url,
      form,
      secrets,
      headers: { accept: "text/plain, application/json;q=0.9, */*;q=0.1" },
      timeoutMs: policy.timeoutMs,
      maxRedirects: policy.maxRedirects,
    });
    const status = answer.response.statusCode ?? 0;
    if (status < 200 || status > 299) throw await statusError(answer, what, onRefused);
    return credentialText(await readBodyText(answer, policy.timeoutMs), `${what} (${displayUrl(answer.url)})`);
  }, policy);
}

/**
 * Logs in with either method of the seed (section 5) and returns what later calls carry.
 * JWT: `POST {authUrl}/v1/oauth/access_token` with `grant_type=client_credentials`,
 * `response_type=id_token`, `client_id`, `client_secret` and `validity` when given.
 * Session key: `POST {baseUrl}/restmachine/cloudapi/users/authenticate` with `username`, `password`.
 * Throws FetchError FETCH_AUTH when refused; messages never hold the secrets.
 */
export async function authenticate(baseUrl: string, auth: FetchAuth, policy: LoginPolicy): Promise<Credentials> {
  switch (auth.kind) {
    case "jwt": {
      const form = new URLSearchParams({
        grant_type: "client_credentials",
        response_type: "id_token",
        client_id: auth.clientId,
        client_secret: auth.clientSecret,
      });
      if (auth.validity !== undefined) form.set("validity", String(auth.validity));
      const url = endpointUrl(auth.authUrl, "/v1/oauth/access_token", "authUrl");
      const token = await login(
        url,
        form,
        [auth.clientSecret, auth.clientId],
        "the token request to the identity provider",
        "check the client id and secret (an application key of a user with access to the service)",
        policy,
      );
      return { kind: "bearer", token };
    }
    case "session": {
      const form = new URLSearchParams({ username: auth.username, password: auth.password });
      const url = endpointUrl(baseUrl, "/restmachine/cloudapi/users/authenticate");
      const key = await login(
        url,
        form,
        [auth.password, auth.username],
        "the login (users/authenticate)",
        "check the username and password",
        policy,
      );
      return { kind: "authkey", key };
    }
    default:
      return assertNever(auth, "auth kind");
  }
}
