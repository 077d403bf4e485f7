import { normalize, sep } from "node:path";
import type { ConsumptionPath } from "./parseConsumptionPath.js";
import type { IndexedSource } from "./indexInputs.js";
import { withRoom } from "../base/growArray.js";

/** A tree input: where it is, and how it is shown (the input as the user gave it). */
export interface TreeRoot {
  absolute: string;
  displayName: string;
}

const CLOUD_SPACE_ROOT = 1;
const PACKED = 2;

/**
 * The files of an index, kept compactly so that indexing a year of hourly files costs a few
 * MB and almost nothing on the JavaScript heap: numbers in typed arrays, a tree file as its
 * root and its path below it in a byte buffer (its path and display name are made when it is
 * read), a zip entry as its source (its archive holds the entry anyway). Rows keep the order
 * they were added in (the inputs' order).
 */
export class SourceTable {
  private size = 0;
  private accountIds = new Float64Array(256);
  private hourEpochs = new Float64Array(256);
  /** NaN for an `account_capnp.bin` file. */
  private cloudSpaceIds = new Float64Array(256);
  private sizes = new Float64Array(256);
  private flags = new Uint8Array(256);
  /** The tree root of a tree file, -1 for a zip entry. */
  private rootOf = new Int32Array(256);
  /** The paths below their roots, UTF-8 in one buffer (`start[i] .. start[i + 1]`): no string per file on the heap. */
  private relativeBytes = Buffer.allocUnsafe(16 * 1024);
  private relativeStart = new Uint32Array(257);
  private zipSources: (IndexedSource | undefined)[] = [];
  private readonly roots: (TreeRoot & { normalized: string })[] = [];

  get length(): number {
    return this.size;
  }

  /** Adds a tree input; returns its number for {@link addTreeFile}. */
  addRoot(root: TreeRoot): number {
    return this.roots.push({ ...root, normalized: normalize(root.displayName) }) - 1;
  }

  /** Adds a tree file: `relative` is its path below its root's (`""` for a file given as the input itself). */
  addTreeFile(root: number, relative: string, parsed: ConsumptionPath, packed: boolean, sizeBytes: number): void {
    const i = this.next(parsed, sizeBytes, packed);
    this.rootOf[i] = root;
    const at = this.relativeStart[i]!;
    const most = Buffer.byteLength(relative);
    if (at + most > this.relativeBytes.length) this.relativeBytes = withRoom(this.relativeBytes, at, at + most);
    this.relativeStart[i + 1] = at + this.relativeBytes.write(relative, at, "utf8");
  }

  /** Adds a zip entry's source. */
  addZipSource(source: IndexedSource): void {
    const { location } = source;
    const i = this.next(
      {
        accountId: source.accountId,
        hourEpoch: source.hourEpoch,
        cloudSpaceId: source.cloudSpaceId,
        root: location.root,
      },
      location.sizeBytes,
      location.packed,
    );
    this.rootOf[i] = -1;
    this.relativeStart[i + 1] = this.relativeStart[i]!;
    this.zipSources[i] = source;
  }

  private next(
    parsed: Pick<ConsumptionPath, "accountId" | "hourEpoch" | "cloudSpaceId" | "root">,
    sizeBytes: number,
    packed: boolean,
  ): number {
    if (this.size === this.accountIds.length) this.grow();
    const i = this.size++;
    this.accountIds[i] = parsed.accountId;
    this.hourEpochs[i] = parsed.hourEpoch;
    this.cloudSpaceIds[i] = parsed.cloudSpaceId ?? Number.NaN;
    this.sizes[i] = sizeBytes;
    this.flags[i] = (parsed.root === "CloudSpace" ? CLOUD_SPACE_ROOT : 0) | (packed ? PACKED : 0);
    return i;
  }

  private grow(): void {
    const more = <T extends Float64Array | Uint8Array | Int32Array>(a: T): T => withRoom(a, a.length, a.length + 1);
    this.accountIds = more(this.accountIds);
    this.hourEpochs = more(this.hourEpochs);
    this.cloudSpaceIds = more(this.cloudSpaceIds);
    this.sizes = more(this.sizes);
    this.flags = more(this.flags);
    this.rootOf = more(this.rootOf);
    this.relativeStart = withRoom(this.relativeStart, this.relativeStart.length, this.accountIds.length + 1);
  }

  private relative(i: number): string {
    return this.relativeBytes.toString("utf8", this.relativeStart[i]!, this.relativeStart[i + 1]!);
  }

  accountId(i: number): number {
    return this.accountIds[i]!;
  }

  hourEpoch(i: number): number {
    return this.hourEpochs[i]!;
  }

  sizeBytes(i: number): number {
    return this.sizes[i]!;
  }

  /** A tree file's path (undefined for a zip entry). */
  path(i: number): string | undefined {
    const root = this.rootOf[i]!;
    if (root < 0) return undefined;
    const relative = this.relative(i);
    return relative === "" ? this.roots[root]!.absolute : below(this.roots[root]!.absolute, relative);
  }

  /** The display name of row `i`. */
  displayName(i: number): string {
    const zip = this.zipSources[i];
    if (zip !== undefined) return zip.location.name;
    const relative = this.relative(i);
    const root = this.roots[this.rootOf[i]!]!;
    return relative === "" ? root.displayName : below(root.normalized, relative);
  }

  /** Row `i` as a source. */
  source(i: number): IndexedSource {
    const zip = this.zipSources[i];
    if (zip !== undefined) return zip;
    const flags = this.flags[i]!;
    const cloudSpaceId = this.cloudSpaceIds[i]!;
    return {
      location: {
        name: this.displayName(i),
        root: flags & CLOUD_SPACE_ROOT ? "CloudSpace" : "Account",
        packed: (flags & PACKED) !== 0,
        sizeBytes: this.sizes[i]!,
      },
      accountId: this.accountIds[i]!,
      hourEpoch: this.hourEpochs[i]!,
      cloudSpaceId: Number.isNaN(cloudSpaceId) ? null : cloudSpaceId,
      path: this.path(i),
    };
  }

  /**
   * The rows in reading order: by account, hour (`by` hour: by hour, account), then `Account`
   * files before `CloudSpace` files by cloud space id, ties by display name (then by the order
   * they were added).
   */
  sorted(by: "account" | "hour" = "account"): Uint32Array {
    const order = new Uint32Array(this.size);
    for (let i = 0; i < order.length; i++) order[i] = i;
    return order.sort(
      by === "account"
        ? this.compareRows
        : (a, b) => this.hourEpochs[a]! - this.hourEpochs[b]! || this.compareRows(a, b),
    );
  }

  /** The reading order of two rows (see {@link sorted}). */
  compareRows = (a: number, b: number): number => {
    const cs = (i: number) => (Number.isNaN(this.cloudSpaceIds[i]!) ? -1 : this.cloudSpaceIds[i]!);
    const byKey =
      this.accountIds[a]! - this.accountIds[b]! || this.hourEpochs[a]! - this.hourEpochs[b]! || cs(a) - cs(b);
    if (byKey !== 0) return byKey;
    const x = this.displayName(a);
    const y = this.displayName(b);
    return x < y ? -1 : x > y ? 1 : a - b;
  };
}

/** `join(parent, relative)` for a normalized `parent` and a normalized relative path, without join's normalizing. */
function below(parent: string, relative: string): string {
  if (parent === ".") return relative;
  return parent.endsWith(sep) ? `${parent}${relative}` : `${parent}${sep}${relative}`;
}
