import { statSync } from "node:fs";
import { realpath } from "node:fs/promises";
import { basename, relative as relativePath, sep } from "node:path";
import { BadFileError } from "../base/errors.js";
import { inPeriod } from "../base/period.js";
import { archiveKindOf, type Archive, type ArchiveKind } from "./archive.js";
import { indexArchive } from "./indexArchive.js";
import type { IndexContext } from "./indexInputs.js";
import { parseConsumptionPath, type ConsumptionPath } from "./parseConsumptionPath.js";
import { tooLargeFile, unreadableFile } from "./readSource.js";
import { SourceTable } from "./sourceTable.js";
import type { AccountHourSelection, InputLimits, ListOptions, SourceLocation } from "./types.js";
import { walkTree, type TreeItem } from "./walkTree.js";

/** How many ignored paths the summary shows by name. */
const IGNORED_EXAMPLES = 5;

/** What indexing counted besides the files: ignored paths, Syncthing's copies, bad files. */
export interface IndexCounts {
  ignoredPaths: number;
  ignoredExamples: string[];
  syncthingCopies: string[];
  badFiles: number;
}

/**
 * Indexes inputs one by one into a `SourceTable`, by names only: walks trees (sizing each
 * file), lists archives (kept open, to be read later), and sorts out what is not a
 * consumption file. Owns the archives it opened until `close()`.
 */
export class InputIndexer implements IndexContext {
  readonly table = new SourceTable();
  readonly archives: Archive[] = [];
  readonly counts: IndexCounts = { ignoredPaths: 0, ignoredExamples: [], syncthingCopies: [], badFiles: 0 };
  private readonly seenArchives = new Set<string>();
  private readonly selected: (parsed: ConsumptionPath) => boolean;

  constructor(
    readonly limits: Required<InputLimits>,
    readonly options: ListOptions,
  ) {
    this.selected = selection(options.select);
  }

  /** Reports a bad file to `onBadFile`, or throws it. */
  report = (error: BadFileError): void => {
    if (!this.options.onBadFile) throw error;
    this.counts.badFiles++;
    this.options.onBadFile(error);
  };

  /** Counts a file that is not at a consumption path. */
  ignore = (displayName: string): void => {
    this.counts.ignoredPaths++;
    if (this.counts.ignoredExamples.length < IGNORED_EXAMPLES) this.counts.ignoredExamples.push(displayName);
  };

  /** Names a copy Syncthing left (never read). */
  syncthing = (displayName: string): void => {
    this.counts.syncthingCopies.push(displayName);
  };

  /** The path's account-hour, or why it has none (see `IndexContext.parse`). */
  parse = (path: string, displayName: string): ConsumptionPath | "ignored" | "bad" | "unselected" => {
    try {
      const parsed = parseConsumptionPath(path, displayName);
      if (parsed === null) return "ignored";
      return this.selected(parsed) ? parsed : "unselected";
    } catch (error) {
      if (!(error instanceof BadFileError)) throw error;
      this.report(error);
      return "bad";
    }
  };

  location = (parsed: ConsumptionPath, displayName: string, sizeBytes: number): SourceLocation => ({
    name: displayName,
    root: parsed.root,
    packed: this.packed(parsed),
    sizeBytes,
  });

  /** Closes every archive opened. */
  async close(): Promise<void> {
    await Promise.all(this.archives.splice(0).map((archive) => archive.close()));
  }

  /** Indexes an input folder: its consumption files, and the archives found in it. */
  async addTree(absolute: string, input: string): Promise<void> {
    const root = this.table.addRoot({ absolute, displayName: input });
    const prefix = absolute.endsWith(sep) ? absolute : `${absolute}${sep}`;
    const otherFiles: { path: string; displayName: string }[] = [];
    walkTree(absolute, input, (item) => {
      if (item.kind !== "file") return this.notConsumption(item, input);
      const parsed = this.parse(item.path, item.displayName);
      if (parsed === "ignored") otherFiles.push({ path: item.path, displayName: item.displayName });
      else if (typeof parsed !== "string") {
        const relative = item.path.startsWith(prefix)
          ? item.path.slice(prefix.length)
          : relativePath(absolute, item.path);
        this.addTreeFile(root, item.path, relative, item.displayName, parsed);
      }
    });
    for (const file of otherFiles) await this.addFolderFile(file.path, file.displayName);
  }

  /** Indexes an input file: a consumption file given alone, or an archive. */
  async addFile(absolute: string, input: string): Promise<void> {
    const parsed = this.parse(absolute, input);
    if (parsed === "ignored") await this.addArchive(absolute, input, this.options.archiveKinds, false);
    else if (typeof parsed !== "string")
      this.addTreeFile(this.table.addRoot({ absolute, displayName: input }), absolute, "", input, parsed);
  }

  private packed(parsed: ConsumptionPath): boolean {
    return this.options.packed === true || parsed.packed;
  }

  /** A tree item that is not a file: an unreadable folder, a Syncthing copy, a link out of the input, or something else. */
  private notConsumption(item: Exclude<TreeItem, { kind: "file" }>, input: string): void {
    if (item.kind === "error") this.report(item.error);
    else if (item.kind === "syncthing") this.syncthing(item.displayName);
    else if (item.kind === "other") this.notAFile(item.path, item.displayName, item.what);
    else this.linkOutside(item.path, item.displayName, item.target, item.folder, input);
  }

  /** Adds a tree file below `root` (`relative` to it), sized with a `stat`. */
  addTreeFile(root: number, path: string, relative: string, displayName: string, parsed: ConsumptionPath): void {
    let sizeBytes: number;
    try {
      sizeBytes = statSync(path).size;
    } catch (error) {
      this.report(unreadableFile(displayName, error));
      return;
    }
    if (sizeBytes > this.limits.maxEntryBytes)
      this.report(tooLargeFile(displayName, sizeBytes, this.limits.maxEntryBytes));
    else this.table.addTreeFile(root, relative, parsed, this.packed(parsed), sizeBytes);
  }

  /** Something that is not a file: named when at a consumption path (it cannot be read), else ignored. */
  private notAFile(path: string, displayName: string, what: string): void {
    const parsed = this.parse(path, displayName);
    if (parsed === "ignored") this.ignore(displayName);
    else if (typeof parsed !== "string")
      this.report(new BadFileError("INPUT_NOT_A_FILE", displayName, `${what}, not a regular file: it cannot be read`));
  }

  /** A link out of the input folder (never followed): named when it may hold consumption files, else ignored. */
  private linkOutside(path: string, displayName: string, target: string, folder: boolean, input: string): void {
    const parsed = folder ? null : this.parse(path, displayName);
    if (parsed === "ignored") this.ignore(displayName);
    else if (typeof parsed !== "string") {
      this.report(
        new BadFileError(
          "INPUT_LINK_OUTSIDE",
          displayName,
          `a symbolic link to ${target}, outside ${input}: links are followed only within the input folder (give ${target} as an input of its own)`,
        ),
      );
    }
  }

  /**
   * Indexes an archive: given as an input (`kinds`: every kind the options read), or found in
   * an input folder (`kinds`: the one its bytes showed). A found archive holding no
   * consumption file (a workbook saved beside the data, say) counts as one ignored file,
   * not as each of its entries.
   */
  private async addArchive(
    path: string,
    displayName: string,
    kinds: readonly ArchiveKind[] | undefined,
    found: boolean,
  ): Promise<void> {
    const real = await realpath(path);
    if (this.seenArchives.has(real)) return;
    this.seenArchives.add(real);
    const ignoredEntries: string[] = [];
    const badBefore = this.counts.badFiles;
    const context: IndexContext = found
      ? { ...this.context(), ignore: (name: string) => void ignoredEntries.push(name) }
      : this;
    const indexed = await indexArchive(path, displayName, context, kinds);
    if (!indexed) {
      if (found && this.counts.badFiles === badBefore) this.ignore(displayName);
      return;
    }
    ignoredEntries.forEach(this.ignore);
    this.archives.push(indexed.archive);
    for (const source of indexed.sources) this.table.addZipSource(source);
  }

  private context(): IndexContext {
    const { limits, parse, location, report, ignore, syncthing } = this;
    return { limits, parse, location, report, ignore, syncthing };
  }

  /**
   * A file in an input folder that is not at a consumption path: read as an archive when its
   * bytes are one of a kind read (the zips `fetch` writes into a folder, say), else ignored.
   * Hidden files (`.name`: a download still in progress is `.<name>.part-...`) and files that
   * cannot be opened are ignored without a look.
   */
  private async addFolderFile(path: string, displayName: string): Promise<void> {
    if (basename(path).startsWith(".")) return this.ignore(displayName);
    let kind: ArchiveKind | null;
    try {
      kind = await archiveKindOf(path, displayName, this.options.archiveKinds);
    } catch (error) {
      if (!(error instanceof BadFileError)) throw error;
      kind = null;
    }
    if (kind === null) this.ignore(displayName);
    else await this.addArchive(path, displayName, [kind], true);
  }
}

/** Whether a path's account-hour is in `select` (every one without it). */
function selection(select: AccountHourSelection | undefined): (parsed: ConsumptionPath) => boolean {
  if (select === undefined) return () => true;
  return (p) => inPeriod(select, p.accountId, p.hourEpoch);
}
