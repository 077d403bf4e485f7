import { UsageError } from "../errors.js";
import type { AccountHour } from "../input/types.js";
import type { DecodeOptions } from "./DecodeOptions.js";
import { decodeAccount } from "./decodeAccount.js";
import { decodeCloudSpace } from "./decodeCloudSpace.js";
import type { CloudSpace, DecodedAccountHour } from "./records.js";

/**
 * Decodes the files of one account-hour into the record the store loads: either one `Account`
 * file (`rootAccountId` is the file's `accountId`), or the controller's `CloudSpace` files,
 * combined as the platform's aggregator does into one account whose cloud spaces follow the
 * sources' order (`rootAccountId` is null). `accountId` and `hourEpoch` always come from the
 * account-hour, that is from the path (SPEC 2.1).
 *
 * @param hour the account-hour found by the reader.
 * @param options limits for every source; each source's `name` and `packed` replace
 *   `options.name` and `options.packed`.
 * @throws CapnpError naming the source at fault; UsageError when the sources mix roots.
 */
export function decodeAccountHour(hour: AccountHour, options: DecodeOptions = {}): DecodedAccountHour {
  const { accountId, hourEpoch, sources } = hour;
  const first = sources[0];
  if (first === undefined) {
    throw new UsageError(`account ${accountId}, hour ${hourEpoch}: an account-hour without files`);
  }
  if (first.root === "Account") {
    if (sources.length !== 1) {
      throw new UsageError(
        `account ${accountId}, hour ${hourEpoch}: an Account file must be alone in its account-hour, got ${sources.map((s) => s.name).join(", ")}`,
      );
    }
    const account = decodeAccount(first.bytes, { ...options, name: first.name, packed: first.packed });
    return { accountId, hourEpoch, rootAccountId: account.accountId, account };
  }
  const cloudspaces: CloudSpace[] = [];
  for (const source of sources) {
    if (source.root !== "CloudSpace") {
      throw new UsageError(
        `account ${accountId}, hour ${hourEpoch}: ${source.name} is an ${source.root} file among CloudSpace files`,
      );
    }
    cloudspaces.push(decodeCloudSpace(source.bytes, { ...options, name: source.name, packed: source.packed }));
  }
  return { accountId, hourEpoch, rootAccountId: null, account: { accountId, cloudspaces } };
}
