import { SumBank } from "../base/exactSum.js";
import { catalogUnits, unitDef, type VmHour } from "./unitCatalog.js";
import { UNIT_NAMES, type CuRollup, type UnitName } from "./unitNames.js";
import { nicBytesPerHourValue, type Units } from "./units.js";
import { emptyVmFacts, type VmFacts } from "../load/vmFacts.js";

/** The rank of each level in a report's order (environment first, machines last). */
export const LEVEL_RANK = { environment: 0, account: 1, cloudspace: 2, machine: 3 } as const;
/** A level of the billing hierarchy. */
export type EngineLevel = keyof typeof LEVEL_RANK;
export const LEVEL_OF_RANK: EngineLevel[] = ["environment", "account", "cloudspace", "machine"];

/**
 * The figures of one entity, in one hour or summed over the period (docs/formulas.md): each
 * unit of the catalog in unit-hours, NU in TiB transferred (null for machines, which have no NU
 * of their own), and the figures below.
 */
export type Figures = Record<UnitName, number | null> & FigureExtras;

/** The figures of an entity besides its units. */
export interface FigureExtras {
  /** Σ of the machines' CU. */
  cuSum: number;
  /** The part of PIU that is the gateways' public IPs. */
  gatewayPiu: number;
  /** Showback CU (docs/formulas.md): the account's CU allocated to its cloud spaces, and on to their machines. */
  cuAllocated: number;
  /** NU of the entity's own external NICs (a machine's, or a cloud space's gateways'); 0 above. */
  ownNicNu: number;
}

/** One line the engine computes: an entity at a level, in one hour (`hourEpoch`) or over the period (null). */
export interface EngineLine {
  level: EngineLevel;
  accountId: number | null;
  cloudspaceId: number | null;
  machineId: number | null;
  hourEpoch: number | null;
  /** Hourly samples of the entity summed in the line (1 for an hourly line). */
  sampleHours: number;
  figures: Figures;
}

/** What the engine saw besides the figures: what data quality reports. */
export interface SeenData {
  /** Account id → the hours it has a sample in (ascending). */
  accountHours: Map<number, number[]>;
  /**
   * Account id → the runs of consecutive hours it has a sample in: `[start, end)` pairs one after
   * the other, ascending (what the grouped roads read from a warehouse: a year of an account's
   * hours is a few numbers, not 8,760). Data quality reads an account's hours from either map.
   */
  heldRuns?: Map<number, number[]>;
  /** Machine records of types other than the billed one: type → machine-hours. */
  unbilledTypes: Map<string, number>;
  /** Machine records with id 0 and type "", cloud-space rows with id 0 and state "". */
  emptyMachineHours: number;
  emptyCloudspaceHours: number;
}

/** True when `hours` are in ascending order (each at least the one before). */
export function ascending(hours: ArrayLike<number>): boolean {
  for (let k = 1; k < hours.length; k++) if (hours[k]! < hours[k - 1]!) return false;
  return true;
}

/** Adds `more` to `seen` (what data quality reads of other account-hours). */
export function addSeenData(seen: SeenData, more: SeenData): void {
  for (const [accountId, list] of more.accountHours) {
    // appended, not spread into a new array: a year of 100 accounts is 876,000 hours
    const hours = seen.accountHours.get(accountId);
    if (hours === undefined) seen.accountHours.set(accountId, list.slice());
    else for (const hour of list) hours.push(hour);
  }
  for (const [accountId, runs] of more.heldRuns ?? []) addHeldRuns((seen.heldRuns ??= new Map()), accountId, runs);
  for (const [type, n] of more.unbilledTypes) seen.unbilledTypes.set(type, (seen.unbilledTypes.get(type) ?? 0) + n);
  seen.emptyMachineHours += more.emptyMachineHours;
  seen.emptyCloudspaceHours += more.emptyCloudspaceHours;
}

/**
 * Adds runs of held hours (`[start, end)` pairs, ascending) to an account's in `heldRuns`, after
 * its last: a run that starts where the last ends (runs of hours read apart) extends it.
 */
export function addHeldRuns(heldRuns: Map<number, number[]>, accountId: number, runs: ArrayLike<number>): void {
  let held = heldRuns.get(accountId);
  if (held === undefined) heldRuns.set(accountId, (held = []));
  for (let k = 0; k < runs.length; k += 2) {
    const end = held.at(-1);
    if (end !== undefined && runs[k]! < end) {
      // not after the last (engines' hours merged in another order): all of them sorted, overlaps joined
      heldRuns.set(accountId, joinedRuns([...held, ...Array.from(runs)]));
      return;
    }
    if (end === runs[k]) held[held.length - 1] = runs[k + 1]!;
    else held.push(runs[k]!, runs[k + 1]!);
  }
}

/** `[start, end)` pairs sorted by their start, those that overlap or touch joined. */
function joinedRuns(flat: readonly number[]): number[] {
  const pairs: [number, number][] = [];
  for (let k = 0; k < flat.length; k += 2) pairs.push([flat[k]!, flat[k + 1]!]);
  pairs.sort((a, b) => a[0] - b[0]);
  const out: number[] = [];
  for (const [start, end] of pairs) {
    if (out.length > 0 && start <= out.at(-1)!) out[out.length - 1] = Math.max(out.at(-1)!, end);
    else out.push(start, end);
  }
  return out;
}

// The figures, by index (a line's sums are `F` consecutive sums of a bank): the extras, then
// the units in catalog order (`UNITS_AT + k`); the catalog's CU and NU (its `cu` and `volume` units) have rules of their own.
export const CU_SUM = 0,
  GATEWAY_PIU = 1,
  CU_ALLOCATED = 2,
  OWN_NIC_NU = 3;
const EXTRA_NAMES = [
  "cuSum",
  "gatewayPiu",
  "cuAllocated",
  "ownNicNu",
] as const satisfies readonly (keyof FigureExtras)[];
const UNITS_AT = EXTRA_NAMES.length;
export const CU = UNITS_AT + UNIT_NAMES.findIndex((u) => unitDef(u).rule.kind === "cu");
export const NU = UNITS_AT + UNIT_NAMES.findIndex((u) => unitDef(u).rule.kind === "volume");

// The totals of a level in one hour (sums of a bank: `L` consecutive): the machines' CU (per
// cloud space, for showback: never rolled up), then the totals a level adds up from its parts:
// memory, Σ CU, external bytes, then each summed unit's (`T_SUMS + k`).
export const T_MACHINES_CU = 0,
  T_MEM = 1,
  T_CU_SUM = 2,
  T_BYTES = 3;
const T_SUMS = 4;

/** What a level counts besides its sums in one hour: its billed vCPUs and its gateways' public IPs. */
export interface Counts {
  vcpus: number;
  gatewayPiu: number;
}

/** A unit summed from a per-VM formula: where its figure and its level total are. */
export interface SummedUnit {
  figure: number;
  total: number;
  perVm: (vm: VmHour, units: Units) => number;
  gatewayPublicIp: boolean;
}

/** Report order: by hour, then as {@link compareEntities}. */
export function compareLines(a: EngineLine, b: EngineLine): number {
  return (a.hourEpoch ?? -Infinity) - (b.hourEpoch ?? -Infinity) || 0 || compareEntities(a, b);
}

/** Report order of entities: by account, cloud space and machine (none first), then level. */
export function compareEntities(
  a: { accountId: number | null; cloudspaceId: number | null; machineId: number | null; level: EngineLevel },
  b: { accountId: number | null; cloudspaceId: number | null; machineId: number | null; level: EngineLevel },
): number {
  return (
    (a.accountId ?? -Infinity) - (b.accountId ?? -Infinity) ||
    0 ||
    (a.cloudspaceId ?? -Infinity) - (b.cloudspaceId ?? -Infinity) ||
    0 ||
    (a.machineId ?? -Infinity) - (b.machineId ?? -Infinity) ||
    0 ||
    LEVEL_RANK[a.level] - LEVEL_RANK[b.level]
  );
}

/** An entity's ids (null for none). */
export interface EntityIds {
  accountId: number | null;
  cloudspaceId: number | null;
  machineId: number | null;
}

/** An entity of the period: its ids and where its sums are. */
export interface Entity extends EntityIds {
  rank: number;
  /** The part of the period (see `splitAt`) whose hours it sums. */
  part: number;
  base: number;
  samples: number;
}
export interface CloudspaceEntry {
  entity: Entity | undefined;
  machines: Map<number, Entity>;
}
export interface AccountEntry {
  entity: Entity;
  cloudspaces: Map<number, CloudspaceEntry>;
}

/** The part of an entity summed over the whole period, not by part (see `EngineSums.sumByPart`). */
export const WHOLE_PERIOD = -1;

/** An hour of the environment: its accounts' totals. */
export interface EnvironmentHour {
  accounts: number;
  base: number;
  counts: Counts;
}

/**
 * The sums of a {@link BillingEngine} and the formulas every road shares: the entities of the
 * period and their exact sums, the environment's hours, the per-VM and per-level figures. The
 * engine adds account-hours one by one (`billingEngine.ts`); its companions add grouped input
 * (`engineGrouped.ts`), give hourly lines (`engineHourly.ts`) and move its sums between threads
 * (`engineState.ts`): they read and write these members, which no other module does.
 */
export class EngineSums {
  /** The units of the catalog when the engine was made, their summed ones, and the sizes of a line's figures and of a level's totals. */
  readonly unitNames: readonly UnitName[] = catalogUnits();
  readonly summed: SummedUnit[] = [];
  readonly F = UNITS_AT + this.unitNames.length;
  readonly L: number;
  readonly figureNames: readonly string[] = [...EXTRA_NAMES, ...this.unitNames];
  /** The figures a level's sample adds from its totals' terms (see `addLevelSample`), by index. */
  private readonly exactFigure: boolean[];
  /** The VM of the machine formulas, rewritten for each VM. */
  readonly vm: VmFacts & VmHour = { ...emptyVmFacts(), cu: 0, windows: false };
  readonly period = new SumBank(4096);
  readonly entities: Entity[] = [];
  /** Per part of the period: its accounts. */
  private readonly parts: Map<number, AccountEntry>[] = [];
  /** Per account, its cloud spaces (with their machines) of every part: when they are summed over the whole period (see `sumByPart`). */
  private wholeCloudspaces: Map<number, Map<number, CloudspaceEntry>> | undefined;
  readonly splitAt: readonly number[];
  /** The part of the latest hour seen, and that hour. */
  private partHour = Number.NaN;
  private part = 0;
  readonly environment = new SumBank(1024);
  readonly environmentHours = new Map<number, EnvironmentHour>();
  readonly seen: SeenData = {
    accountHours: new Map(),
    unbilledTypes: new Map(),
    emptyMachineHours: 0,
    emptyCloudspaceHours: 0,
  };
  private readonly windows = new Map<string, boolean>();
  private readonly windowsPattern: RegExp;
  private readonly billable: Set<string> | null;
  readonly publicIpStates: Set<string>;
  /** Scratch of one account-hour: its levels' totals. */
  readonly levels = new SumBank(256);
  /** The account-hours the one being added stands for (see `GroupedInput.weighted`). */
  weight = 1;
  weighted = false;
  /** Account-hours went into the environment's hours (`add`): grouped totals may not be added to them. */
  fedHours = false;
  /** Accounts came in as grouped totals (`GroupedInput.accountHourTotals`): no account-hour may be added one by one. */
  groupedAccounts = false;
  /** Grouped input of accounts: per account entity (of a part), where its VM-hours' totals are in `accountTotals`. */
  readonly accountGroupedTotals = new Map<Entity, number>();
  readonly accountTotals = new SumBank(1024);
  /** Grouped input: per part of the period, where its VM-hours' totals are in `environment`. */
  readonly groupedTotals: number[] = [];

  constructor(
    readonly units: Units,
    readonly cuRollup: CuRollup,
    splitAt: readonly number[],
  ) {
    this.splitAt = [...splitAt].sort((a, b) => a - b);
    this.unitNames.forEach((unit, k) => {
      const rule = unitDef(unit).rule;
      if (rule.kind !== "sum") return;
      this.summed.push({
        figure: UNITS_AT + k,
        total: T_SUMS + this.summed.length,
        perVm: rule.perVm,
        gatewayPublicIp: rule.gatewayPublicIp === true,
      });
    });
    this.L = T_SUMS + this.summed.length;
    this.exactFigure = Array.from(
      { length: this.F },
      (_, k) => k === CU_SUM || (cuRollup === "sum" && k === CU) || this.summed.some((s) => s.figure === k),
    );
    this.windowsPattern = new RegExp(units.windowsPattern, "i");
    this.billable = units.billableStatuses === null ? null : new Set(units.billableStatuses);
    this.publicIpStates = new Set(units.publicIpStates);
  }

  cuOf(memMb: number, vcpus: number): number {
    const u = this.units;
    return Math.max(memMb / u.mbPerGb / u.gbPerCu, vcpus / u.vcpusPerCu);
  }

  nuOf(bytes: number): number {
    return (bytes * nicBytesPerHourValue(this.units)) / this.units.bytesPerNu;
  }

  private isWindows(imageName: string): boolean {
    let w = this.windows.get(imageName);
    if (w === undefined) this.windows.set(imageName, (w = this.windowsPattern.test(imageName)));
    return w;
  }

  /** The part of the period an hour is in: the number of cuts at or before it. */
  partOf(hourEpoch: number): number {
    if (hourEpoch !== this.partHour) {
      let k = 0;
      while (k < this.splitAt.length && this.splitAt[k]! <= hourEpoch) k++;
      this.partHour = hourEpoch;
      this.part = k;
    }
    return this.part;
  }

  /**
   * With the period cut (`splitAt`), sums the cloud spaces and machines over the whole period
   * alone, not by part, unless `levels` names one of them: their lines of each part are then not
   * given (`BillingEngine.partLines`), for less work per entity (a line's sums per part); their
   * period lines are the same, to the bit (exact sums of the same terms). Before any account-hour.
   */
  sumByPart(levels: readonly EngineLevel[]): void {
    if (this.entities.length > 0) throw new Error("internal: the levels summed by part chosen after an entity was");
    this.wholeCloudspaces =
      this.splitAt.length > 0 && !levels.includes("cloudspace") && !levels.includes("machine") ? new Map() : undefined;
  }

  /** The accounts of a part of the period. */
  accountsOf(part: number): Map<number, AccountEntry> {
    return (this.parts[part] ??= new Map());
  }

  /** The account of a part of the period (made, with its entity, when first asked for). */
  accountOf(part: number, accountId: number): AccountEntry {
    const accounts = this.accountsOf(part);
    let account = accounts.get(accountId);
    if (account === undefined)
      accounts.set(
        accountId,
        (account = { entity: this.entity(1, accountId, null, null, part), cloudspaces: this.cloudspacesOf(accountId) }),
      );
    return account;
  }

  /** The cloud spaces of a new account entry: its own, or those of every part of the account (see `sumByPart`). */
  private cloudspacesOf(accountId: number): Map<number, CloudspaceEntry> {
    const whole = this.wholeCloudspaces;
    if (whole === undefined) return new Map();
    let cloudspaces = whole.get(accountId);
    if (cloudspaces === undefined) whole.set(accountId, (cloudspaces = new Map()));
    return cloudspaces;
  }

  /** A cloud space of an account (made when first asked for; its entity is made by who sums it). */
  cloudspaceOf(account: AccountEntry, cloudspaceId: number): CloudspaceEntry {
    let cloudspace = account.cloudspaces.get(cloudspaceId);
    if (cloudspace === undefined)
      account.cloudspaces.set(cloudspaceId, (cloudspace = { entity: undefined, machines: new Map() }));
    return cloudspace;
  }

  /** An hour of the environment (made when first asked for). */
  environmentHour(hourEpoch: number): EnvironmentHour {
    let hour = this.environmentHours.get(hourEpoch);
    if (hour === undefined)
      this.environmentHours.set(
        hourEpoch,
        (hour = { accounts: 0, base: this.environment.alloc(this.L), counts: { vcpus: 0, gatewayPiu: 0 } }),
      );
    return hour;
  }

  /** A new entity of `part` (of the whole period: a cloud space or machine, see `sumByPart`). */
  entity(rank: number, accountId: number, cloudspaceId: number | null, machineId: number | null, part: number): Entity {
    const e = {
      rank,
      part: rank >= 2 && this.wholeCloudspaces !== undefined ? WHOLE_PERIOD : part,
      accountId,
      cloudspaceId,
      machineId,
      base: this.period.alloc(this.F),
      samples: 0,
    };
    this.entities.push(e);
    return e;
  }

  /** Adds the figures `f[at .. at + F)` (NU of machines: not added) as one sample of `e` (`weight` samples: see `GroupedInput.weighted`). */
  addSample(e: Entity, f: Float64Array, at: number): void {
    const w = this.weight;
    e.samples += w;
    const base = e.base;
    const F = this.F;
    for (let k = 0; k < F; k++) if (k !== NU || e.rank !== 3) this.period.addTimes(base + k, f[at + k]!, w);
  }

  /** The figures of a level from its totals `bank[at .. at + L)` and counts, into `out`. */
  levelFigures(bank: SumBank, at: number, counts: Counts, out: Float64Array): void {
    const mem = bank.value(at + T_MEM);
    const cuSum = bank.value(at + T_CU_SUM);
    out[CU] = this.cuRollup === "aggregate" ? this.cuOf(mem, counts.vcpus) : cuSum;
    out[NU] = this.nuOf(bank.value(at + T_BYTES));
    const summed = this.summed;
    for (let k = 0; k < summed.length; k++) {
      const s = summed[k]!;
      out[s.figure] = s.gatewayPublicIp ? bank.value(at + s.total) + counts.gatewayPiu : bank.value(at + s.total);
    }
    out[CU_SUM] = cuSum;
    out[GATEWAY_PIU] = counts.gatewayPiu;
    out[CU_ALLOCATED] = 0;
    out[OWN_NIC_NU] = 0;
  }

  /**
   * Adds the level totals `from[j + 1 .. j + L)`, exactly (their terms, not rounded), into
   * `to[i + 1 .. i + L)`: a level's total is the exact Σ of its machines' (the machines' CU, at
   * 0, is not a level total), whatever the levels between them.
   */
  addTotals(to: SumBank, i: number, from: SumBank, j: number): void {
    for (let k = T_MACHINES_CU + 1; k < this.L; k++) to.addSum(i + k, from, j + k);
  }

  /**
   * Adds a VM's figures `f[at .. at + F)` to its level's totals `bank[t .. t + L)`: what a
   * level adds up of its VMs (the summed units, Σ CU), but memory, bytes and the machines' CU.
   */
  addVmTotals(bank: SumBank, t: number, f: Float64Array, at: number, times = 1): void {
    bank.addTimes(t + T_CU_SUM, f[at + CU_SUM]!, times);
    const summed = this.summed;
    for (let k = 0; k < summed.length; k++) bank.addTimes(t + summed[k]!.total, f[at + summed[k]!.figure]!, times);
  }

  /**
   * Adds a level's figures `f` of one hour as one sample of `e` (an environment, account or
   * cloud space), but the Σ of its machines' units exactly, from its totals `bank[at .. at + L)`
   * (their terms, not the hour's rounded figure): a level's summed unit over the period is then
   * the exact Σ of its machine-hours' amounts, rounded once, however they are grouped (by hour,
   * or by a machine's configuration: see `groupedFacts.ts`).
   */
  addLevelSample(e: Entity, f: Float64Array, bank: SumBank, at: number): void {
    const w = this.weight;
    e.samples += w;
    const base = e.base;
    const period = this.period;
    // under `sum`, the allocated CU of an account or the environment is its CU
    const allocatedIsCu = this.cuRollup === "sum" && e.rank < 2;
    for (let k = 0; k < this.F; k++)
      if (!this.exactFigure[k] && !(allocatedIsCu && k === CU_ALLOCATED)) period.addTimes(base + k, f[k]!, w);
    period.addSumTimes(base + CU_SUM, bank, at + T_CU_SUM, w);
    if (this.cuRollup === "sum") period.addSumTimes(base + CU, bank, at + T_CU_SUM, w);
    if (allocatedIsCu) period.addSumTimes(base + CU_ALLOCATED, bank, at + T_CU_SUM, w);
    for (const s of this.summed) {
      period.addSumTimes(base + s.figure, bank, at + s.total, w);
      if (s.gatewayPublicIp) period.addTimes(base + s.figure, f[GATEWAY_PIU]!, w);
    }
  }

  /**
   * The figures of a VM in one hour, from its facts, into `out[at .. at + F)`; `this.vm` holds
   * its formula inputs after (memory and vCPUs 0 when its status is not billable).
   */
  vmFigures(out: Float64Array, at: number, facts: VmFacts): void {
    const vm = facts === this.vm ? this.vm : Object.assign(this.vm, facts);
    if (this.billable !== null && !this.billable.has(facts.status)) vm.memMb = vm.vcpus = 0;
    const cu = (vm.cu = this.cuOf(vm.memMb, vm.vcpus));
    vm.windows = this.isWindows(facts.imageName);
    out[at + CU] = cu;
    out[at + NU] = 0;
    const summed = this.summed;
    for (let k = 0; k < summed.length; k++) {
      const s = summed[k]!;
      out[at + s.figure] = s.perVm(vm, this.units);
    }
    out[at + CU_SUM] = cu;
    out[at + GATEWAY_PIU] = 0;
    out[at + CU_ALLOCATED] = 0;
    out[at + OWN_NIC_NU] = this.nuOf(facts.externalBytes);
  }

  /** The figures at `f[at .. at + F)` as an object (NU null for a machine). */
  figuresOf(f: Float64Array, at: number, machine: boolean): Figures {
    const out: Record<string, number | null> = {};
    const names = this.figureNames;
    for (let k = 0; k < this.F; k++) out[names[k]!] = f[at + k]!;
    if (machine) out[names[NU]!] = null;
    return out as Figures;
  }
}
