import { rm } from "node:fs/promises";
import { UsageError } from "../base/errors.js";
import { checkKnownIds } from "../base/unknownIds.js";
import { parseTime } from "../base/time.js";
import { consumptionFilePath } from "./consumptionFile.js";
import { downloadConsumption } from "./downloadConsumption.js";
import { listAccounts } from "./listEntities.js";
import { redactError } from "./redact.js";
import { checkAuth, openSession, policyOf, secretsOf, type ServiceSession } from "./serviceSession.js";
import type { FetchConsumptionOptions, FetchConsumptionResult } from "./types.js";

export { FETCH_DEFAULTS } from "./serviceSession.js";

function checkOptions(options: FetchConsumptionOptions): { startEpoch: number; endEpoch: number } {
  const { accountId } = options;
  if (!Number.isInteger(accountId) || accountId < 1 || accountId > 2 ** 32 - 1) {
    throw new UsageError(`bad account id ${accountId}: use a positive whole number`);
  }
  const startEpoch = parseTime(options.start, "start");
  const endEpoch = parseTime(options.end, "end");
  if (endEpoch <= startEpoch)
    throw new UsageError(`the end (${options.end}) must be after the start (${options.start})`);
  checkAuth(options.auth);
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
 * An empty archive of an account that `accounts/list` does not name is UsageError UNKNOWN_ID
 * (exit 2; the file is removed): an unknown id is an error, never an empty download. When the
 * list cannot be read, an empty archive stays what it is.
 *
 * Throws UsageError for bad options, FetchError (FETCH_AUTH, FETCH_HTTP, FETCH_TIMEOUT,
 * FETCH_NOT_ZIP, FETCH_TRUNCATED, FETCH_NETWORK, …) when it cannot log in or download, and
 * BadFileError when the archive holds bad data. No message, stack or cause holds a secret.
 */
export async function fetchConsumption(options: FetchConsumptionOptions): Promise<FetchConsumptionResult> {
  try {
    const policy = policyOf(options);
    const { startEpoch, endEpoch } = checkOptions(options);
    const session = await openSession(options.url, options.auth, policy);
    const file = await consumptionFilePath(options.out, options.accountId, startEpoch, endEpoch);
    const { bytes, accountHours } = await downloadConsumption(
      session,
      { accountId: options.accountId, startEpoch, endEpoch },
      file,
      (receivedBytes, totalBytes) => options.onProgress?.({ accountId: options.accountId, receivedBytes, totalBytes }),
    );
    if (accountHours === 0) await refuseUnknownAccount(session, options.url, options.accountId, file);
    return { file, bytes, accountHours };
  } catch (error) {
    throw redactError(error, secretsOf(options.auth));
  }
}

/** Throws UNKNOWN_ID (after removing `file`) when accounts/list answers and does not name the account. */
async function refuseUnknownAccount(
  session: ServiceSession,
  url: string,
  accountId: number,
  file: string,
): Promise<void> {
  const listed = await listAccounts(session).catch(() => undefined); // no list (rights, an older service): the empty archive stands
  if (listed === undefined || listed.some((a) => a.id === accountId)) return;
  await rm(file, { force: true });
  checkKnownIds(
    "account",
    [accountId],
    listed.map((a) => a.id),
    `${url}'s accounts/list`,
  );
}
