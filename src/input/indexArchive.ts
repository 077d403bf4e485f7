import { BadFileError } from "../base/errors.js";
import type { IndexContext, IndexedSource } from "./indexInputs.js";
import { listEntries, openArchive, type Archive, type ArchiveKind } from "./archive.js";
import { isSyncthingCopy } from "./syncthingCopies.js";

/**
 * Indexes one archive (of the kind its bytes show: see `openArchive`) by its listing: the
 * consumption entries that pass the checks (safe unique name, possible path, size, ratio), with
 * the archive left open to read them. Returns null, with the archive closed, when it holds none
 * or is bad as a whole (of no kind known, corrupt directory, too many entries, too large in
 * all): that is reported as one bad file.
 */
export async function indexArchive(
  path: string,
  displayName: string,
  context: IndexContext,
  kinds?: readonly ArchiveKind[],
): Promise<{ archive: Archive; sources: IndexedSource[] } | null> {
  const { limits, report } = context;
  let archive: Archive;
  try {
    archive = await openArchive(path, displayName, limits, kinds);
  } catch (error) {
    if (!(error instanceof BadFileError)) throw error;
    report(error);
    return null;
  }
  const closeAndReport = async (error: unknown) => {
    await archive.close();
    if (!(error instanceof BadFileError)) throw error;
    report(error);
    return null;
  };
  let listing;
  try {
    listing = await listEntries(archive);
  } catch (error) {
    return closeAndReport(error);
  }
  const sources: IndexedSource[] = [];
  let totalBytes = 0;
  try {
    listing.bad.forEach(report);
    for (const entry of listing.entries) {
      if (isSyncthingCopy(entry.name)) {
        context.syncthing(entry.displayName);
        continue;
      }
      const parsed = context.parse(entry.name, entry.displayName);
      if (parsed === "ignored") context.ignore(entry.displayName);
      if (typeof parsed === "string") continue;
      const problem = archive.check(entry, limits);
      if (problem) {
        report(problem);
        continue;
      }
      totalBytes += entry.sizeBytes;
      const location = {
        ...context.location(parsed, entry.displayName, entry.sizeBytes),
        archive: displayName,
        entry: entry.name,
      };
      const { accountId, hourEpoch, cloudSpaceId } = parsed;
      sources.push({ location, accountId, hourEpoch, cloudSpaceId, archived: { archive, entry } });
    }
  } catch (error) {
    await archive.close(); // report() threw: no onBadFile
    throw error;
  }
  if (totalBytes > limits.maxTotalBytes) {
    return closeAndReport(
      new BadFileError(
        "ARCHIVE_TOO_LARGE",
        displayName,
        `its consumption files declare ${totalBytes} bytes in all, more than the limit of ${limits.maxTotalBytes} (raise maxTotalBytes if the archive is trusted)`,
      ),
    );
  }
  if (sources.length === 0) {
    await archive.close();
    return null;
  }
  return { archive, sources };
}
