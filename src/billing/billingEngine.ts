import { SumBank } from "../base/exactSum.js";
import { Exact } from "./exact.js";
import type { AccountHourFacts } from "../load/machineFacts.js";
import { catalogUnits, unitDef, type VmHour } from "./unitCatalog.js";
import { UNIT_NAMES, type CuRollup, type UnitName } from "./unitNames.js";
import { nicBytesPerHourValue, type Units } from "./units.js";
import { emptyVmFacts, vmFactsAt, type VmFacts } from "../load/vmFacts.js";
import { HourRows } from "./hourRows.js";

/** The rank of each level in a report's order (environment first, machines last). */
export const LEVEL_RANK = { environment: 0, account: 1, cloudspace: 2, machine: 3 } as const;
/** A level of the billing hierarchy. */
export type EngineLevel = keyof typeof LEVEL_RANK;
const LEVEL_OF_RANK: EngineLevel[] = ["environment", "account", "cloudspace", "machine"];

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

/** Where an engine gives each hour's lines as rows of numbers (see {@link HourRows}) instead of line objects. */
export interface HourRowsSink {
  rows: (rows: HourRows) => void;
}

/** What the engine saw besides the figures: what data quality reports. */
export interface SeenData {
  /** Account id → the hours it has a sample in (ascending). */
  accountHours: Map<number, number[]>;
  /** Machine records of types other than the billed one: type → machine-hours. */
  unbilledTypes: Map<string, number>;
  /** Machine records with id 0 and type "", cloud-space rows with id 0 and state "". */
  emptyMachineHours: number;
  emptyCloudspaceHours: number;
}

// The figures, by index (a line's sums are `F` consecutive sums of a bank): the extras, then
// the units in catalog order (`UNITS_AT + k`); the catalog's CU and NU (its `cu` and `volume` units) have rules of their own.
const CU_SUM = 0,
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
const CU = UNITS_AT + UNIT_NAMES.findIndex((u) => unitDef(u).rule.kind === "cu");
const NU = UNITS_AT + UNIT_NAMES.findIndex((u) => unitDef(u).rule.kind === "volume");

// The totals of a level in one hour (sums of a bank: `L` consecutive): the machines' CU (per
// cloud space, for showback: never rolled up), then the totals a level adds up from its parts:
// memory, Σ CU, external bytes, then each summed unit's (`T_SUMS + k`).
const T_MACHINES_CU = 0,
  T_MEM = 1,
  T_CU_SUM = 2,
  T_BYTES = 3,
  T_SUMS = 4;
export interface Counts {
  vcpus: number;
  gatewayPiu: number;
}

/** A unit summed from a per-VM formula: where its figure and its level total are. */
interface SummedUnit {
  figure: number;
  total: number;
  perVm: (vm: VmHour, units: Units) => number;
  gatewayPublicIp: boolean;
}

/** Report order: by hour, then account, cloud space and machine (none first), then level. */
export function compareLines(a: EngineLine, b: EngineLine): number {
  return (
    (a.hourEpoch ?? -Infinity) - (b.hourEpoch ?? -Infinity) ||
    0 ||
    (a.accountId ?? -Infinity) - (b.accountId ?? -Infinity) ||
    0 ||
    (a.cloudspaceId ?? -Infinity) - (b.cloudspaceId ?? -Infinity) ||
    0 ||
    (a.machineId ?? -Infinity) - (b.machineId ?? -Infinity) ||
    0 ||
    LEVEL_RANK[a.level] - LEVEL_RANK[b.level]
  );
}

/**
 * An engine's sums as plain data (partials: their exact sums are the sums), to move between
 * threads and {@link BillingEngine.merge} into another engine.
 */
export interface EngineState {
  /** Per entity: rank, account, cloud space and machine ids (NaN for none), samples and part of the period. */
  entities: Float64Array;
  /** Per hour of the environment: the hour, its accounts, vCPUs and gateways' PIU. */
  hours: Float64Array;
  /** The units the sums are of, in order (engines merge only with the same units). */
  units: readonly string[];
  /** The terms of every sum: each entity's F, then each hour's L, `counts[i]` terms for sum i. */
  counts: Uint32Array;
  terms: Float64Array;
  seen: SeenData;
}

/** The numbers per entity and per hour in an {@link EngineState}. */
const ENTITY_FIELDS = 6;
const HOUR_FIELDS = 4;

/** An entity of the period: its ids and where its sums are. */
interface Entity {
  rank: number;
  /** The part of the period (see `splitAt`) whose hours it sums. */
  part: number;
  accountId: number | null;
  cloudspaceId: number | null;
  machineId: number | null;
  base: number;
  samples: number;
}
interface CloudspaceEntry {
  entity: Entity | undefined;
  machines: Map<number, Entity>;
}
interface AccountEntry {
  entity: Entity;
  cloudspaces: Map<number, CloudspaceEntry>;
}

/** An hour of the environment: its accounts' totals. */
interface EnvironmentHour {
  accounts: number;
  base: number;
  counts: Counts;
}

/**
 * The one definition of the billing units (docs/formulas.md) and of showback (docs/formulas.md). It takes the
 * facts of account-hours (from the files as they decode, or from a database's rows) and
 * keeps, per entity, exact sums of its hourly figures: memory grows with the entities, and
 * by a few numbers per hour, not with the machine-hours. Account-hours may come in any order,
 * and engines fed parts of the data merge into the same figures to the bit (see `SumBank`).
 *
 * Per hour: a machine's CU is max(mem / mbPerGb / gbPerCu, vcpus / vcpusPerCu); a cloud
 * space's, an account's and the environment's come from their own totals that hour
 * (`aggregate`) or are the sum of their machines' (`sum`). SU = Σ disk size / gbPerSu,
 * TU = Σ IOPS limit / iopsPerTu, NU = Σ external bytes × nicBytesPerHourValue / bytesPerNu (see `nicReading`),
 * VCU = vCPUs, MU = mem / mbPerGb, WU = CU of Windows machines, PIU = external NICs of machines
 * plus one per cloud space whose gateway has one while the cloud space is in a public-IP
 * state. Only machines of type `vmType` are billed; compute (CU, VCU, MU, WU) only in a
 * billable status. Showback: each hour the account's CU is allocated to its cloud spaces in
 * proportion to their CU, and each cloud space's to its machines in proportion to theirs
 * (equal shares when all are 0).
 */
export class BillingEngine {
  /** The units of the catalog when the engine was made, their summed ones, and the sizes of a line's figures and of a level's totals. */
  private readonly unitNames: readonly UnitName[] = catalogUnits();
  private readonly summed: SummedUnit[] = [];
  private readonly F = UNITS_AT + this.unitNames.length;
  private readonly L: number;
  private readonly figureNames: readonly string[] = [...EXTRA_NAMES, ...this.unitNames];
  /** The figures a level's sample adds from its totals' terms (see `addLevelSample`), by index. */
  private readonly exactFigure: boolean[];
  /** The VM of the machine formulas, rewritten for each VM. */
  private readonly vm: VmHour = { ...emptyVmFacts(), cu: 0, windows: false };
  private readonly period = new SumBank(4096);
  private readonly entities: Entity[] = [];
  /** Per part of the period: its accounts. */
  private readonly parts: Map<number, AccountEntry>[] = [];
  private readonly splitAt: readonly number[];
  /** The part of the latest hour seen, and that hour. */
  private partHour = Number.NaN;
  private part = 0;
  private periodParts: EngineLine[][] | undefined;
  private readonly environment = new SumBank(1024);
  private readonly environmentHours = new Map<number, EnvironmentHour>();
  private readonly seen: SeenData = {
    accountHours: new Map(),
    unbilledTypes: new Map(),
    emptyMachineHours: 0,
    emptyCloudspaceHours: 0,
  };
  private readonly windows = new Map<string, boolean>();
  private readonly windowsPattern: RegExp;
  private readonly billable: Set<string> | null;
  private readonly publicIpStates: Set<string>;
  // scratch of one account-hour
  private readonly levels = new SumBank(256);
  private readonly csIndex = new Map<number, number>();
  private csCounts: Counts[] = [];
  private csMachines: number[] = [];
  private machineFigures: Float64Array;
  private machineCs: Int32Array = new Int32Array(256);
  /** Each VM's record in the account-hour's facts. */
  private machineRow: Int32Array = new Int32Array(256);
  private machineEntity: Entity[] = [];
  private readonly csFigures: Float64Array[] = [];
  private readonly accountCounts: Counts = { vcpus: 0, gatewayPiu: 0 };
  private readonly accountFigures: Float64Array;
  private readonly machinesBytes: number[] = [];
  private readonly machinesCu: number[] = [];
  /** The account-hours the one being added stands for (see {@link addWeighted}). */
  private weight = 1;
  private weighted = false;
  /** Account-hours went into the environment's hours (`add`): grouped totals may not be added to them. */
  private fedHours = false;
  /** Grouped input of accounts: per account entity (of a part), where its VM-hours' totals are in `accountTotals` (see `addAccountVmHours`). */
  private readonly accountGroupedTotals = new Map<Entity, number>();
  private readonly accountTotals = new SumBank(1024);
  /** Accounts came in as grouped totals (`addAccountHourTotals`): no account-hour may be added one by one. */
  private groupedAccounts = false;
  /** Grouped input: per part of the period, where its VM-hours' totals are in `environment` (see `addVmHours`). */
  private readonly groupedTotals: number[] = [];
  private readonly groupedScratch: Float64Array;
  /** The levels below the environment summed and given hourly lines (see {@link keepLevels}). */
  private keepCloudspaces = true;
  private keepMachines = true;
  /** The levels below the environment summed over the period (see {@link keepLevels}); the others give hourly lines only. */
  private sumAccounts = true;
  private sumCloudspaces = true;
  private sumMachines = true;
  /** Hourly lines of the current hour, when asked for: as objects, or as rows (`hourRows`). */
  private hourLines: EngineLine[] = [];
  private readonly onHourLines: ((lines: EngineLine[]) => void) | undefined;
  private readonly hourRows: HourRows | undefined;
  private readonly onHourRows: ((rows: HourRows) => void) | undefined;
  private currentHour: number | null = null;

  /**
   * `onHour`: called with the lines of each hour (in report order, the environment's first)
   * once the next hour's first account-hour arrives, and at `finish`; account-hours must then
   * come in hour order. Given as `{ rows }`, each hour's lines come as rows of numbers
   * (`HourRows`, in the order it says), the same figures without an object per line.
   *
   * `environmentOnly`: keep the environment's sums only (its figures are the same): no account,
   * cloud space or machine is summed over the period, nor allocated CU (what a bill of the
   * environment's total needs, for less work per machine).
   * `splitAt`: hours (epoch seconds, ascending) that cut the period into parts summed apart
   * as well (where a price changes; see {@link partLines}); the period's lines are their exact sums.
   */
  constructor(
    private readonly units: Units,
    private readonly cuRollup: CuRollup,
    private readonly onHour?: ((lines: EngineLine[]) => void) | HourRowsSink,
    private readonly environmentOnly = false,
    splitAt: readonly number[] = [],
  ) {
    if (typeof onHour === "function") this.onHourLines = onHour;
    else if (onHour !== undefined) {
      this.onHourRows = onHour.rows;
      this.hourRows = new HourRows(this.figureNames);
    }
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
    this.machineFigures = new Float64Array(this.F * 256);
    this.accountFigures = new Float64Array(this.F);
    this.groupedScratch = new Float64Array(this.F);
    this.windowsPattern = new RegExp(units.windowsPattern, "i");
    this.billable = units.billableStatuses === null ? null : new Set(units.billableStatuses);
    this.publicIpStates = new Set(units.publicIpStates);
  }

  /**
   * Keeps the cloud spaces, the machines, or both only when `levels` names them: the others
   * are neither summed over the period nor given hourly lines (less work per machine-hour);
   * the figures of the levels kept, the accounts' and the environment's are unchanged. By
   * default every level is kept. An hourly engine may change them between hours: the period
   * lines of a level are then of the hours it was kept in. `summed`: of the levels, those also
   * summed over the period (default: the accounts and the levels kept); the others give their
   * hourly lines only, for less work per machine-hour when the period's lines of a level are not read.
   */
  keepLevels(levels: readonly EngineLevel[], summed?: readonly EngineLevel[]): void {
    this.keepCloudspaces = levels.includes("cloudspace");
    this.keepMachines = levels.includes("machine");
    this.sumAccounts = summed === undefined || summed.includes("account");
    this.sumCloudspaces = this.keepCloudspaces && (summed === undefined || summed.includes("cloudspace"));
    this.sumMachines = this.keepMachines && (summed === undefined || summed.includes("machine"));
  }

  private cuOf(memMb: number, vcpus: number): number {
    const u = this.units;
    return Math.max(memMb / u.mbPerGb / u.gbPerCu, vcpus / u.vcpusPerCu);
  }

  private nuOf(bytes: number): number {
    return (bytes * nicBytesPerHourValue(this.units)) / this.units.bytesPerNu;
  }

  private isWindows(imageName: string): boolean {
    let w = this.windows.get(imageName);
    if (w === undefined) this.windows.set(imageName, (w = this.windowsPattern.test(imageName)));
    return w;
  }

  /** The part of the period an hour is in: the number of cuts at or before it. */
  private partOf(hourEpoch: number): number {
    if (hourEpoch !== this.partHour) {
      let k = 0;
      while (k < this.splitAt.length && this.splitAt[k]! <= hourEpoch) k++;
      this.partHour = hourEpoch;
      this.part = k;
    }
    return this.part;
  }

  /** The accounts of a part of the period. */
  private accountsOf(part: number): Map<number, AccountEntry> {
    return (this.parts[part] ??= new Map());
  }

  private entity(
    rank: number,
    accountId: number,
    cloudspaceId: number | null,
    machineId: number | null,
    part: number,
  ): Entity {
    const e = { rank, part, accountId, cloudspaceId, machineId, base: this.period.alloc(this.F), samples: 0 };
    this.entities.push(e);
    return e;
  }

  /** Adds the figures `f[at .. at + F)` (NU of machines: not added) as one sample of `e` (`weight` samples: see {@link addWeighted}). */
  private addSample(e: Entity, f: Float64Array, at: number): void {
    const w = this.weight;
    e.samples += w;
    const base = e.base;
    const F = this.F;
    for (let k = 0; k < F; k++) if (k !== NU || e.rank !== 3) this.period.addTimes(base + k, f[at + k]!, w);
  }

  /** The figures of a level from its totals `bank[at .. at + L)` and counts, into `out`. */
  private levelFigures(bank: SumBank, at: number, counts: Counts, out: Float64Array): void {
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
  private addTotals(to: SumBank, i: number, from: SumBank, j: number): void {
    for (let k = T_MACHINES_CU + 1; k < this.L; k++) to.addSum(i + k, from, j + k);
  }

  /**
   * Adds a level's figures `f` of one hour as one sample of `e` (an environment, account or
   * cloud space), but the Σ of its machines' units exactly, from its totals `bank[at .. at + L)`
   * (their terms, not the hour's rounded figure): a level's summed unit over the period is then
   * the exact Σ of its machine-hours' amounts, rounded once, however they are grouped (by hour,
   * or by a machine's configuration: see {@link GroupedEnvironment}).
   */
  private addLevelSample(e: Entity, f: Float64Array, bank: SumBank, at: number): void {
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
   * Adds an account-hour that stands for `weight` account-hours of the same facts but their
   * bytes (grouped input of the levels below the environment: see `groupedFacts.ts`): its
   * figures count `weight` times, exactly. Its bytes must be 0 (add them with
   * {@link addEntityBytes}); the environment's sums and what data quality reads are not kept
   * (give them with {@link addHourTotals}, {@link addVmHours} and {@link addSeen}).
   */
  addWeighted(facts: AccountHourFacts, weight: number): void {
    if (this.onHour !== undefined || this.environmentOnly)
      throw new Error("internal: weighted account-hours are for period lines below the environment");
    if (this.fedHours) throw new Error("internal: weighted account-hours after account-hours added one by one");
    this.weight = weight;
    this.weighted = true;
    try {
      this.add(facts);
    } finally {
      this.weight = 1;
      this.weighted = false;
    }
  }

  /**
   * Grouped input (see {@link addWeighted}): the exact Σ over the period's part `part` of the
   * external bytes an entity's NU is made of (a machine's own NICs; a cloud space's VMs' and
   * gateways', and its gateways' apart; an account's), when NU is those bytes scaled by a power
   * of two (each hour's NU then adds up to the NU of the bytes' sum, exactly). The entity must
   * have been added.
   */
  addEntityBytes(
    part: number,
    accountId: number,
    cloudspaceId: number | null,
    machineId: number | null,
    bytes: number,
    gatewayBytes = 0,
  ): void {
    const account = this.accountsOf(part).get(accountId);
    const cloudspace = cloudspaceId === null ? undefined : account?.cloudspaces.get(cloudspaceId);
    const e =
      cloudspaceId === null
        ? account?.entity
        : machineId === null
          ? cloudspace?.entity
          : cloudspace?.machines.get(machineId);
    if (e === undefined)
      throw new Error(`internal: bytes of an entity never added (${part}/${accountId}/${cloudspaceId}/${machineId})`);
    if (e.rank === 3) this.period.add(e.base + OWN_NIC_NU, this.nuOf(bytes));
    else {
      this.period.add(e.base + NU, this.nuOf(bytes));
      if (e.rank === 2) this.period.add(e.base + OWN_NIC_NU, this.nuOf(gatewayBytes));
    }
  }

  /**
   * The figures of a VM in one hour, from its facts, into `out[at .. at + F)`; `this.vm` holds
   * its formula inputs after (memory and vCPUs 0 when its status is not billable).
   */
  private vmFigures(out: Float64Array, at: number, facts: VmFacts): void {
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

  /**
   * Grouped input of the environment (see `groupedFacts.ts`; beside weighted account-hours for
   * the levels below it, or alone in an engine of the environment alone): `count` VM-hours of
   * one configuration (its facts, but those summed per hour: see `CONFIGURATION_FACTS`), in the
   * part of the period `part`, each in a cloud space of its account-hour. Their summed units and
   * Σ CU go into the environment's period sums as `count` times each VM-hour's amount, exactly:
   * with {@link addHourTotals} for the same hours, the same figures as `add` of every account-hour.
   */
  addVmHours(part: number, configuration: VmFacts, count: number): void {
    if (this.fedHours) throw new Error("internal: grouped VM-hours after account-hours added one by one");
    const f = this.groupedScratch;
    this.vmFigures(f, 0, configuration);
    const bank = this.environment;
    const at = (this.groupedTotals[part] ??= bank.alloc(this.L));
    bank.addTimes(at + T_CU_SUM, f[CU_SUM]!, count);
    for (const s of this.summed) bank.addTimes(at + s.total, f[s.figure]!, count);
  }

  /**
   * Grouped input (see {@link addVmHours}): an hour of the environment with `accounts`
   * account-hours, the Σ of its billed VMs' memory and vCPUs, the Σ of its VMs' and gateways'
   * external bytes and its gateways' public IPs (cloud spaces of each account-hour only). Each
   * hour once.
   */
  addHourTotals(
    hourEpoch: number,
    accounts: number,
    memMb: number,
    vcpus: number,
    bytes: number,
    gatewayPiu: number,
  ): void {
    if (this.fedHours || this.environmentHours.has(hourEpoch))
      throw new Error(`internal: grouped hour ${hourEpoch} twice, or after account-hours added one by one`);
    const hour = { accounts, base: this.environment.alloc(this.L), counts: { vcpus, gatewayPiu } };
    this.environmentHours.set(hourEpoch, hour);
    this.environment.add(hour.base + T_MEM, memMb);
    this.environment.add(hour.base + T_BYTES, bytes);
  }

  /**
   * Grouped input of the accounts' lines (see `groupedFacts.ts`; with the environment's grouped
   * totals, and no level below the accounts): one account-hour, its billed VMs' memory and
   * vCPUs in all, its VMs' and gateways' external bytes and its gateways' public IPs (cloud
   * spaces of the account-hour only), as `add` would total them. Each account-hour once; their
   * VM-hours' own amounts with {@link addAccountVmHours}.
   */
  addAccountHourTotals(
    accountId: number,
    hourEpoch: number,
    memMb: number,
    vcpus: number,
    bytes: number,
    gatewayPiu: number,
  ): void {
    if (this.fedHours || this.weighted || this.environmentOnly)
      throw new Error("internal: accounts' grouped totals beside account-hours added one by one");
    this.groupedAccounts = true;
    const entity = this.accountEntity(this.partOf(hourEpoch), accountId);
    const bank = this.levels;
    bank.truncate(0);
    const at = bank.alloc(this.L);
    bank.add(at + T_MEM, memMb);
    bank.add(at + T_BYTES, bytes);
    const f = this.accountFigures;
    this.levelFigures(bank, at, { vcpus, gatewayPiu }, f);
    f[CU_ALLOCATED] = f[CU]!;
    this.addLevelSample(entity, f, bank, at);
  }

  /**
   * Grouped input of the accounts' lines (see {@link addAccountHourTotals}): `count` VM-hours of
   * one configuration of `accountId`'s, in the part of the period `part`, each in a cloud space
   * of its account-hour: their summed units and Σ CU go into the account's sums as `count` times
   * each VM-hour's amount, exactly.
   */
  addAccountVmHours(part: number, accountId: number, configuration: VmFacts, count: number): void {
    const f = this.groupedScratch;
    this.vmFigures(f, 0, configuration);
    const entity = this.accountEntity(part, accountId);
    let at = this.accountGroupedTotals.get(entity);
    if (at === undefined) this.accountGroupedTotals.set(entity, (at = this.accountTotals.alloc(this.L)));
    this.accountTotals.addTimes(at + T_CU_SUM, f[CU_SUM]!, count);
    for (const s of this.summed) this.accountTotals.addTimes(at + s.total, f[s.figure]!, count);
  }

  /** The entity of an account in a part of the period (made when first asked for). */
  private accountEntity(part: number, accountId: number): Entity {
    const accounts = this.accountsOf(part);
    let account = accounts.get(accountId);
    if (account === undefined)
      accounts.set(
        accountId,
        (account = { entity: this.entity(1, accountId, null, null, part), cloudspaces: new Map() }),
      );
    return account.entity;
  }

  /** Grouped input (see {@link addVmHours}): what the account-hours of the grouped input hold for data quality. */
  addSeen(seen: SeenData): void {
    for (const [accountId, hours] of seen.accountHours)
      this.seen.accountHours.set(accountId, [...(this.seen.accountHours.get(accountId) ?? []), ...hours]);
    for (const [type, n] of seen.unbilledTypes)
      this.seen.unbilledTypes.set(type, (this.seen.unbilledTypes.get(type) ?? 0) + n);
    this.seen.emptyMachineHours += seen.emptyMachineHours;
    this.seen.emptyCloudspaceHours += seen.emptyCloudspaceHours;
  }

  /** Adds one account-hour (every account-hour of the period once). */
  add(facts: AccountHourFacts): void {
    if (this.groupedAccounts) throw new Error("internal: an account-hour added beside accounts' grouped totals");
    const u = this.units;
    const { accountId, hourEpoch } = facts;
    if (this.onHour !== undefined && this.currentHour !== hourEpoch) {
      if (this.currentHour !== null && hourEpoch < this.currentHour)
        throw new Error(`account-hours out of hour order: ${hourEpoch} after ${this.currentHour}`);
      this.flushHour();
      this.currentHour = hourEpoch;
      this.hourRows?.begin(hourEpoch);
    }
    if (!this.weighted) this.see(facts);
    const entities = !this.environmentOnly;
    const machines = entities && this.sumMachines;
    const part = this.partOf(hourEpoch);
    const accounts = this.accountsOf(part);
    let account = accounts.get(accountId);
    if (account === undefined && entities)
      accounts.set(
        accountId,
        (account = { entity: this.entity(1, accountId, null, null, part), cloudspaces: new Map() }),
      );

    // machines (VMs only); their totals per cloud space (local index), the cloud spaces of the hour first
    const levels = this.levels;
    levels.truncate(0);
    const csIndex = this.csIndex;
    csIndex.clear();
    const counts = this.csCounts;
    const csMachines = this.csMachines;
    let locals = 0;
    const F = this.F;
    const L = this.L;
    const local = (cloudspaceId: number): number => {
      let c = csIndex.get(cloudspaceId);
      if (c === undefined) {
        csIndex.set(cloudspaceId, (c = locals++));
        levels.alloc(L);
        const n = (counts[c] ??= { vcpus: 0, gatewayPiu: 0 });
        n.vcpus = n.gatewayPiu = 0;
        csMachines[c] = 0;
      }
      return c;
    };
    for (const id of facts.cloudspaceIds) local(id);
    // a machine's cloud space is most often the previous machine's
    let lastCloudspaceId = Number.NaN;
    let lastLocal = -1;
    let lastCloudspace: CloudspaceEntry | undefined;
    if (this.machineFigures.length < F * facts.machines) {
      this.machineFigures = new Float64Array(F * facts.machines * 2);
      this.machineCs = new Int32Array(facts.machines * 2);
      this.machineRow = new Int32Array(facts.machines * 2);
    }
    const mf = this.machineFigures;
    const summed = this.summed;
    const vm = this.vm;
    let vms = 0;
    for (let i = 0; i < facts.machines; i++) {
      if (facts.type[i] !== u.vmType) continue;
      const at = F * vms;
      this.vmFigures(mf, at, vmFactsAt(facts, i, vm));
      const memMb = vm.memMb;
      const vcpus = vm.vcpus;
      const cu = vm.cu;
      const cloudspaceId = facts.cloudspaceId[i]!;
      if (cloudspaceId !== lastCloudspaceId) {
        lastCloudspaceId = cloudspaceId;
        lastLocal = local(cloudspaceId);
        if (machines) {
          let cloudspace = account!.cloudspaces.get(cloudspaceId);
          if (cloudspace === undefined)
            account!.cloudspaces.set(cloudspaceId, (cloudspace = { entity: undefined, machines: new Map() }));
          lastCloudspace = cloudspace;
        }
      }
      const c = lastLocal;
      this.machineCs[vms] = c;
      this.machineRow[vms] = i;
      if (machines) {
        const cloudspace = lastCloudspace!;
        let machine = cloudspace.machines.get(facts.machineId[i]!);
        if (machine === undefined)
          cloudspace.machines.set(
            facts.machineId[i]!,
            (machine = this.entity(3, accountId, cloudspaceId, facts.machineId[i]!, part)),
          );
        this.machineEntity[vms] = machine;
      }
      const t = L * c;
      levels.add(t + T_MEM, memMb);
      levels.add(t + T_CU_SUM, cu);
      levels.add(t + T_BYTES, facts.externalBytes[i]!);
      levels.add(t + T_MACHINES_CU, cu);
      for (let k = 0; k < summed.length; k++) levels.add(t + T_SUMS + k, mf[at + summed[k]!.figure]!);
      counts[c]!.vcpus += vcpus;
      csMachines[c]!++;
      vms++;
    }

    // cloud spaces: their machines' totals, their gateways' NICs and public IP; the account: Σ of its cloud spaces
    const cloudspaces = facts.cloudspaceIds.length;
    const accountAt = levels.alloc(L);
    const accountCounts = this.accountCounts;
    accountCounts.vcpus = accountCounts.gatewayPiu = 0;
    const cloudspaceCu = levels.alloc(1);
    const machinesBytes = this.machinesBytes;
    for (let c = 0; c < cloudspaces; c++) {
      const cloudspaceId = facts.cloudspaceIds[c]!;
      const g = facts.gateways.get(cloudspaceId);
      const t = L * c;
      machinesBytes[c] = levels.value(t + T_BYTES);
      const gatewayPiu = this.publicIpStates.has(facts.cloudspaceStates[c]!) && (g?.externalNics ?? 0) > 0 ? 1 : 0;
      counts[c]!.gatewayPiu = gatewayPiu;
      const out = (this.csFigures[c] ??= new Float64Array(F));
      // the cloud space's bytes: its machines' total plus its gateways' total
      levels.set(t + T_BYTES, machinesBytes[c]! + (g?.externalBytes ?? 0));
      this.levelFigures(levels, t, counts[c]!, out);
      levels.add(cloudspaceCu, out[CU]!);
      this.addTotals(levels, accountAt, levels, t);
      accountCounts.vcpus += counts[c]!.vcpus;
      accountCounts.gatewayPiu += gatewayPiu;
    }
    const accountFigures = this.accountFigures;
    this.levelFigures(levels, accountAt, accountCounts, accountFigures);
    accountFigures[CU_ALLOCATED] = accountFigures[CU]!;

    if (entities) this.addEntitySamples(facts, account!, vms, locals, cloudspaceCu, accountAt);
    if (this.weighted) return; // the environment of grouped input comes from its grouped totals (see `addHourTotals`)
    this.fedHours = true;
    let hour = this.environmentHours.get(hourEpoch);
    if (hour === undefined)
      this.environmentHours.set(
        hourEpoch,
        (hour = { accounts: 0, base: this.environment.alloc(L), counts: { vcpus: 0, gatewayPiu: 0 } }),
      );
    hour.accounts++;
    this.addTotals(this.environment, hour.base, levels, accountAt);
    hour.counts.vcpus += accountCounts.vcpus;
    hour.counts.gatewayPiu += accountCounts.gatewayPiu;
  }

  /**
   * The account-hour's showback (the account's CU allocated to its cloud spaces, theirs to
   * their machines), its samples of the account, cloud spaces and machines, and its hourly
   * lines when asked for. `locals`: the cloud spaces with a local index in `levels`;
   * `cloudspaceCu`: where the Σ of their CU is; `accountAt`: the account's totals.
   */
  private addEntitySamples(
    facts: AccountHourFacts,
    account: AccountEntry,
    vms: number,
    locals: number,
    cloudspaceCu: number,
    accountAt: number,
  ): void {
    const { accountId, hourEpoch } = facts;
    const levels = this.levels;
    const mf = this.machineFigures;
    const accountFigures = this.accountFigures;
    const machinesBytes = this.machinesBytes;
    const F = this.F;
    const cloudspaces = facts.cloudspaceIds.length;
    const keepCloudspaces = this.keepCloudspaces;
    const keepMachines = this.keepMachines;
    if (this.sumAccounts) this.addLevelSample(account.entity, accountFigures, levels, accountAt);
    if (this.onHour !== undefined) this.hourLine(1, accountId, null, null, hourEpoch, accountFigures, 0);
    if (!keepCloudspaces && !keepMachines) return;
    // showback: the account's CU to its cloud spaces, theirs to their machines
    const cuOfCloudspaces = levels.value(cloudspaceCu);
    for (let c = 0; c < cloudspaces; c++) {
      const out = this.csFigures[c]!;
      const bytes = machinesBytes[c]! + (facts.gateways.get(facts.cloudspaceIds[c]!)?.externalBytes ?? 0);
      out[CU_ALLOCATED] = accountFigures[CU]! * (cuOfCloudspaces > 0 ? out[CU]! / cuOfCloudspaces : 1.0 / cloudspaces);
      out[OWN_NIC_NU] = this.nuOf(bytes - machinesBytes[c]!);
    }
    if (keepCloudspaces) {
      for (let c = 0; c < cloudspaces; c++) {
        const cloudspaceId = facts.cloudspaceIds[c]!;
        if (this.sumCloudspaces) {
          let cloudspace = account.cloudspaces.get(cloudspaceId);
          if (cloudspace === undefined)
            account.cloudspaces.set(cloudspaceId, (cloudspace = { entity: undefined, machines: new Map() }));
          cloudspace.entity ??= this.entity(2, accountId, cloudspaceId, null, account.entity.part);
          this.addLevelSample(cloudspace.entity, this.csFigures[c]!, levels, this.L * c);
        }
        if (this.onHour !== undefined)
          this.hourLine(2, accountId, cloudspaceId, null, hourEpoch, this.csFigures[c]!, 0);
      }
    }
    if (!keepMachines) return;
    const machinesCu = this.machinesCu;
    for (let c = 0; c < locals; c++) machinesCu[c] = levels.value(this.L * c + T_MACHINES_CU);
    for (let v = 0; v < vms; v++) {
      const c = this.machineCs[v]!;
      const allocated = c < cloudspaces ? this.csFigures[c]![CU_ALLOCATED]! : 0;
      const cu = machinesCu[c]!;
      mf[F * v + CU_ALLOCATED] = allocated * (cu > 0 ? mf[F * v + CU]! / cu : 1.0 / this.csMachines[c]!);
    }

    const sumMachines = this.sumMachines;
    for (let v = 0; v < vms; v++) {
      if (sumMachines) this.addSample(this.machineEntity[v]!, mf, F * v);
      const i = this.machineRow[v]!;
      if (this.onHour !== undefined)
        this.hourLine(3, accountId, facts.cloudspaceId[i]!, facts.machineId[i]!, hourEpoch, mf, F * v);
    }
  }

  /** Adds the hourly line of a level (`rank`) from its figures at `f[at .. at + F)`: a row, or an object. */
  private hourLine(
    rank: number,
    accountId: number,
    cloudspaceId: number | null,
    machineId: number | null,
    hourEpoch: number,
    f: Float64Array,
    at: number,
  ): void {
    const rows = this.hourRows;
    if (rows !== undefined) rows.push(rank, accountId, cloudspaceId ?? Number.NaN, machineId ?? Number.NaN, f, at);
    else
      this.hourLines.push({
        level: LEVEL_OF_RANK[rank]!,
        accountId,
        cloudspaceId,
        machineId,
        hourEpoch,
        sampleHours: 1,
        figures: this.figuresOf(f, at, rank === 3),
      });
  }

  /** Notes what data quality reports of an account-hour. */
  private see(facts: AccountHourFacts): void {
    const seen = this.seen;
    const hours = seen.accountHours.get(facts.accountId);
    if (hours === undefined) seen.accountHours.set(facts.accountId, [facts.hourEpoch]);
    else hours.push(facts.hourEpoch);
    seen.emptyCloudspaceHours += facts.emptyCloudspaceRows;
    for (let i = 0; i < facts.machines; i++) {
      const type = facts.type[i]!;
      if (facts.machineId[i] === 0 && type === "") seen.emptyMachineHours++;
      if (type !== this.units.vmType) seen.unbilledTypes.set(type, (seen.unbilledTypes.get(type) ?? 0) + 1);
    }
  }

  /** The figures of an hour of the environment. */
  private environmentFigures(hour: EnvironmentHour): Float64Array {
    const out = new Float64Array(this.F);
    this.levelFigures(this.environment, hour.base, hour.counts, out);
    out[CU_ALLOCATED] = out[CU]!;
    return out;
  }

  /** Emits the current hour's lines (the environment's first). */
  private flushHour(): void {
    if (this.currentHour === null || this.onHour === undefined) return;
    const f = this.environmentFigures(this.environmentHours.get(this.currentHour)!);
    const rows = this.hourRows;
    if (rows !== undefined) {
      let allocated = Exact.ZERO;
      for (let r = 1; r < rows.count; r++)
        if (rows.rank[r] === LEVEL_RANK.account)
          allocated = allocated.add(Exact.fromNumber(rows.figures[this.F * r + CU_ALLOCATED]!));
      f[CU_ALLOCATED] = allocated.toNumber();
      rows.setRow(0, LEVEL_RANK.environment, Number.NaN, Number.NaN, Number.NaN, f, 0);
      this.onHourRows!(rows);
      return;
    }
    const lines = this.hourLines;
    // allocated the Σ of its accounts' CU that hour, as its period line is (showback's allocateToEnvironment)
    f[CU_ALLOCATED] = lines
      .reduce((sum, l) => (l.level === "account" ? sum.add(Exact.fromNumber(l.figures.cuAllocated)) : sum), Exact.ZERO)
      .toNumber();
    lines.push({
      level: "environment",
      accountId: null,
      cloudspaceId: null,
      machineId: null,
      hourEpoch: this.currentHour,
      sampleHours: 1,
      figures: this.figuresOf(f, 0, false),
    });
    lines.sort(compareLines);
    this.hourLines = [];
    this.onHourLines!(lines);
  }

  /**
   * Ends the period: emits the last hour's lines (with `onHour`) and returns the period lines
   * in report order: the environment (when the period has an hour), then per account the
   * account, each cloud space followed by its machines.
   */
  finish(): EngineLine[] {
    this.flushHour();
    this.currentHour = null;
    const parts = this.splitAt.length + 1;
    const environments: Entity[] = [];
    for (const [hourEpoch, hour] of this.environmentHours) {
      const part = this.partOf(hourEpoch);
      const environment = (environments[part] ??= {
        rank: 0,
        part,
        accountId: null,
        cloudspaceId: null,
        machineId: null,
        base: this.period.alloc(this.F),
        samples: 0,
      });
      this.addLevelSample(environment, this.environmentFigures(hour), this.environment, hour.base);
    }
    this.groupedTotals.forEach((at, part) => {
      // grouped VM-hours: their sums as the environment's, as if summed hour by hour (see `addVmHours`)
      const environment = environments[part];
      if (environment === undefined)
        throw new Error(`internal: grouped VM-hours in part ${part} of the period, which has no hour`);
      environment.samples--;
      this.addLevelSample(environment, new Float64Array(this.F), this.environment, at);
    });
    for (const [account, at] of this.accountGroupedTotals) {
      // an account's grouped VM-hours: their sums as its own, as if summed hour by hour (see `addAccountVmHours`)
      if (account.samples === 0)
        throw new Error(
          `internal: grouped VM-hours of account ${account.accountId} in part ${account.part} of the period, which has no hour of it`,
        );
      account.samples--;
      this.addLevelSample(account, new Float64Array(this.F), this.accountTotals, at);
    }
    const sampled = [...this.entities.filter((e) => e.samples > 0), ...environments.filter((e) => e !== undefined)];
    if (parts === 1) return (this.periodParts = [sampled.map((e) => this.periodLine(e)).sort(compareLines)])[0]!;
    this.periodParts = Array.from({ length: parts }, () => []);
    // the period's sums: each entity's parts' terms, exactly
    const whole = new Map<string, Entity>();
    for (const e of sampled) {
      this.periodParts[e.part]!.push(this.periodLine(e));
      const key = `${e.rank}/${e.accountId}/${e.cloudspaceId}/${e.machineId}`;
      let sum = whole.get(key);
      if (sum === undefined) whole.set(key, (sum = { ...e, part: -1, base: this.period.alloc(this.F), samples: 0 }));
      sum.samples += e.samples;
      for (let k = 0; k < this.F; k++) this.period.addSum(sum.base + k, this.period, e.base + k);
    }
    for (const lines of this.periodParts) lines.sort(compareLines);
    return [...whole.values()].map((e) => this.periodLine(e)).sort(compareLines);
  }

  /**
   * After {@link finish}: the period lines of each part of the period cut at `splitAt` (one
   * list per part, in order, each in report order); without cuts, one part: the period's lines.
   */
  partLines(): EngineLine[][] {
    if (this.periodParts === undefined) throw new Error("partLines() is known after finish()");
    return this.periodParts;
  }

  /** The engine's sums and what it saw, as typed arrays (to move between threads without copying; see {@link merge}). */
  state(): EngineState {
    const counts: number[] = [];
    const terms: number[] = [];
    const id = (x: number | null) => x ?? Number.NaN;
    const entities = new Float64Array(ENTITY_FIELDS * this.entities.length);
    this.entities.forEach((e, i) => {
      entities.set(
        [e.rank, id(e.accountId), id(e.cloudspaceId), id(e.machineId), e.samples, e.part],
        ENTITY_FIELDS * i,
      );
      this.period.exportTerms(e.base, this.F, counts, terms);
    });
    const hours = new Float64Array(HOUR_FIELDS * this.environmentHours.size);
    let i = 0;
    for (const [hourEpoch, h] of this.environmentHours) {
      hours.set([hourEpoch, h.accounts, h.counts.vcpus, h.counts.gatewayPiu], HOUR_FIELDS * i++);
      this.environment.exportTerms(h.base, this.L, counts, terms);
    }
    return {
      entities,
      hours,
      units: this.unitNames,
      counts: Uint32Array.from(counts),
      terms: Float64Array.from(terms),
      seen: this.seen,
    };
  }

  /**
   * Adds another engine's account-hours (same units and CU rule; see {@link state}), exactly:
   * engines fed parts of a period merge into the figures of one fed it all, to the bit.
   */
  merge(state: EngineState): void {
    const { entities, hours, counts, terms } = state;
    if (state.units.join() !== this.unitNames.join()) {
      throw new Error(
        `internal: engines of different units merged (${state.units.join(", ")} into ${this.unitNames.join(", ")}): a unit registered in one thread only?`,
      );
    }
    const F = this.F;
    const L = this.L;
    let c = 0;
    let at = 0;
    for (let i = 0; i < entities.length; i += ENTITY_FIELDS) {
      const rank = entities[i]!;
      const accountId = entities[i + 1]!;
      const cloudspaceId = entities[i + 2]!;
      const machineId = entities[i + 3]!;
      const part = entities[i + 5]!;
      const accounts = this.accountsOf(part);
      let account = accounts.get(accountId);
      if (account === undefined)
        accounts.set(
          accountId,
          (account = { entity: this.entity(1, accountId, null, null, part), cloudspaces: new Map() }),
        );
      let mine: Entity;
      if (rank === 1) mine = account.entity;
      else {
        let cloudspace = account.cloudspaces.get(cloudspaceId);
        if (cloudspace === undefined)
          account.cloudspaces.set(cloudspaceId, (cloudspace = { entity: undefined, machines: new Map() }));
        if (rank === 2) mine = cloudspace.entity ??= this.entity(2, accountId, cloudspaceId, null, part);
        else {
          let machine = cloudspace.machines.get(machineId);
          if (machine === undefined)
            cloudspace.machines.set(machineId, (machine = this.entity(3, accountId, cloudspaceId, machineId, part)));
          mine = machine;
        }
      }
      mine.samples += entities[i + 4]!;
      at = this.period.importTerms(mine.base, F, counts, c, terms, at);
      c += F;
    }
    for (let i = 0; i < hours.length; i += HOUR_FIELDS) {
      const hourEpoch = hours[i]!;
      let hour = this.environmentHours.get(hourEpoch);
      if (hour === undefined)
        this.environmentHours.set(
          hourEpoch,
          (hour = { accounts: 0, base: this.environment.alloc(L), counts: { vcpus: 0, gatewayPiu: 0 } }),
        );
      hour.accounts += hours[i + 1]!;
      hour.counts.vcpus += hours[i + 2]!;
      hour.counts.gatewayPiu += hours[i + 3]!;
      at = this.environment.importTerms(hour.base, L, counts, c, terms, at);
      c += L;
    }
    const seen = this.seen;
    for (const [accountId, list] of state.seen.accountHours)
      seen.accountHours.set(accountId, [...(seen.accountHours.get(accountId) ?? []), ...list]);
    for (const [type, n] of state.seen.unbilledTypes)
      seen.unbilledTypes.set(type, (seen.unbilledTypes.get(type) ?? 0) + n);
    seen.emptyMachineHours += state.seen.emptyMachineHours;
    seen.emptyCloudspaceHours += state.seen.emptyCloudspaceHours;
  }

  /** What the engine saw besides the figures (account-hours, unbilled types, empty records). */
  seenData(): SeenData {
    for (const hours of this.seen.accountHours.values()) hours.sort((a, b) => a - b);
    return this.seen;
  }

  private periodLine(e: Entity): EngineLine {
    const f = new Float64Array(this.F);
    for (let k = 0; k < this.F; k++) f[k] = this.period.value(e.base + k);
    return {
      level: LEVEL_OF_RANK[e.rank]!,
      accountId: e.accountId,
      cloudspaceId: e.cloudspaceId,
      machineId: e.machineId,
      hourEpoch: null,
      sampleHours: e.samples,
      figures: this.figuresOf(f, 0, e.rank === 3),
    };
  }

  /** The figures at `f[at .. at + F)` as an object (NU null for a machine). */
  private figuresOf(f: Float64Array, at: number, machine: boolean): Figures {
    const out: Record<string, number | null> = {};
    const names = this.figureNames;
    for (let k = 0; k < this.F; k++) out[names[k]!] = f[at + k]!;
    if (machine) out[names[NU]!] = null;
    return out as Figures;
  }
}
