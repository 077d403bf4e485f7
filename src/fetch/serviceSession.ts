import { UsageError } from "../base/errors.js";
import { authenticate } from "./authenticate.js";
import { endpointUrl } from "./endpointUrl.js";
import { redactError } from "./redact.js";
import type { Credentials, FetchAuth, RequestPolicy } from "./types.js";

/**
 * Defaults of RequestPolicy: 60 s of silence, 3 retries from 1 s doubling, 10 redirects, JSON
 * answers up to 64 MiB, archives up to 16 GiB, one hour per call.
 */
export const FETCH_DEFAULTS = {
  timeoutMs: 60_000,
  retries: 3,
  retryDelayMs: 1_000,
  maxRedirects: 10,
  maxJsonBytes: 64 * 1024 ** 2,
  maxDownloadBytes: 16 * 1024 ** 3,
  deadlineMs: 3_600_000,
} as const;

/** A logged-in connection to the service: what every call after the login carries. */
export interface ServiceSession {
  /** The service base address `{base_url}`. */
  baseUrl: string;
  policy: Required<RequestPolicy>;
  credentials: Credentials;
  /** Every secret of the session (login values and the token or key), for redaction. */
  secrets: string[];
}

/** The login values of `auth`: never to appear in a message. */
export function secretsOf(auth: FetchAuth): string[] {
  return auth.kind === "jwt" ? [auth.clientSecret, auth.clientId] : [auth.password, auth.username];
}

/** The request policy of `options`, defaults filled in and checked (UsageError when bad). */
export function policyOf(options: RequestPolicy): Required<RequestPolicy> {
  const policy = {
    timeoutMs: options.timeoutMs ?? FETCH_DEFAULTS.timeoutMs,
    retries: options.retries ?? FETCH_DEFAULTS.retries,
    retryDelayMs: options.retryDelayMs ?? FETCH_DEFAULTS.retryDelayMs,
    maxRedirects: options.maxRedirects ?? FETCH_DEFAULTS.maxRedirects,
    maxJsonBytes: options.maxJsonBytes ?? FETCH_DEFAULTS.maxJsonBytes,
    maxDownloadBytes: options.maxDownloadBytes ?? FETCH_DEFAULTS.maxDownloadBytes,
    deadlineMs: options.deadlineMs ?? FETCH_DEFAULTS.deadlineMs,
  };
  if (!(policy.timeoutMs > 0)) throw new UsageError(`bad timeout ${policy.timeoutMs} ms: use a positive number`);
  if (!Number.isInteger(policy.retries) || policy.retries < 0)
    throw new UsageError(`bad retries ${policy.retries}: use a whole number ≥ 0`);
  if (!(policy.retryDelayMs >= 0)) throw new UsageError(`bad retry delay ${policy.retryDelayMs} ms: use a number ≥ 0`);
  if (!Number.isInteger(policy.maxRedirects) || policy.maxRedirects < 0)
    throw new UsageError(`bad redirect limit ${policy.maxRedirects}: use a whole number ≥ 0`);
  for (const key of ["maxJsonBytes", "maxDownloadBytes"] as const) {
    if (!Number.isSafeInteger(policy[key]) || policy[key] < 1)
      throw new UsageError(`bad ${key} ${policy[key]}: use a whole number of bytes ≥ 1`);
  }
  if (!(policy.deadlineMs > 0)) throw new UsageError(`bad deadline ${policy.deadlineMs} ms: use a positive number`);
  return policy;
}

/** A UsageError naming the missing login values of `auth`, if any. */
export function checkAuth(auth: FetchAuth): void {
  const missing = Object.entries(auth).filter(
    ([key, value]) => key !== "validity" && (value === undefined || value === ""),
  );
  if (missing.length > 0)
    throw new UsageError(`missing ${missing.map(([key]) => key).join(", ")} for ${auth.kind} authentication`);
}

/**
 * Logs in once (either method of seed 5) and returns the session later calls use.
 * Throws UsageError for bad options, FetchError FETCH_AUTH when refused; no message holds a secret.
 */
export async function openSession(
  baseUrl: string,
  auth: FetchAuth,
  options: RequestPolicy = {},
): Promise<ServiceSession> {
  const secrets = secretsOf(auth);
  try {
    const policy = policyOf(options);
    checkAuth(auth);
    endpointUrl(baseUrl, ""); // a bad --url is a usage error before any login
    const credentials = await authenticate(baseUrl, auth, policy);
    secrets.push(credentials.kind === "bearer" ? credentials.token : credentials.key);
    return { baseUrl, policy, credentials, secrets };
  } catch (error) {
    throw redactError(error, secrets);
  }
}
