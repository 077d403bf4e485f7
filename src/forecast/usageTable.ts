import type { EngineLine } from "../billing/billingEngine.js";
import type { Level } from "../billing/levels.js";
import { nameOf, type Names } from "../billing/names.js";
import { priceAt, priceChanges, type PriceList } from "../billing/prices.js";
import { UNIT_NAMES } from "../billing/unitNames.js";
import type { Units } from "../billing/units.js";

const HOUR = 3600;

/** What forecasts, anomalies and rankings measure: the four billing units, and money. */
export const METRICS = ["CU", "SU", "TU", "NU", "cost"] as const;
/** A measured figure: CU, SU, TU (unit-hours), NU (TiB transferred) or cost (in the price list's currency). */
export type Metric = (typeof METRICS)[number];
const M = METRICS.length;
const [CU, SU, TU, NU, COST] = [0, 1, 2, 3, 4];

/** The unit a metric is counted in, as outputs name it: `CU-hours`, `SU-hours`, `TU-hours`, `TiB` (NU), the currency (cost). */
export function metricUnit(metric: Metric, currency?: string): string {
  return metric === "cost" ? currency ?? "" : metric === "NU" ? "TiB" : `${metric}-hours`;
}

/** One entity of the billing hierarchy and its figures hour by hour over the hours of its table. */
export interface EntityUsage {
  /** `account:7`, `cloudspace:7:120`, `machine:7:120:4392`, `environment`. */
  key: string;
  level: Level;
  accountId: number | null;
  cloudspaceId: number | null;
  machineId: number | null;
  /** From the names given (or stored by sync), `""` when unknown. */
  name: string;
  /**
   * `values[h × 5 + m]`: metric `METRICS[m]` in hour `h` of the table (its start + h × 3600 s):
   * CU (own), SU, TU (unit-hours), NU (TiB; a machine's own external NICs), cost (NaN without
   * prices). NaN everywhere in an hour the entity has no line.
   */
  values: Float64Array;
}

/** The key of an entity. */
export function entityKey(l: { level: Level; accountId: number | null; cloudspaceId: number | null; machineId: number | null }): string {
  return l.level === "environment" ? "environment" : [l.level, l.accountId, l.cloudspaceId, l.machineId].filter((v) => v !== null).join(":");
}

/**
 * The money of each line of an hour: each unit's unit-hours (CU: the line's allocated CU, so
 * machines' costs add up to their account's; NU of a machine: its own external NICs) at the
 * account's price in force that hour, unrounded; the environment's is the sum of its
 * accounts'. The prices of an account are looked up once per stretch of hours without a price change.
 */
export class HourCosts {
  private readonly changes: number[];
  private stretch = -1;
  private readonly byAccount = new Map<number, { per: number; price: number }[]>();

  constructor(private readonly prices: PriceList, private readonly units: Units, start: number, end: number) {
    this.changes = priceChanges(prices, start, end);
  }

  private pricesOf(accountId: number, hourEpoch: number): { per: number; price: number }[] {
    let stretch = 0;
    while (stretch < this.changes.length && this.changes[stretch]! <= hourEpoch) stretch++;
    if (stretch !== this.stretch) {
      this.stretch = stretch;
      this.byAccount.clear();
    }
    let list = this.byAccount.get(accountId);
    if (list === undefined) {
      list = UNIT_NAMES.map((unit) => {
        const price = priceAt(this.prices, accountId, unit, hourEpoch);
        return price === undefined ? { per: Number.NaN, price: Number.NaN } : { per: price.per === "month" ? this.units.hoursPerMonth : 1, price: Number(price.text) };
      });
      this.byAccount.set(accountId, list);
    }
    return list;
  }

  /** The cost of a line that is not the environment's. */
  of(line: EngineLine, hourEpoch: number): number {
    const list = this.pricesOf(line.accountId!, hourEpoch);
    const f = line.figures;
    let cost = 0;
    for (let k = 0; k < UNIT_NAMES.length; k++) {
      const { per, price } = list[k]!;
      if (Number.isNaN(price)) continue;
      const unit = UNIT_NAMES[k]!;
      const unitHours = unit === "CU" ? f.cuAllocated : unit === "NU" && line.level === "machine" ? f.ownNicNu : f[unit] ?? 0;
      cost += (per === 1 ? unitHours : unitHours / per) * price;
    }
    return cost;
  }
}

/** The figures of each line of an hour, `M` per line in `METRICS` order (`out`, grown as needed, is returned). */
export function hourFigures(lines: readonly EngineLine[], costs: HourCosts | undefined, out: Float64Array): Float64Array {
  if (out.length < M * lines.length) out = new Float64Array(M * lines.length * 2);
  let environment = -1;
  let environmentCost = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const f = line.figures;
    const at = M * i;
    out[at + CU] = f.CU ?? 0;
    out[at + SU] = f.SU ?? 0;
    out[at + TU] = f.TU ?? 0;
    out[at + NU] = line.level === "machine" ? f.ownNicNu : f.NU ?? 0;
    if (line.level === "environment") {
      environment = at;
      continue;
    }
    const cost = costs === undefined ? Number.NaN : costs.of(line, line.hourEpoch!);
    out[at + COST] = cost;
    if (line.level === "account") environmentCost += cost;
  }
  if (environment >= 0) out[environment + COST] = costs === undefined ? Number.NaN : environmentCost;
  return out;
}

/**
 * The figures of every entity of some levels, hour by hour over `[start, end)`, in one column
 * per entity and metric (`EntityUsage.values`): what forecasts and anomalies read, filled an
 * hour at a time from the billing engine's lines (`add`).
 */
export class UsageTable {
  /** Hours in the table. */
  readonly hours: number;
  readonly entities: EntityUsage[] = [];
  private environment: EntityUsage | undefined;
  /** The entities by ids: an account's, its cloud spaces', their machines'. */
  private readonly accounts = new Map<number, { entity?: EntityUsage; cloudspaces: Map<number, { entity?: EntityUsage; machines: Map<number, EntityUsage> }> }>();

  constructor(readonly start: number, readonly end: number, readonly levels: readonly Level[], private readonly names: Names | undefined) {
    this.hours = Math.max(0, Math.ceil((end - start) / HOUR));
  }

  /** Adds an hour's lines and their figures (`hourFigures`); lines of other levels or hours outside the table are left out. */
  add(lines: readonly EngineLine[], figures: Float64Array): void {
    const hourEpoch = lines[0]?.hourEpoch ?? Number.NaN;
    const h = (hourEpoch - this.start) / HOUR;
    if (!(h >= 0 && h < this.hours)) return;
    const wanted = { environment: false, account: false, cloudspace: false, machine: false };
    for (const level of this.levels) wanted[level] = true;
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      if (!wanted[line.level]) continue;
      // an hour's figures are side by side (one cache line), as the engine gives them
      const values = this.entityOf(line).values;
      for (let m = 0, to = M * h, from = M * i; m < M; m++) values[to + m] = figures[from + m]!;
    }
  }

  private entityOf(line: EngineLine): EntityUsage {
    if (line.level === "environment") return (this.environment ??= this.made(line));
    let account = this.accounts.get(line.accountId!);
    if (account === undefined) this.accounts.set(line.accountId!, (account = { cloudspaces: new Map() }));
    if (line.level === "account") return (account.entity ??= this.made(line));
    let cloudspace = account.cloudspaces.get(line.cloudspaceId!);
    if (cloudspace === undefined) account.cloudspaces.set(line.cloudspaceId!, (cloudspace = { machines: new Map() }));
    if (line.level === "cloudspace") return (cloudspace.entity ??= this.made(line));
    let machine = cloudspace.machines.get(line.machineId!);
    if (machine === undefined) cloudspace.machines.set(line.machineId!, (machine = this.made(line)));
    return machine;
  }

  /** A new entity of the table, its figures all absent. */
  private made(line: EngineLine): EntityUsage {
    const kind = line.level === "machine" ? "machine" : line.level === "cloudspace" ? "cloudspace" : "account";
    const id = line.level === "machine" ? line.machineId : line.level === "cloudspace" ? line.cloudspaceId : line.accountId;
    const entity: EntityUsage = {
      key: entityKey(line), level: line.level, accountId: line.accountId, cloudspaceId: line.cloudspaceId, machineId: line.machineId,
      name: line.level === "environment" ? "" : nameOf(this.names, kind, id!), values: new Float64Array(M * this.hours).fill(Number.NaN),
    };
    this.entities.push(entity);
    return entity;
  }

  /** True when the entity has a line in hour `h` of the table. */
  held(entity: EntityUsage, h: number): boolean {
    return h >= 0 && h < this.hours && !Number.isNaN(entity.values[M * h]!);
  }

  /** Metric `m` (its position in `METRICS`) of the entity in hour `h` of the table. */
  value(entity: EntityUsage, m: number, h: number): number {
    return entity.values[M * h + m]!;
  }
}
