import { decodeAccountHour } from "../capnp/decodeAccountHour.js";
import { BadFileError, FetchError } from "../base/errors.js";
import { readAccountHours } from "../input/readAccountHours.js";
import type { AccountHour } from "../input/types.js";
import { isoUtc } from "../base/time.js";
import type { ConsumptionRequest } from "./downloadConsumption.js";
import { clockNow } from "../base/clock.js";

const HOUR_SECONDS = 3600;

/** `error` naming `displayName` instead of the temporary file, saying the archive was not kept. */
function renamed(error: BadFileError, temporary: string, displayName: string): BadFileError {
  const file = error.file.split(temporary).join(displayName);
  return new BadFileError(error.code, file, `${error.reason}; the downloaded archive was not kept`, { cause: error });
}

/**
 * The BadFileError for an account-hour the request did not ask for: another account
 * (FETCH_WRONG_ACCOUNT) or an hour outside the period asked, or later than the current hour
 * (FETCH_WRONG_PERIOD, the platform cannot have written it); undefined when
 * it was asked for. The platform includes the hour `end` names, so the hours asked are those
 * from the one holding `start` to the one holding `end`, both included.
 */
function unaskedHourError(
  hour: AccountHour,
  request: ConsumptionRequest,
  displayName: string,
): BadFileError | undefined {
  const entry = `${displayName}!${hour.sources[0]?.entry ?? ""}`;
  if (hour.accountId !== request.accountId) {
    return new BadFileError(
      "FETCH_WRONG_ACCOUNT",
      entry,
      `belongs to account ${hour.accountId}, not the requested account ${request.accountId}: the service sent another account's data; the downloaded archive was not kept`,
    );
  }
  const firstHourEpoch = Math.floor(request.startEpoch / HOUR_SECONDS) * HOUR_SECONDS;
  const lastHourEpoch = Math.floor(request.endEpoch / HOUR_SECONDS) * HOUR_SECONDS;
  const currentHourEpoch = Math.floor(clockNow() / HOUR_SECONDS) * HOUR_SECONDS;
  if (hour.hourEpoch > currentHourEpoch) {
    return new BadFileError(
      "FETCH_WRONG_PERIOD",
      entry,
      `is the hour ${isoUtc(hour.hourEpoch)}, later than the current hour (${isoUtc(currentHourEpoch)}): the platform cannot have written it; the downloaded archive was not kept`,
    );
  }
  if (hour.hourEpoch < firstHourEpoch || hour.hourEpoch > lastHourEpoch) {
    return new BadFileError(
      "FETCH_WRONG_PERIOD",
      entry,
      `is the hour ${isoUtc(hour.hourEpoch)}, outside the hours asked for (${isoUtc(firstHourEpoch)} to ${isoUtc(lastHourEpoch)}, both included): ` +
        "the service sent hours it was not asked for; the downloaded archive was not kept",
    );
  }
  return undefined;
}

/**
 * Checks the downloaded archive `temporary` (shown as `displayName`) against its `request`: a
 * readable, safe zip (the input reader's checks) whose consumption entries are all of the
 * requested account and period and all decode; returns how many account-hours it holds (0 for
 * an empty archive). Nothing of an archive that fails is kept or loaded.
 * A zip cut off before its central directory is a FetchError FETCH_TRUNCATED (worth a retry);
 * an entry of another account is a BadFileError FETCH_WRONG_ACCOUNT, of an hour not asked for
 * FETCH_WRONG_PERIOD; an archive with files but none at a consumption path is
 * FETCH_NO_CONSUMPTION; other damage keeps the reader's or the decoder's code (ARCHIVE_*, CAPNP_*,
 * INPUT_BAD_PATH).
 */
export async function validateConsumptionZip(
  temporary: string,
  request: ConsumptionRequest,
  displayName: string,
): Promise<number> {
  const reader = readAccountHours([temporary]);
  let accountHours = 0;
  try {
    for await (const hour of reader) {
      const unasked = unaskedHourError(hour, request, displayName);
      if (unasked) throw unasked;
      decodeAccountHour(hour);
      accountHours++;
    }
  } catch (error) {
    if (
      error instanceof BadFileError &&
      error.code === "ARCHIVE_CORRUPT" &&
      /end of central directory/i.test(error.reason)
    ) {
      throw new FetchError(
        "FETCH_TRUNCATED",
        `${displayName}: the downloaded archive ends before its central directory (the download was cut off); try again`,
      );
    }
    if (error instanceof BadFileError && !error.code.startsWith("FETCH_WRONG_"))
      throw renamed(error, temporary, displayName);
    throw error;
  }
  if (accountHours === 0 && reader.summary.ignoredPaths > 0) {
    throw new BadFileError(
      "FETCH_NO_CONSUMPTION",
      displayName,
      `the downloaded archive holds ${reader.summary.ignoredPaths} files but none at a consumption path ` +
        `(<accountId>/<year>/<month>/<day>/<hour>/account_capnp.bin), e.g. ${reader.summary.ignoredExamples
          .map((name) => name.split(temporary).join(displayName))
          .join(", ")}; it was not kept`,
    );
  }
  return accountHours;
}
