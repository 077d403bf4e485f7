import { randomBytes } from "node:crypto";
import { accessSync, constants, existsSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import type { DuckDBInstance } from "@duckdb/node-api";
import { DUCKDB_SETTINGS, duckdbApi } from "./duckdb.js";
import { ownerTag, removeStaleTemporaries } from "./staleTemporaries.js";

/**
 * Where a DuckDB instance spills what does not fit its memory limit. DuckDB's default is one
 * folder per database, `FILE.tmp` (`.tmp` in the working folder for an in-memory one), the
 * same for every process, holding files of the same names in each, and deleted when any
 * instance closes: two processes reading one warehouse (a report while the dashboard runs, two
 * cron jobs, a reader during a sync) overwrote and deleted each other's spills, and a query
 * came back short or failed. So each instance we make gets a folder of its own:
 *
 * - beside the warehouse, `FILE.spill-<host>-<pid>-<random>` (the disk the operator sized for
 *   it, where DuckDB spilled before); when that folder cannot be written (a read-only
 *   mount), in the system's temporary folder (`TMPDIR`) under the same name; an in-memory
 *   database's in the system's temporary folder, `cloudunits-memory.spill-<host>-<pid>-<random>`;
 * - DuckDB makes it at the first spill and removes it when the instance closes; what is left
 *   of this process's folders (an instance not closed) is removed when the process exits;
 * - a folder left by a process killed on this host (its PID gone) is removed by the next open
 *   in the same place; a live process's, or another host's, never.
 */

/** Folders named for this process's instances still open: removed when the process exits. */
const live = new Set<string>();
let exitHooked = false;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The folder spills of `file`'s instances go under: the warehouse's when it can be written, else the system's temporary folder. */
function spillHome(file: string | undefined): string {
  if (file === undefined) return tmpdir();
  try {
    accessSync(dirname(file), constants.W_OK);
    return dirname(file);
  } catch {
    return tmpdir();
  }
}

/**
 * A spill folder of its own for a DuckDB instance of the database `file` (undefined: an
 * in-memory one), DuckDB's `temp_directory`: named, not made (DuckDB makes it when it first
 * spills). Removes the stale folders of killed processes beside it first.
 */
export async function spillFolder(file?: string): Promise<string> {
  const home = spillHome(file);
  const prefix = file === undefined ? "cloudunits-memory" : basename(file);
  await removeStaleTemporaries(home, new RegExp(`^${escapeRegExp(prefix)}\\.spill-([^-]+-\\d+)-[0-9a-f]{8}$`));
  const folder = join(home, `${prefix}.spill-${ownerTag()}-${randomBytes(4).toString("hex")}`);
  if (!exitHooked) {
    exitHooked = true;
    process.on("exit", () => {
      for (const left of live) rmSync(left, { recursive: true, force: true });
    });
  }
  live.add(folder);
  return folder;
}

/**
 * Lets go of `folder` once its instance is closed: DuckDB removed it (or never made it); if
 * it is still there (a connection of the instance left open keeps it alive), it stays for
 * the process's exit, which removes it.
 */
export function releaseSpillFolder(folder: string): void {
  if (!existsSync(folder)) live.delete(folder);
}

/** Makes `instance.closeSync()` release its spill `folder` after closing: the instance is what callers close. */
export function withSpillFolder(instance: DuckDBInstance, folder: string): DuckDBInstance {
  const close = instance.closeSync.bind(instance);
  instance.closeSync = () => {
    close();
    releaseSpillFolder(folder);
  };
  return instance;
}

/** A private in-memory DuckDB instance: our settings, and a spill folder of its own. */
export async function inMemoryInstance(): Promise<DuckDBInstance> {
  const folder = await spillFolder();
  const settings = { ...DUCKDB_SETTINGS, temp_directory: folder };
  return withSpillFolder(await duckdbApi().DuckDBInstance.create(":memory:", settings), folder);
}
