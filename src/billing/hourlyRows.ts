/**
 * The lines of one hour as rows of numbers (what `BillingEngine` gives a caller that asks for
 * them instead of line objects): per row its level's rank (`LEVEL_RANK`), its ids (NaN for
 * none) and its figures side by side, `width` of them, named by `names` (the figure extras,
 * then the units of the catalog). A machine's NU is 0 (it has none of its own: its external
 * NICs' are `ownNicNu`). Rows are the environment's first, then per account-hour in hour
 * order, then account: the account's, its cloud spaces' (in the facts' order), its machines'
 * (in the facts' order). Valid until the engine's next hour: copy what is kept.
 */
export class HourlyRows {
  hourEpoch = Number.NaN;
  count = 0;
  rank: Uint8Array;
  accountId: Float64Array;
  cloudspaceId: Float64Array;
  machineId: Float64Array;
  /** `figures[width × row + k]`: figure `names[k]` of the row. */
  figures: Float64Array;

  constructor(
    readonly names: readonly string[],
    capacity = 1024,
  ) {
    this.rank = new Uint8Array(capacity);
    this.accountId = new Float64Array(capacity);
    this.cloudspaceId = new Float64Array(capacity);
    this.machineId = new Float64Array(capacity);
    this.figures = new Float64Array(capacity * names.length);
  }

  get width(): number {
    return this.names.length;
  }

  /** The position of a figure in a row (-1 when there is no such figure). */
  figureAt(name: string): number {
    return this.names.indexOf(name);
  }

  /** Empties the rows for `hourEpoch`, keeping row 0 for the environment (see {@link setRow}). */
  begin(hourEpoch: number): void {
    this.hourEpoch = hourEpoch;
    this.count = 1;
  }

  /** Appends a row of the figures `f[at .. at + width)`. */
  push(rank: number, accountId: number, cloudspaceId: number, machineId: number, f: Float64Array, at: number): void {
    if (this.count === this.rank.length) this.grow();
    this.setRow(this.count++, rank, accountId, cloudspaceId, machineId, f, at);
  }

  /** Writes row `row`. */
  setRow(
    row: number,
    rank: number,
    accountId: number,
    cloudspaceId: number,
    machineId: number,
    f: Float64Array,
    at: number,
  ): void {
    this.rank[row] = rank;
    this.accountId[row] = accountId;
    this.cloudspaceId[row] = cloudspaceId;
    this.machineId[row] = machineId;
    const width = this.names.length;
    const figures = this.figures;
    for (let k = 0, to = width * row; k < width; k++) figures[to + k] = f[at + k]!;
  }

  private grow(): void {
    const n = this.rank.length * 2;
    const more = <T extends Uint8Array | Float64Array>(a: T, size: number): T => {
      const b = new (a.constructor as new (n: number) => T)(size);
      b.set(a);
      return b;
    };
    this.rank = more(this.rank, n);
    this.accountId = more(this.accountId, n);
    this.cloudspaceId = more(this.cloudspaceId, n);
    this.machineId = more(this.machineId, n);
    this.figures = more(this.figures, n * this.names.length);
  }
}
