import type { ResolvedBillingOptions } from "./billingOptions.js";
import { HourlyRows } from "./hourlyRows.js";
import { LEVELS, type Level } from "./levels.js";
import type { BillingLine } from "./lines.js";
import { nameOf, type NameKind } from "./names.js";
import { catalogUnits, isVolume } from "./unitCatalog.js";

/** A line as {@link HourlyRowLines.fill} writes it (a `BillingLine` of any level). */
interface LineSlot {
  hourEpoch: number | null;
  sampleHours: number;
  cuSumOfMachines: number;
  gatewayPiuHours: number;
  cuAllocated: number;
  cuAllocatedHours: number;
  ownNicNu: number;
  level: Level;
  accountId: number | null;
  cloudspaceId: number | null;
  machineId: number | null;
  name: string;
  quantities: Record<string, number | null>;
  unitHours: Record<string, number | null>;
}

const KIND: readonly (NameKind | undefined)[] = [undefined, "account", "cloudspace", "machine"];

/**
 * The rows of an engine's hours (`HourlyRows`, in report order: see {@link inReportOrder}) as
 * `BillingLine`s, the same as `toLine` makes of its line objects (names from the options,
 * quantities per `options.per`): {@link line} makes one, {@link fill} rewrites one line object
 * in place, so an output that writes a row before it reads the next keeps one object for all
 * its rows (of one shape, hour after hour).
 */
export class HourlyRowLines {
  private readonly units = catalogUnits();
  private readonly divisor: number;
  /** Per unit: where its figure is in a row. */
  private readonly unitAt: number[];
  private readonly volume: boolean[];
  private readonly cuSumAt: number;
  private readonly gatewayPiuAt: number;
  private readonly cuAllocatedAt: number;
  private readonly ownNicNuAt: number;

  constructor(
    private readonly options: ResolvedBillingOptions,
    figureNames: readonly string[],
  ) {
    this.divisor = options.per === "month" ? options.units.hoursPerMonth : 1;
    const at = (name: string) => {
      const k = figureNames.indexOf(name);
      if (k < 0) throw new Error(`internal: no figure ${name} in the engine's rows`);
      return k;
    };
    this.unitAt = this.units.map(at);
    this.volume = this.units.map(isVolume);
    this.cuSumAt = at("cuSum");
    this.gatewayPiuAt = at("gatewayPiu");
    this.cuAllocatedAt = at("cuAllocated");
    this.ownNicNuAt = at("ownNicNu");
  }

  /** Row `i` of `rows` as a new line. */
  line(rows: HourlyRows, i: number): BillingLine {
    return this.fill(this.empty(), rows, i);
  }

  /** A line to {@link fill}. */
  empty(): BillingLine {
    const quantities: Record<string, number | null> = {};
    const unitHours: Record<string, number | null> = {};
    for (const u of this.units) quantities[u] = unitHours[u] = 0;
    const line: LineSlot = {
      hourEpoch: 0,
      sampleHours: 1,
      cuSumOfMachines: 0,
      gatewayPiuHours: 0,
      cuAllocated: 0,
      cuAllocatedHours: 0,
      ownNicNu: 0,
      level: "environment",
      accountId: null,
      cloudspaceId: null,
      machineId: null,
      name: "",
      quantities,
      unitHours,
    };
    return line as unknown as BillingLine;
  }

  /** Writes row `i` of `rows` into `target` (made by {@link empty}), and returns it. */
  fill(target: BillingLine, rows: HourlyRows, i: number): BillingLine {
    const line = target as unknown as LineSlot;
    const f = rows.figures;
    const at = i * rows.width;
    const divisor = this.divisor;
    const rank = rows.rank[i]!;
    const machine = rank === 3;
    const { quantities, unitHours } = line;
    for (let k = 0; k < this.units.length; k++) {
      const u = this.units[k]!;
      const v = machine && this.volume[k] ? null : f[at + this.unitAt[k]!]!;
      unitHours[u] = v;
      quantities[u] = v === null ? null : this.volume[k] ? v : v / divisor;
    }
    line.hourEpoch = rows.hourEpoch;
    line.sampleHours = 1;
    line.cuSumOfMachines = f[at + this.cuSumAt]! / divisor;
    line.gatewayPiuHours = f[at + this.gatewayPiuAt]!;
    line.cuAllocated = f[at + this.cuAllocatedAt]! / divisor;
    line.cuAllocatedHours = f[at + this.cuAllocatedAt]!;
    line.ownNicNu = f[at + this.ownNicNuAt]!;
    line.level = LEVELS[rank]!;
    line.accountId = rank >= 1 ? rows.accountId[i]! : null;
    line.cloudspaceId = rank >= 2 ? rows.cloudspaceId[i]! : null;
    line.machineId = machine ? rows.machineId[i]! : null;
    const kind = KIND[rank];
    line.name =
      kind === undefined
        ? ""
        : nameOf(
            this.options.names,
            kind,
            kind === "account" ? line.accountId! : kind === "cloudspace" ? line.cloudspaceId! : line.machineId!,
          );
    return target;
  }
}

/**
 * A copy of an engine's rows of an hour (valid until its next hour, in the order it added them)
 * of the rows at `levels`, in report order: by account, cloud space and machine (none first),
 * then level, as `compareLines` orders line objects (rows of the same ids stay in the order they came).
 */
export function inReportOrder(rows: HourlyRows, levels: readonly Level[]): HourlyRows {
  const kept = LEVELS.map((l) => levels.includes(l));
  const order: number[] = [];
  for (let i = 0; i < rows.count; i++) if (kept[rows.rank[i]!]) order.push(i);
  const key = (id: number) => (Number.isNaN(id) ? -Infinity : id);
  const { accountId, cloudspaceId, machineId, rank } = rows;
  order.sort(
    (i, j) =>
      key(accountId[i]!) - key(accountId[j]!) ||
      key(cloudspaceId[i]!) - key(cloudspaceId[j]!) ||
      key(machineId[i]!) - key(machineId[j]!) ||
      rank[i]! - rank[j]! ||
      i - j,
  );
  const out = new HourlyRows(rows.names, Math.max(1, order.length));
  out.hourEpoch = rows.hourEpoch;
  for (const i of order)
    out.push(rank[i]!, accountId[i]!, cloudspaceId[i]!, machineId[i]!, rows.figures, i * rows.width);
  return out;
}

/** The rows of each hour as `BillingLine`s (new objects: a consumer may keep them), batch by batch. */
export async function* linesOfRows(
  hours: AsyncIterable<HourlyRows>,
  options: ResolvedBillingOptions,
): AsyncGenerator<BillingLine[]> {
  let lines: HourlyRowLines | undefined;
  for await (const rows of hours) {
    lines ??= new HourlyRowLines(options, rows.names);
    const batch: BillingLine[] = [];
    for (let i = 0; i < rows.count; i++) batch.push(lines.line(rows, i));
    yield batch;
  }
}

/**
 * The rows of each hour, batch by batch, as one line object rewritten for each row in turn
 * (`line(i)` fills it with row `i` and returns it): for an output that writes a row before it
 * reads the next, so nothing per row is kept (the hourly CSV, the XLSX Hourly sheet).
 */
export async function* refilledLinesOfRows(
  hours: AsyncIterable<HourlyRows>,
  options: ResolvedBillingOptions,
): AsyncGenerator<{ count: number; line: (i: number) => BillingLine }> {
  let lines: HourlyRowLines | undefined;
  let slot: BillingLine | undefined;
  for await (const rows of hours) {
    const reader = (lines ??= new HourlyRowLines(options, rows.names));
    const target = (slot ??= reader.empty());
    yield { count: rows.count, line: (i) => reader.fill(target, rows, i) };
  }
}
