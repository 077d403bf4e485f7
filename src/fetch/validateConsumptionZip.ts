import { decodeAccountHour } from "../capnp/decodeAccountHour.js";
import { BadFileError, FetchError } from "../errors.js";
import { readAccountHours } from "../input/readAccountHours.js";

/** `error` naming `displayName` instead of the temporary file, saying the archive was not kept. */
function renamed(error: BadFileError, temporary: string, displayName: string): BadFileError {
  const file = error.file.split(temporary).join(displayName);
  return new BadFileError(error.code, file, `${error.reason}; the downloaded archive was not kept`, { cause: error });
}

/**
 * Checks the downloaded archive `temporary` (shown as `displayName`): a readable, safe zip
 * (the input reader's checks) whose consumption entries are all of account `accountId` and all
 * decode; returns how many account-hours it holds (0 for an empty archive).
 * A zip cut off before its central directory is a FetchError FETCH_TRUNCATED (worth a retry);
 * an entry of another account is a BadFileError FETCH_WRONG_ACCOUNT; an archive with files but
 * none at a consumption path is FETCH_NO_CONSUMPTION; other damage keeps the reader's or the
 * decoder's code (ZIP_*, CAPNP_*, INPUT_BAD_PATH).
 */
export async function validateConsumptionZip(temporary: string, accountId: number, displayName: string): Promise<number> {
  const reader = readAccountHours([temporary]);
  let accountHours = 0;
  try {
    for await (const hour of reader) {
      if (hour.accountId !== accountId) {
        const entry = hour.sources[0]?.entry ?? "";
        throw new BadFileError(
          "FETCH_WRONG_ACCOUNT",
          `${displayName}!${entry}`,
          `belongs to account ${hour.accountId}, not the requested account ${accountId}: the service sent another account's data; the downloaded archive was not kept`,
        );
      }
      decodeAccountHour(hour);
      accountHours++;
    }
  } catch (error) {
    if (error instanceof BadFileError && error.code === "ZIP_CORRUPT" && /end of central directory/i.test(error.reason)) {
      throw new FetchError(
        "FETCH_TRUNCATED",
        `${displayName}: the downloaded archive ends before its central directory (the download was cut off); try again`,
      );
    }
    if (error instanceof BadFileError && error.code !== "FETCH_WRONG_ACCOUNT") throw renamed(error, temporary, displayName);
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
