import { UsageError } from "../base/errors.js";
import type { AccountHour } from "../input/types.js";
import type { DecodeOptions } from "./DecodeOptions.js";
import { openMessage } from "./openMessage.js";
import { visitAccountRoot, visitCloudSpaceRoot, type RecordVisitor } from "./visitRecords.js";

/**
 * Visits the cloud spaces, machines, disks and NICs of one account-hour's files, and
 * returns what the `account_hours` row needs: the store stages the rows straight into
 * columns, `decodeAccountHour` builds records from them. A file that fails may leave part
 * of its rows visited: the caller drops them.
 *
 * @throws CapnpError naming the source at fault; UsageError when the sources mix roots.
 */
export function visitAccountHour(
  hour: AccountHour,
  visitor: RecordVisitor,
  options: DecodeOptions = {},
): { rootAccountId: number | null; cloudspaces: number } {
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
    const root = visitAccountRoot(
      openMessage(first.bytes, { ...options, name: first.name, packed: first.packed }),
      visitor,
    );
    return { rootAccountId: root.accountId, cloudspaces: root.cloudspaces };
  }
  for (const source of sources) {
    if (source.root !== "CloudSpace") {
      throw new UsageError(
        `account ${accountId}, hour ${hourEpoch}: ${source.name} is an ${source.root} file among CloudSpace files`,
      );
    }
    visitCloudSpaceRoot(openMessage(source.bytes, { ...options, name: source.name, packed: source.packed }), visitor);
  }
  return { rootAccountId: null, cloudspaces: sources.length };
}
