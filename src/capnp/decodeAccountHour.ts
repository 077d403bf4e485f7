import type { AccountHour } from "../input/types.js";
import type { DecodeOptions } from "./DecodeOptions.js";
import { RecordBuilder } from "./RecordBuilder.js";
import type { DecodedAccountHour } from "./records.js";
import { visitAccountHour } from "./visitAccountHour.js";

/**
 * Decodes the files of one account-hour into the record the store loads: either one `Account`
 * file (`rootAccountId` is the file's `accountId`), or the controller's `CloudSpace` files,
 * combined as the platform's aggregator does into one account whose cloud spaces follow the
 * sources' order (`rootAccountId` is null). `accountId` and `hourEpoch` always come from the
 * account-hour, that is from the path (docs/input.md).
 *
 * @param hour the account-hour found by the reader.
 * @param options limits for every source; each source's `name` and `packed` replace
 *   `options.name` and `options.packed`.
 * @throws CapnpError naming the source at fault; UsageError when the sources mix roots.
 */
export function decodeAccountHour(hour: AccountHour, options: DecodeOptions = {}): DecodedAccountHour {
  const { accountId, hourEpoch } = hour;
  const records = new RecordBuilder();
  const { rootAccountId } = visitAccountHour(hour, records, options);
  const account = { accountId: rootAccountId ?? accountId, cloudspaces: records.cloudspaces };
  return { accountId, hourEpoch, rootAccountId, account };
}
