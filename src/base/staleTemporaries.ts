import { readdir, rm } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";

/**
 * Temporary files and folders (of downloads, DuckDB's spill folders) carry the host and process that made them
 * (`<host>-<pid>`), so a later run can tell the leftovers of a killed run (same host, process
 * gone) from the files of a run still going (its process alive, or on another host sharing
 * the folder): only the first are removed.
 */

/** This host's name as it appears in temporary names: letters, digits, dots and underscores only. */
export function hostTag(): string {
  return hostname().replace(/[^A-Za-z0-9._]/g, "_") || "host";
}

/** `<host>-<pid>` of this process, for a temporary name. */
export function ownerTag(): string {
  return `${hostTag()}-${process.pid}`;
}

/** True unless the process `pid` surely no longer exists (ESRCH); another user's process counts as alive. */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: unknown }).code !== "ESRCH";
  }
}

/**
 * Removes, from `dir`, the entries whose name matches `pattern` and whose owner tag (the
 * pattern's first group, `<host>-<pid>`) names this host and a process that no longer exists.
 * Returns the names removed. A folder that cannot be read, or an entry that vanishes meanwhile,
 * is left alone: cleaning up never fails a run.
 */
export async function removeStaleTemporaries(dir: string, pattern: RegExp): Promise<string[]> {
  const host = hostTag();
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const owner = pattern.exec(name)?.[1];
    const match = owner === undefined ? null : /^(.+)-(\d+)$/.exec(owner);
    if (!match || match[1] !== host) continue;
    const pid = Number(match[2]);
    if (pid === process.pid || processAlive(pid)) continue;
    try {
      await rm(join(dir, name), { recursive: true, force: true });
      removed.push(name);
    } catch {
      // another run got there first, or it is not ours to remove
    }
  }
  return removed;
}
