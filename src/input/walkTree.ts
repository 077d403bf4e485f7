import { opendir, stat } from "node:fs/promises";
import { join } from "node:path";
import { BadFileError } from "../errors.js";

/** One thing found below a directory: a file, something else (ignored), or an unreadable folder. */
export type TreeItem =
  | { kind: "file"; path: string; displayName: string }
  | { kind: "other"; displayName: string }
  | { kind: "error"; error: BadFileError };

/**
 * Walks a directory tree depth-first, in name order at every level (so the order never depends
 * on the file system). Follows symbolic links to files; symbolic links to folders are not
 * followed (no loops) and come out as `other`.
 *
 * @param path the directory (absolute or relative to the working directory)
 * @param displayName how `path` is shown in messages (the input as the user gave it)
 */
export async function* walkTree(path: string, displayName: string): AsyncGenerator<TreeItem> {
  let names: { name: string; kind: "file" | "dir" | "link" | "other" }[];
  try {
    names = [];
    for await (const dirent of await opendir(path)) {
      const kind = dirent.isFile() ? "file" : dirent.isDirectory() ? "dir" : dirent.isSymbolicLink() ? "link" : "other";
      names.push({ name: dirent.name, kind });
    }
  } catch (error) {
    yield {
      kind: "error",
      error: new BadFileError("INPUT_UNREADABLE", displayName, `cannot read the folder (${(error as Error).message})`, {
        cause: error,
      }),
    };
    return;
  }
  names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const { name, kind } of names) {
    const childPath = join(path, name);
    const childDisplay = join(displayName, name);
    if (kind === "dir") {
      yield* walkTree(childPath, childDisplay);
    } else if (kind === "file") {
      yield { kind: "file", path: childPath, displayName: childDisplay };
    } else if (kind === "link" && (await stat(childPath).catch(() => null))?.isFile()) {
      yield { kind: "file", path: childPath, displayName: childDisplay };
    } else {
      yield { kind: "other", displayName: childDisplay };
    }
  }
}
