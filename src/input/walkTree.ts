import { readdirSync, realpathSync, statSync, type Dirent } from "node:fs";
import { normalize, sep } from "node:path";
import { BadFileError } from "../errors.js";

/** One thing found below a directory: a file, something else (ignored), or an unreadable folder. */
export type TreeItem =
  | { kind: "file"; path: string; displayName: string }
  | { kind: "other"; displayName: string }
  | { kind: "error"; error: BadFileError };

/**
 * Walks a directory tree depth-first, in name order at every level (so the order never depends
 * on the file system), calling `onItem` for each file, other entry, or unreadable folder. Follows
 * symbolic links to files and to folders (an account folder may live on another disk), each
 * target folder once, never one that contains the link (no loops); a link not followed comes
 * out as `other`.
 *
 * The walk is synchronous: listing folders one after another costs less than half the time of
 * asynchronous listing a few at a time, and keeps no promise per folder (indexing 26 weeks of
 * hourly folders peaked 40 MB higher asynchronously, 2.3× slower).
 *
 * @param path the directory (absolute or relative to the working directory)
 * @param displayName how `path` is shown in messages (the input as the user gave it)
 */
export function walkTree(path: string, displayName: string, onItem: (item: TreeItem) => void): void {
  type Folder = { path: string; displayName: string };
  const stack: Folder[] = [{ path: normalize(path), displayName: normalize(displayName) }];
  const followed = new Set<string>();
  while (stack.length > 0) {
    const dir = stack.pop()!;
    let dirents: Dirent[];
    try {
      dirents = readdirSync(dir.path, { withFileTypes: true });
    } catch (error) {
      onItem({
        kind: "error",
        error: new BadFileError("INPUT_UNREADABLE", dir.displayName, `cannot read the folder (${(error as Error).message})`, { cause: error }),
      });
      continue;
    }
    dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const subdirs: Folder[] = [];
    for (const dirent of dirents) {
      const child = { path: below(dir.path, dirent.name), displayName: below(dir.displayName, dirent.name) };
      let isDir = dirent.isDirectory();
      if (dirent.isFile()) onItem({ kind: "file", path: child.path, displayName: child.displayName });
      else if (dirent.isSymbolicLink()) {
        const target = statOrUndefined(child.path);
        if (target?.isFile()) onItem({ kind: "file", path: child.path, displayName: child.displayName });
        else if (target?.isDirectory() && followOnce(dir.path, child.path, followed)) isDir = true;
        else onItem({ kind: "other", displayName: child.displayName });
      } else if (!isDir) onItem({ kind: "other", displayName: child.displayName });
      if (isDir) subdirs.push(child);
    }
    for (let i = subdirs.length - 1; i >= 0; i--) stack.push(subdirs[i]!);
  }
}

/**
 * `join(parent, name)` for a normalized `parent` and a plain `name` (no separator), without
 * join's normalizing: the walk makes two such paths per file.
 */
function below(parent: string, name: string): string {
  if (parent === ".") return name;
  return parent.endsWith(sep) ? `${parent}${name}` : `${parent}${sep}${name}`;
}

function statOrUndefined(path: string) {
  try {
    return statSync(path);
  } catch {
    return undefined; // a broken link, or one we may not follow: `other`
  }
}

/** True the first time a link to folder `link` is met, unless it points at `dir` or a folder above it. */
function followOnce(dir: string, link: string, followed: Set<string>): boolean {
  let target: string;
  let here: string;
  try {
    target = realpathSync(link);
    here = realpathSync(dir);
  } catch {
    return false;
  }
  if (followed.has(target) || `${here}${sep}`.startsWith(`${target}${sep}`)) return false;
  followed.add(target);
  return true;
}
