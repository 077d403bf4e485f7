import { readdirSync, realpathSync, statSync, type Dirent, type Stats } from "node:fs";
import { isAbsolute, normalize, relative, sep } from "node:path";
import { BadFileError } from "../base/errors.js";
import { isSyncConflictName, SYNCTHING_VERSIONS_FOLDER } from "./syncthingCopies.js";

/**
 * One thing found below a directory: a file; something else, with what it is (a FIFO, a
 * device, a broken link: the reader names it when its path is a consumption path, else
 * ignores it); a symbolic link out of the input folder (not followed); a copy Syncthing left
 * (a `.stversions` folder, not entered, or a `*.sync-conflict-*` file: never consumption files);
 * or an unreadable folder.
 */
export type TreeItem =
  | { kind: "file"; path: string; displayName: string }
  | { kind: "other"; path: string; displayName: string; what: string }
  | { kind: "outside"; path: string; displayName: string; target: string; folder: boolean }
  | { kind: "syncthing"; path: string; displayName: string; folder: boolean }
  | { kind: "error"; error: BadFileError };

/**
 * The order of a folder's entries in a walk: `name`, by name (code units); `numeric`, names of
 * digits alone first, by their value (then by name: `05` before `5`), then the others by name:
 * a tree of `<accountId>/<year>/<month>/<day>/<hour>/` folders is then walked in the order of
 * its account-hours, unpadded or zero-padded.
 */
export type WalkOrder = "name" | "numeric";

const byName = (a: Dirent, b: Dirent): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
const DIGITS = /^\d+$/;
function byValue(a: Dirent, b: Dirent): number {
  const x = DIGITS.test(a.name);
  const y = DIGITS.test(b.name);
  if (x !== y) return x ? -1 : 1;
  return (x ? Number(a.name) - Number(b.name) : 0) || byName(a, b);
}

/**
 * Walks a directory tree depth-first, in name order at every level (so the order never depends
 * on the file system), calling `onItem` for each file, other entry, link out of the tree, or
 * unreadable folder. Syncthing's `.stversions` folders are not entered.
 *
 * The link rule: a symbolic link is followed only when its target lies inside the folder walked
 * (the input root, both compared by their real paths); each target folder once, never one that
 * contains the link (no loops). A link whose target is outside (`/`, another disk) is never
 * followed: it comes out as `outside`, for the reader to name (give the target as an input of
 * its own). A broken link comes out as `other`.
 *
 * A folder whose name is not valid UTF-8 cannot be named by a string path: it comes out as an
 * `INPUT_BAD_NAME` error naming its bytes (nothing below it is read); such a file is `other`.
 *
 * The walk is synchronous: listing folders one after another costs less time and memory than
 * asynchronous listing a few at a time, and keeps no promise per folder (docs/performance.md, "Ingest").
 *
 * @param path the directory (absolute or relative to the working directory)
 * @param displayName how `path` is shown in messages (the input as the user gave it)
 */
export function walkTree(path: string, displayName: string, onItem: (item: TreeItem) => void): void {
  for (const item of treeItems(path, displayName)) onItem(item);
}

/** The items `walkTree` finds, one at a time as the walk goes (see `walkTree`), the entries of each folder in `order`. */
export function* treeItems(path: string, displayName: string, order: WalkOrder = "name"): Generator<TreeItem> {
  type Folder = { path: string; displayName: string };
  const stack: Folder[] = [{ path: normalize(path), displayName: normalize(displayName) }];
  const root = realOrUndefined(stack[0]!.path) ?? stack[0]!.path;
  const followed = new Set<string>();
  const compare = order === "name" ? byName : byValue;
  while (stack.length > 0) {
    const dir = stack.pop()!;
    let dirents: Dirent[];
    const undecodable: TreeItem[] = [];
    try {
      dirents = readdirSync(dir.path, { withFileTypes: true });
      if (dirents.some((dirent) => dirent.name.includes("\uFFFD")))
        dirents = withoutUndecodable(dir, dirents, (item) => undecodable.push(item));
    } catch (error) {
      yield* undecodable;
      yield {
        kind: "error",
        error: new BadFileError(
          "INPUT_UNREADABLE",
          dir.displayName,
          `cannot read the folder (${(error as Error).message})`,
          { cause: error },
        ),
      };
      continue;
    }
    yield* undecodable;
    dirents.sort(compare);
    const subdirs: Folder[] = [];
    for (const dirent of dirents) {
      const child = { path: below(dir.path, dirent.name), displayName: below(dir.displayName, dirent.name) };
      let isDir = dirent.isDirectory();
      if ((isDir && dirent.name === SYNCTHING_VERSIONS_FOLDER) || isSyncConflictName(dirent.name)) {
        yield { kind: "syncthing", ...child, folder: isDir };
        continue;
      }
      if (dirent.isFile()) yield { kind: "file", ...child };
      else if (dirent.isSymbolicLink()) {
        const target = statOrUndefined(child.path);
        const real = target && realOrUndefined(child.path);
        if (!target || real === undefined) yield { kind: "other", ...child, what: "a broken symbolic link" };
        else if (!within(root, real)) yield { kind: "outside", ...child, target: real, folder: target.isDirectory() };
        else if (target.isFile()) yield { kind: "file", ...child };
        else if (target.isDirectory() && followOnce(dir.path, real, followed)) isDir = true;
        else
          yield {
            kind: "other",
            ...child,
            what: target.isDirectory() ? "a symbolic link to a folder above it" : whatItIs(target),
          };
      } else if (!isDir) yield { kind: "other", ...child, what: whatItIs(dirent) };
      if (isDir) subdirs.push(child);
    }
    for (let i = subdirs.length - 1; i >= 0; i--) stack.push(subdirs[i]!);
  }
}

/**
 * `dirents` without the names that are not valid UTF-8 (they read as U+FFFD and name nothing):
 * each such folder is reported, each such file is `other`. Names holding a real U+FFFD stay.
 */
function withoutUndecodable(
  dir: { path: string; displayName: string },
  dirents: Dirent[],
  onItem: (item: TreeItem) => void,
): Dirent[] {
  const valid = new Set<string>();
  for (const raw of readdirSync(dir.path, { withFileTypes: true, encoding: "buffer" }) as unknown as Dirent<Buffer>[]) {
    const name = raw.name.toString();
    if (Buffer.from(name).equals(raw.name)) {
      valid.add(name);
      continue;
    }
    const shown = { path: below(dir.path, name), displayName: below(dir.displayName, name) };
    const bytes = `its name's bytes are ${raw.name.toString("hex").replace(/(..)(?!$)/g, "$1 ")}`;
    if (raw.isDirectory()) {
      onItem({
        kind: "error",
        error: new BadFileError(
          "INPUT_BAD_NAME",
          shown.displayName,
          `the folder's name is not valid UTF-8 (${bytes}); nothing in it is read: rename it`,
        ),
      });
    } else onItem({ kind: "other", ...shown, what: `a file whose name is not valid UTF-8 (${bytes})` });
  }
  return dirents.filter((dirent) => !dirent.name.includes("\uFFFD") || valid.has(dirent.name));
}

/**
 * `join(parent, name)` for a normalized `parent` and a plain `name` (no separator), without
 * join's normalizing: the walk makes two such paths per file.
 */
function below(parent: string, name: string): string {
  if (parent === ".") return name;
  return parent.endsWith(sep) ? `${parent}${name}` : `${parent}${sep}${name}`;
}

/** What a thing that is neither a file nor a folder is, for messages. */
export function whatItIs(entry: Dirent | Stats): string {
  if (entry.isFIFO()) return "a FIFO (named pipe)";
  if (entry.isSocket()) return "a socket";
  if (entry.isCharacterDevice() || entry.isBlockDevice()) return "a device";
  return "neither a file nor a folder";
}

function statOrUndefined(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined; // a broken link, or one we may not follow
  }
}

function realOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/** True when `path` is `folder` or below it (both real paths; `/` holds every path). */
function within(folder: string, path: string): boolean {
  const rel = relative(folder, path);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** True the first time a link to folder `target` (a real path) is met, unless `target` is `dir` or a folder above it. */
function followOnce(dir: string, target: string, followed: Set<string>): boolean {
  const here = realOrUndefined(dir);
  if (here === undefined || followed.has(target) || within(target, here)) return false;
  followed.add(target);
  return true;
}
