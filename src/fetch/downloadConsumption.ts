import { rename, rm, stat } from "node:fs/promises";
import { removeStaleParts, temporaryPath } from "./consumptionFile.js";
import { downloadToFile } from "./downloadToFile.js";
import { endpointUrl } from "./endpointUrl.js";
import { httpRequest } from "./httpRequest.js";
import { redactError } from "./redact.js";
import type { ServiceSession } from "./serviceSession.js";
import { statusError } from "./statusError.js";
import { validateConsumptionZip } from "./validateConsumptionZip.js";
import { withRetries } from "./withRetries.js";

/** One `getConsumption` request: the parameters exactly as sent (seed 4.5). */
export interface ConsumptionRequest {
  accountId: number;
  /** `start`, epoch seconds. */
  startEpoch: number;
  /** `end`, epoch seconds, as sent: the platform includes the hour it names. */
  endEpoch: number;
}

/**
 * Downloads one consumption archive with a logged-in session into `file`: streamed to a
 * temporary file beside it, checked (a zip, every announced byte, entries of the requested
 * account and hours only, every entry decodes), then renamed into place; transient failures retried.
 * `onBytes(receivedBytes, totalBytes)` as data arrives. Returns the bytes and account-hours.
 * Throws FetchError, or BadFileError for bad data; no message holds a secret of the session.
 */
export async function downloadConsumption(
  session: ServiceSession,
  request: ConsumptionRequest,
  file: string,
  onBytes: (receivedBytes: number, totalBytes: number | undefined) => void = () => {},
): Promise<{ bytes: number; accountHours: number }> {
  const { policy, credentials } = session;
  const url = endpointUrl(session.baseUrl, "/restmachine/cloudapi/accounts/getConsumption");
  url.search = new URLSearchParams({
    accountId: String(request.accountId),
    start: String(request.startEpoch),
    end: String(request.endEpoch),
  }).toString();
  const what = `the consumption download of account ${request.accountId}`;
  await removeStaleParts(file);
  const temporary = temporaryPath(file);
  try {
    const accountHours = await withRetries(async (_attempt, deadlineAt) => {
      const answer = await httpRequest({
        deadlineAt,
        method: "GET",
        url,
        headers: { accept: "application/octet-stream" },
        credentials,
        secrets: session.secrets,
        timeoutMs: policy.timeoutMs,
        maxRedirects: policy.maxRedirects,
      });
      const status = answer.response.statusCode ?? 0;
      if (status < 200 || status > 299) {
        throw await statusError(
          answer,
          what,
          "downloading consumption needs a user with access to the billing group; ask an administrator, or check the credentials",
        );
      }
      await downloadToFile(
        answer,
        temporary,
        { what, timeoutMs: policy.timeoutMs, maxBytes: policy.maxDownloadBytes },
        onBytes,
      );
      return validateConsumptionZip(temporary, request, file);
    }, policy);
    await rename(temporary, file);
    return { bytes: (await stat(file)).size, accountHours };
  } catch (error) {
    throw redactError(error, session.secrets);
  } finally {
    await rm(temporary, { force: true });
  }
}
