import { indexInputs } from "./indexInputs.js";
import type { AccountHourListing, ListOptions } from "./types.js";

/**
 * Lists the account-hours of zip files and directory trees by names only: walks trees and
 * reads zip central directories, without reading any file's bytes (so zip entries' CRCs are
 * not checked here; `readAccountHours` does). Same inputs, paths, order, grouping and bad-file
 * rules as `readAccountHours`; every archive is closed before it returns.
 *
 * @example
 * const { accountHours } = await listAccountHours(["download.zip"]);
 * const others = accountHours.filter((h) => h.accountId !== 7);
 */
export async function listAccountHours(inputs: string[], options: ListOptions = {}): Promise<AccountHourListing> {
  const index = await indexInputs(inputs, options);
  await index.close();
  return {
    accountHours: [...index.groups()].map((group) => ({
      accountId: group[0]!.accountId,
      hourEpoch: group[0]!.hourEpoch,
      sources: group.map((source) => source.location),
    })),
    filesTotal: index.filesTotal,
    bytesTotal: index.bytesTotal,
    ignoredPaths: index.ignoredPaths,
    ignoredExamples: index.ignoredExamples,
    syncthingCopies: index.syncthingCopies,
    badFiles: index.badFiles,
  };
}
