import { Exact } from "./exact.js";
import { HourlyRows } from "./hourlyRows.js";
import {
  compareLines,
  CU_ALLOCATED,
  LEVEL_OF_RANK,
  LEVEL_RANK,
  type EngineLine,
  type EngineSums,
  type EntityIds,
} from "./engineSums.js";

/** Where an engine gives each hour's lines as rows of numbers (see {@link HourlyRows}) instead of line objects. */
export interface HourlyRowsSink {
  rows: (rows: HourlyRows) => void;
}

/** What an engine calls with each hour's lines: line objects, or rows of numbers. */
export type HourSink = ((lines: EngineLine[]) => void) | HourlyRowsSink;

/**
 * The hourly road of a {@link BillingEngine}: the lines of the current hour, gathered as its
 * account-hours are added (`line`), and given to the sink, the environment's first, once the
 * next hour begins (`begin`) or the period ends (`flush`): as line objects, or as rows.
 */
export class HourlyOutput {
  private lines: EngineLine[] = [];
  private readonly onLines: ((lines: EngineLine[]) => void) | undefined;
  private readonly rows: HourlyRows | undefined;
  private readonly onRows: ((rows: HourlyRows) => void) | undefined;
  /** The hour whose lines are gathered (null before the first and after `flush`). */
  hour: number | null = null;

  constructor(
    private readonly sums: EngineSums,
    sink: HourSink,
    /** The figures of an hour of the environment (the engine's). */
    private readonly environmentOf: (hourEpoch: number) => Float64Array,
  ) {
    if (typeof sink === "function") this.onLines = sink;
    else {
      this.onRows = sink.rows;
      this.rows = new HourlyRows(sums.figureNames);
    }
  }

  /** Starts gathering the lines of `hourEpoch`, giving the previous hour's; hours come in order. */
  begin(hourEpoch: number): void {
    if (this.hour === hourEpoch) return;
    if (this.hour !== null && hourEpoch < this.hour)
      throw new Error(`account-hours out of hour order: ${hourEpoch} after ${this.hour}`);
    this.flush();
    this.hour = hourEpoch;
    this.rows?.begin(hourEpoch);
  }

  /** Adds the hourly line of an entity of a level (`rank`) from its figures at `f[at .. at + F)`: a row, or an object. */
  line(rank: number, ids: EntityIds, f: Float64Array, at: number): void {
    const rows = this.rows;
    if (rows !== undefined)
      rows.push(rank, ids.accountId!, ids.cloudspaceId ?? Number.NaN, ids.machineId ?? Number.NaN, f, at);
    else
      this.lines.push({
        level: LEVEL_OF_RANK[rank]!,
        accountId: ids.accountId,
        cloudspaceId: ids.cloudspaceId,
        machineId: ids.machineId,
        hourEpoch: this.hour,
        sampleHours: 1,
        figures: this.sums.figuresOf(f, at, rank === 3),
      });
  }

  /**
   * Gives the current hour's lines, the environment's first, allocated the Σ of its accounts'
   * CU that hour, as its period line is (showback's allocateToEnvironment).
   */
  flush(): void {
    if (this.hour === null) return;
    const f = this.environmentOf(this.hour);
    const rows = this.rows;
    if (rows !== undefined) {
      const F = this.sums.F;
      let allocated = Exact.ZERO;
      for (let r = 1; r < rows.count; r++)
        if (rows.rank[r] === LEVEL_RANK.account)
          allocated = allocated.add(Exact.fromNumber(rows.figures[F * r + CU_ALLOCATED]!));
      f[CU_ALLOCATED] = allocated.toNumber();
      rows.setRow(0, LEVEL_RANK.environment, Number.NaN, Number.NaN, Number.NaN, f, 0);
      this.onRows!(rows);
      return;
    }
    const lines = this.lines;
    f[CU_ALLOCATED] = lines
      .reduce((sum, l) => (l.level === "account" ? sum.add(Exact.fromNumber(l.figures.cuAllocated)) : sum), Exact.ZERO)
      .toNumber();
    lines.push({
      level: "environment",
      accountId: null,
      cloudspaceId: null,
      machineId: null,
      hourEpoch: this.hour,
      sampleHours: 1,
      figures: this.sums.figuresOf(f, 0, false),
    });
    lines.sort(compareLines);
    this.lines = [];
    this.onLines!(lines);
  }
}
