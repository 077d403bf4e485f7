import { compareEntities, LEVEL_RANK } from "../billing/billingEngine.js";
import type { HourlyRows } from "../billing/hourlyRows.js";
import type { Level } from "../billing/levels.js";
import { nameOf, type Names } from "../billing/names.js";
import { priceAt, priceChanges, type PriceList } from "../billing/prices.js";
import { UNIT_NAMES } from "../billing/unitNames.js";
import type { Units } from "../billing/units.js";

const HOUR = 3600;

/** What forecasts, anomalies and rankings measure: the four billing units, and money. */
export const METRICS = ["CU", "SU", "TU", "NU", "cost"] as const;
/** A measured figure: CU, SU, TU (unit-hours), NU (TiB transferred) or cost (in the currency of the entity's account). */
export type Metric = (typeof METRICS)[number];
const M = METRICS.length;
const [CU, SU, TU, NU, COST] = [0, 1, 2, 3, 4];

/** The unit a metric is counted in, as outputs name it: `CU-hours`, `SU-hours`, `TU-hours`, `TiB` (NU), the currency (cost). */
export function metricUnit(metric: Metric, currency?: string): string {
  return metric === "cost" ? (currency ?? "") : metric === "NU" ? "TiB" : `${metric}-hours`;
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
   * CU (own), SU, TU (unit-hours), NU (TiB; a machine's own external NICs), cost (in its
   * account's currency; NaN without prices, and for the environment). NaN everywhere in an hour
   * the entity has no line.
   */
  values: Float64Array;
}

/** The key of an entity. */
export function entityKey(l: {
  level: Level;
  accountId: number | null;
  cloudspaceId: number | null;
  machineId: number | null;
}): string {
  return l.level === "environment"
    ? "environment"
    : [l.level, l.accountId, l.cloudspaceId, l.machineId].filter((v) => v !== null).join(":");
}

/**
 * The money of each line of an hour: each unit's unit-hours (CU: the line's allocated CU, so
 * machines' costs add up to their account's; NU of a machine: its own external NICs) at the
 * account's price in force that hour, unrounded, in the currency the account is billed in. The
 * environment has none: its accounts may bill in several currencies, and two are never added
 * (`Forecast.amounts` adds them up per currency). The prices of an account are looked up once
 * per stretch of hours without a price change.
 */
export class HourCosts {
  private readonly changes: number[];
  private stretch = -1;
  private readonly byAccount = new Map<number, { per: number; price: number }[]>();
  /** The prices of the last account and hour asked for (rows come account by account). */
  private lastAccount = Number.NaN;
  private lastHour = Number.NaN;
  private lastPrices: { per: number; price: number }[] = [];

  constructor(
    private readonly prices: PriceList,
    private readonly units: Units,
    start: number,
    end: number,
  ) {
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
        return price === undefined
          ? { per: Number.NaN, price: Number.NaN }
          : { per: price.per === "month" ? this.units.hoursPerMonth : 1, price: Number(price.text) };
      });
      this.byAccount.set(accountId, list);
    }
    return list;
  }

  /** The cost of row `r` of an hour's rows (not the environment's), its figures read where `at` says. */
  of(rows: HourlyRows, r: number, at: FigurePositions): number {
    const accountId = rows.accountId[r]!;
    if (accountId !== this.lastAccount || rows.hourEpoch !== this.lastHour) {
      this.lastPrices = this.pricesOf(accountId, rows.hourEpoch);
      this.lastAccount = accountId;
      this.lastHour = rows.hourEpoch;
    }
    const list = this.lastPrices;
    const f = rows.figures;
    const row = rows.width * r;
    const figures = rows.rank[r] === LEVEL_RANK.machine ? at.machineUnits : at.unitsRead;
    let cost = 0;
    for (let k = 0; k < UNIT_NAMES.length; k++) {
      const { per, price } = list[k]!;
      if (Number.isNaN(price)) continue;
      const figure = figures[k]!;
      const unitHours = figure < 0 ? 0 : f[row + figure]!;
      cost += (per === 1 ? unitHours : unitHours / per) * price;
    }
    return cost;
  }
}

/** Where the figures read are in a row of `HourlyRows` (-1: not there, read as 0). */
interface FigurePositions {
  names: readonly string[];
  CU: number;
  SU: number;
  TU: number;
  NU: number;
  cuAllocated: number;
  ownNicNu: number;
  /** What the cost of a row reads for each of `UNIT_NAMES`: CU allocated for CU; a machine's own external NICs for its NU. */
  unitsRead: number[];
  machineUnits: number[];
}

let positions: FigurePositions | undefined;
function positionsIn(rows: HourlyRows): FigurePositions {
  if (positions?.names === rows.names) return positions;
  const at = (name: string) => rows.figureAt(name);
  return (positions = {
    names: rows.names,
    CU: at("CU"),
    SU: at("SU"),
    TU: at("TU"),
    NU: at("NU"),
    cuAllocated: at("cuAllocated"),
    ownNicNu: at("ownNicNu"),
    unitsRead: UNIT_NAMES.map((unit) => (unit === "CU" ? at("cuAllocated") : at(unit))),
    machineUnits: UNIT_NAMES.map((unit) =>
      unit === "CU" ? at("cuAllocated") : unit === "NU" ? at("ownNicNu") : at(unit),
    ),
  });
}

/** A usage pass's `onHour` that adds each hour's rows to `table` with their figures (`hourFigures`, one scratch array reused). */
export function feedingTable(table: UsageTable, costs: HourCosts | undefined): (rows: HourlyRows) => void {
  let scratch: Float64Array = new Float64Array(0);
  return (rows) => table.add(rows, (scratch = hourFigures(rows, costs, scratch)));
}

/**
 * The figures of each row of an hour, `M` per row in `METRICS` order (`out`, grown as needed,
 * is returned); cost in the currency of the row's account, none (NaN) for the environment (`HourCosts`).
 */
export function hourFigures(rows: HourlyRows, costs: HourCosts | undefined, out: Float64Array): Float64Array {
  if (out.length < M * rows.count) out = new Float64Array(M * rows.count * 2);
  const at = positionsIn(rows);
  const f = rows.figures;
  const width = rows.width;
  const figure = (row: number, k: number) => (k < 0 ? 0 : f[row + k]!);
  for (let r = 0; r < rows.count; r++) {
    const rank = rows.rank[r]!;
    const row = width * r;
    const to = M * r;
    out[to + CU] = figure(row, at.CU);
    out[to + SU] = figure(row, at.SU);
    out[to + TU] = figure(row, at.TU);
    out[to + NU] = figure(row, rank === LEVEL_RANK.machine ? at.ownNicNu : at.NU);
    out[to + COST] = costs === undefined || rank === LEVEL_RANK.environment ? Number.NaN : costs.of(rows, r, at);
  }
  return out;
}

const LEVEL_OF_RANK: readonly Level[] = ["environment", "account", "cloudspace", "machine"];
/** The same id, or both none (NaN). */
const same = (a: number, b: number): boolean => a === b || (a !== a && b !== b);
const idOrNull = (id: number): number | null => (Number.isNaN(id) ? null : id);

/** Where row r of an hour is first looked for among the rows of the hour before: at r + shift, then a few places on either side. */
const NEAR = [0, 1, -1, 2, -2, 3, -3, 4, -4];

/** The entity of each row kept of an hour (`count` of them), and the row's rank and ids. */
class RowEntities {
  count = 0;
  rank = new Uint8Array(0);
  accountId = new Float64Array(0);
  cloudspaceId = new Float64Array(0);
  machineId = new Float64Array(0);
  entity: EntityUsage[] = [];

  /** Itself, with room for `rows` rows. */
  holding(rows: number): this {
    if (rows <= this.rank.length) return this;
    const grown = <T extends Uint8Array | Float64Array>(a: T, b: T): T => {
      b.set(a);
      return b;
    };
    const n = Math.max(rows, 2 * this.rank.length);
    this.rank = grown(this.rank, new Uint8Array(n));
    this.accountId = grown(this.accountId, new Float64Array(n));
    this.cloudspaceId = grown(this.cloudspaceId, new Float64Array(n));
    this.machineId = grown(this.machineId, new Float64Array(n));
    return this;
  }

  /** True when row `p` is kept and of this rank and ids. */
  holds(p: number, rank: number, accountId: number, cloudspaceId: number, machineId: number): boolean {
    return (
      p >= 0 &&
      p < this.count &&
      this.rank[p] === rank &&
      same(this.accountId[p]!, accountId) &&
      same(this.cloudspaceId[p]!, cloudspaceId) &&
      same(this.machineId[p]!, machineId)
    );
  }

  /** Sets row `p`. */
  set(p: number, entity: EntityUsage, rank: number, accountId: number, cloudspaceId: number, machineId: number): void {
    this.entity[p] = entity;
    this.rank[p] = rank;
    this.accountId[p] = accountId;
    this.cloudspaceId[p] = cloudspaceId;
    this.machineId[p] = machineId;
  }
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
  private readonly accounts = new Map<
    number,
    { entity?: EntityUsage; cloudspaces: Map<number, { entity?: EntityUsage; machines: Map<number, EntityUsage> }> }
  >();

  constructor(
    readonly start: number,
    readonly end: number,
    readonly levels: readonly Level[],
    private readonly names: Names | undefined,
    spare: Float64Array[] = [],
  ) {
    this.hours = Math.max(0, Math.ceil((end - start) / HOUR));
    this.spare = spare.filter((values) => values.length === M * this.hours);
  }

  /**
   * Empties the table (it holds no entity after) and gives its entities' figures to be used
   * again by a table of as many hours (`spare`): reading accounts apart, a table after another
   * then takes no new memory.
   */
  release(): Float64Array[] {
    const values = this.entities.map((e) => e.values);
    this.entities.length = 0;
    this.environment = undefined;
    this.accounts.clear();
    this.lastRows.count = this.rowsNow.count = 0;
    return values;
  }

  /** Figures of entities of a table before, to be used again (`release`). */
  private readonly spare: Float64Array[];

  /**
   * Adds an hour's rows and their figures (`hourFigures`); rows of other levels or hours outside
   * the table are left out. Entities first seen in the same hour join `entities` in report order.
   */
  add(rows: HourlyRows, figures: Float64Array): void {
    const h = (rows.hourEpoch - this.start) / HOUR;
    if (!(h >= 0 && h < this.hours)) return;
    const wanted = [false, false, false, false];
    for (const level of this.levels) wanted[LEVEL_RANK[level]] = true;
    const fresh = this.fresh;
    // hour after hour the rows are mostly the same entities in the same places: row r is looked
    // for at row r + shift of the hour before (a few places on where machines came or went, the
    // shift then following), by its ids only when it is not there
    const last = this.lastRows.holding(rows.count);
    const now = this.rowsNow.holding(rows.count);
    let shift = 0;
    let n = 0;
    for (let r = 0; r < rows.count; r++) {
      const rank = rows.rank[r]!;
      if (!wanted[rank]) continue;
      const accountId = rows.accountId[r]!;
      const cloudspaceId = rows.cloudspaceId[r]!;
      const machineId = rows.machineId[r]!;
      let entity: EntityUsage | undefined;
      for (const d of NEAR) {
        const p = n + shift + d;
        if (last.holds(p, rank, accountId, cloudspaceId, machineId)) {
          entity = last.entity[p]!;
          shift += d;
          break;
        }
      }
      entity ??= this.entityOf(rank, accountId, cloudspaceId, machineId);
      now.set(n++, entity, rank, accountId, cloudspaceId, machineId);
      // an hour's figures are side by side (one cache line), as the engine gives them
      const values = entity.values;
      for (let m = 0, to = M * h, from = M * r; m < M; m++) values[to + m] = figures[from + m]!;
    }
    last.count = 0;
    now.count = n;
    this.rowsNow = last;
    this.lastRows = now;
    if (fresh.length === 0) return;
    this.entities.push(...fresh.sort(compareEntities));
    fresh.length = 0;
  }

  /** Entities made in the hour being added. */
  private readonly fresh: EntityUsage[] = [];
  /** The entity of each row kept of the hour added last, with its ids as the rows give them; and of the hour being added. */
  private lastRows = new RowEntities();
  private rowsNow = new RowEntities();

  private entityOf(rank: number, accountId: number, cloudspaceId: number, machineId: number): EntityUsage {
    if (rank === LEVEL_RANK.environment)
      return (this.environment ??= this.made(rank, Number.NaN, Number.NaN, Number.NaN));
    let account = this.accounts.get(accountId);
    if (account === undefined) this.accounts.set(accountId, (account = { cloudspaces: new Map() }));
    if (rank === LEVEL_RANK.account) return (account.entity ??= this.made(rank, accountId, Number.NaN, Number.NaN));
    let cloudspace = account.cloudspaces.get(cloudspaceId);
    if (cloudspace === undefined) account.cloudspaces.set(cloudspaceId, (cloudspace = { machines: new Map() }));
    if (rank === LEVEL_RANK.cloudspace)
      return (cloudspace.entity ??= this.made(rank, accountId, cloudspaceId, Number.NaN));
    let machine = cloudspace.machines.get(machineId);
    if (machine === undefined)
      cloudspace.machines.set(machineId, (machine = this.made(rank, accountId, cloudspaceId, machineId)));
    return machine;
  }

  /** A new entity of the table (NaN: no such id), its figures all absent. */
  private made(rank: number, accountId: number, cloudspaceId: number, machineId: number): EntityUsage {
    const level = LEVEL_OF_RANK[rank]!;
    const ids = {
      level,
      accountId: idOrNull(accountId),
      cloudspaceId: idOrNull(cloudspaceId),
      machineId: idOrNull(machineId),
    };
    const kind = level === "machine" ? "machine" : level === "cloudspace" ? "cloudspace" : "account";
    const id = level === "machine" ? machineId : level === "cloudspace" ? cloudspaceId : accountId;
    const entity: EntityUsage = {
      key: entityKey(ids),
      ...ids,
      name: level === "environment" ? "" : nameOf(this.names, kind, id),
      values: (this.spare.pop() ?? new Float64Array(M * this.hours)).fill(Number.NaN),
    };
    this.fresh.push(entity);
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
