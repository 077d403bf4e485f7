/**
 * What Syncthing leaves in a folder it keeps in step (the platform's controllers sync
 * `{billing_dir}` with it): a `*.sync-conflict-<date>-<time>-<device>*` copy when two devices
 * changed a file, and the old versions it keeps under `.stversions/` (with "trash can"
 * versioning under their original names, e.g. `.stversions/1/2026/10/01/00/account_capnp.bin`).
 * Neither is a consumption file: read as one, an hour would be billed twice or be a conflict.
 */

/** The folder of Syncthing's kept versions. */
export const SYNCTHING_VERSIONS_FOLDER = ".stversions";

const CONFLICT_COPY = /\.sync-conflict-\d{8}-\d{6}/;

/** True when a file's name is a Syncthing conflict copy (`account_capnp.sync-conflict-20261001-120000-ABCDEFG.bin`). */
export function isSyncConflictName(name: string): boolean {
  return CONFLICT_COPY.test(name);
}

/** True when a relative path (a zip entry's name) is a Syncthing copy: below `.stversions/`, or a conflict copy. */
export function isSyncthingCopy(relativePath: string): boolean {
  const parts = relativePath.split(/[\\/]/);
  return parts.includes(SYNCTHING_VERSIONS_FOLDER) || isSyncConflictName(parts.at(-1)!);
}
