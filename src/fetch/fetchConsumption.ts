import { rename, rm, stat } from "node:fs/promises";
import { UsageError } from "../errors.js";
import { parseTime } from "../time.js";
import { authenticate } from "./authenticate.js";
import { consumptionFilePath, temporaryPath } from "./consumptionFile.js";
import { downloadToFile } from "./downloadToFile.js";
import { endpointUrl } from "./endpointUrl.js";
import { httpRequest } from "./httpRequest.js";
import { redactError } from "./redact.js";
import { statusError } from "./statusError.js";
import { validateConsumptionZip } from "./validateConsumptionZip.js";
import { withRetries } from "./withRetries.js";
import type { Credentials, FetchAuth, FetchConsumptionOptions, FetchConsumptionResult, RequestPolicy } from "./types.js";

/** Defaults of RequestPolicy: 60 s of silence, 3 retries from 1 s doubling, 10 redirects. */
export const FETCH_DEFAULTS = { timeoutMs: 60_000, retries: 3, retryDelayMs: 1_000, maxRedirects: 10 } as const;

function secretsOf(auth: FetchAuth): string[] {
  return auth.kind === "jwt" ? [auth.clientSecret, auth.clientId] : [auth.password, auth.username];
}

/** The request policy of `options`, defaults filled in. */
function policyOf(options: RequestPolicy): Required<RequestPolicy> {
  return {
    timeoutMs: options.timeoutMs ?? FETCH_DEFAULTS.timeoutMs,
    retries: options.retries ?? FETCH_DEFAULTS.retries,
    retryDelayMs: options.retryDelayMs ?? FETCH_DEFAULTS.retryDelayMs,
    maxRedirects: options.maxRedirects ?? FETCH_DEFAULTS.maxRedirects,
  };
}

function checkOptions(options: FetchConsumptionOptions, policy: Required<RequestPolicy>): { startEpoch: number; endEpoch: number } {
  const { accountId } = options;
  if (!Number.isInteger(accountId) || accountId < 1 || accountId > 2 ** 32 - 1) {
    throw new UsageError(`bad account id ${accountId}: use a positive whole number`);
  }
  const startEpoch = parseTime(options.start, "start");
  const endEpoch = parseTime(options.end, "end");
  if (endEpoch <= startEpoch) throw new UsageError(`the end (${options.end}) must be after the start (${options.start})`);
  if (!(policy.timeoutMs > 0)) throw new UsageError(`bad timeout ${policy.timeoutMs} ms: use a positive number`);
  if (!Number.isInteger(policy.retries) || policy.retries < 0) throw new UsageError(`bad retries ${policy.retries}: use a whole number ≥ 0`);
  if (!(policy.retryDelayMs >= 0)) throw new UsageError(`bad retry delay ${policy.retryDelayMs} ms: use a number ≥ 0`);
  if (!Number.isInteger(policy.maxRedirects) || policy.maxRedirects < 0) throw new UsageError(`bad redirect limit ${policy.maxRedirects}: use a whole number ≥ 0`);
  const missing = Object.entries(options.auth).filter(([key, value]) => key !== "validity" && (value === undefined || value === ""));
  if (missing.length > 0) throw new UsageError(`missing ${missing.map(([key]) => key).join(", ")} for ${options.auth.kind} authentication`);
  return { startEpoch, endEpoch };
}

/**
 * Downloads the consumption archive of one account for `[start, end)` from the live service
 * (`GET {url}/restmachine/cloudapi/accounts/getConsumption`, seed 4.5), after logging in with
 * either method of seed 5. The body is streamed to a temporary file beside the target, checked
 * (a zip, every announced byte, entries of the requested account only), then renamed into place.
 * Redirects are followed; credentials never go to another origin. Transient failures (5xx, 429,
 * reset connections, cut-off bodies, timeouts) are retried with exponential backoff.
 *
 * Throws UsageError for bad options, FetchError (FETCH_AUTH, FETCH_HTTP, FETCH_TIMEOUT,
 * FETCH_NOT_ZIP, FETCH_TRUNCATED, FETCH_NETWORK, …) when it cannot log in or download, and
 * BadFileError when the archive holds bad data. No message, stack or cause holds a secret.
 */
export async function fetchConsumption(options: FetchConsumptionOptions): Promise<FetchConsumptionResult> {
  const secrets = secretsOf(options.auth);
  try {
    const policy = policyOf(options);
    const { startEpoch, endEpoch } = checkOptions(options, policy);
    const url = endpointUrl(options.url, "/restmachine/cloudapi/accounts/getConsumption");
    url.search = new URLSearchParams({ accountId: String(options.accountId), start: String(startEpoch), end: String(endEpoch) }).toString();
    const credentials: Credentials = await authenticate(options.url, options.auth, policy);
    secrets.push(credentials.kind === "bearer" ? credentials.token : credentials.key);

    const file = await consumptionFilePath(options.out, options.accountId, startEpoch, endEpoch);
    const temporary = temporaryPath(file);
    const what = `account ${options.accountId}`;
    try {
      const accountHours = await withRetries(async () => {
        const answer = await httpRequest({
          method: "GET",
          url,
          headers: { accept: "application/octet-stream" },
          credentials,
          timeoutMs: policy.timeoutMs,
          maxRedirects: policy.maxRedirects,
        });
        const status = answer.response.statusCode ?? 0;
        if (status < 200 || status > 299) {
          throw await statusError(
            answer,
            `the consumption download of ${what}`,
            "downloading consumption needs a user with access to the billing group; ask an administrator, or check the credentials",
          );
        }
        await downloadToFile(answer, temporary, `the consumption download of ${what}`, policy.timeoutMs, (receivedBytes, totalBytes) =>
          options.onProgress?.({ accountId: options.accountId, receivedBytes, totalBytes }),
        );
        return validateConsumptionZip(temporary, options.accountId, file);
      }, policy);
      await rename(temporary, file);
      return { file, bytes: (await stat(file)).size, accountHours };
    } finally {
      await rm(temporary, { force: true });
    }
  } catch (error) {
    throw redactError(error, secrets);
  }
}
