import type { AccountHourFacts } from "../load/machineFacts.js";
import { vmFactsAt } from "../load/vmFacts.js";
import type { CuRollup } from "./unitNames.js";
import type { Units } from "./units.js";
import {
  ascending,
  compareLines,
  CU,
  CU_ALLOCATED,
  EngineSums,
  LEVEL_OF_RANK,
  OWN_NIC_NU,
  T_BYTES,
  T_CU_SUM,
  T_MACHINES_CU,
  T_MEM,
  WHOLE_PERIOD,
  type AccountEntry,
  type CloudspaceEntry,
  type Counts,
  type EngineLevel,
  type EngineLine,
  type Entity,
  type EntityIds,
  type EnvironmentHour,
  type SeenData,
} from "./engineSums.js";
import { HourlyOutput, type HourSink } from "./engineHourly.js";
import { GroupedInput } from "./engineGrouped.js";
import { engineState, mergeEngineState, type EngineState } from "./engineState.js";
import { VmConfigurations } from "./engineConfigs.js";

export {
  compareEntities,
  compareLines,
  LEVEL_RANK,
  type Counts,
  type EngineLevel,
  type EngineLine,
  type FigureExtras,
  type Figures,
  type SeenData,
} from "./engineSums.js";
export type { EngineState } from "./engineState.js";
export type { HourlyRowsSink } from "./engineHourly.js";

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
export class BillingEngine extends EngineSums {
  /** The grouped roads' way in (`engineGrouped.ts`): VM-hours per configuration, hours' totals, weighted account-hours. */
  readonly grouped: GroupedInput;
  /** The hourly road (`engineHourly.ts`), when hourly lines are asked for. */
  private readonly hours: HourlyOutput | undefined;
  private periodParts: EngineLine[][] | undefined;
  // scratch of one account-hour: its cloud spaces by local index, its VMs' figures, its account's totals
  private readonly csIndex = new Map<number, number>();
  private locals = 0;
  /** Per account, its machines' last VM configurations and their figures (see `VmConfigurations`). */
  private readonly configurations = new Map<number, VmConfigurations>();
  private readonly csCounts: Counts[] = [];
  private readonly csMachines: number[] = [];
  private machineFigures: Float64Array;
  private machineCs: Int32Array = new Int32Array(256);
  /** Each VM's record in the account-hour's facts. */
  private machineRow: Int32Array = new Int32Array(256);
  private readonly machineEntity: Entity[] = [];
  private readonly csFigures: Float64Array[] = [];
  private readonly accountCounts: Counts = { vcpus: 0, gatewayPiu: 0 };
  private readonly accountFigures: Float64Array;
  /** Where the account's totals are in `levels`, and the Σ of its cloud spaces' CU. */
  private accountAt = 0;
  private cloudspaceCu = 0;
  private readonly machinesBytes: number[] = [];
  private readonly machinesCu: number[] = [];
  /** The ids of an hourly line, rewritten for each. */
  private readonly lineIds: EntityIds = { accountId: null, cloudspaceId: null, machineId: null };
  /** The levels below the environment summed and given hourly lines (see {@link keepLevels}). */
  private keepCloudspaces = true;
  private keepMachines = true;
  /** The levels below the environment summed over the period (see {@link keepLevels}); the others give hourly lines only. */
  private sumAccounts = true;
  private sumCloudspaces = true;
  private sumMachines = true;

  /**
   * `onHour`: called with the lines of each hour (in report order, the environment's first)
   * once the next hour's first account-hour arrives, and at `finish`; account-hours must then
   * come in hour order. Given as `{ rows }`, each hour's lines come as rows of numbers
   * (`HourlyRows`, in the order it says), the same figures without an object per line.
   *
   * `environmentOnly`: keep the environment's sums only (its figures are the same): no account,
   * cloud space or machine is summed over the period, nor allocated CU (what a bill of the
   * environment's total needs, for less work per machine).
   * `splitAt`: hours (epoch seconds, ascending) that cut the period into parts summed apart
   * as well (where a price changes; see {@link partLines}); the period's lines are their exact sums.
   */
  constructor(
    units: Units,
    cuRollup: CuRollup,
    onHour?: HourSink,
    private readonly environmentOnly = false,
    splitAt: readonly number[] = [],
  ) {
    super(units, cuRollup, splitAt);
    this.hours =
      onHour === undefined
        ? undefined
        : new HourlyOutput(this, onHour, (hourEpoch) => this.environmentFigures(this.environmentHours.get(hourEpoch)!));
    this.grouped = new GroupedInput(this, (facts) => this.add(facts), onHour !== undefined, environmentOnly);
    this.machineFigures = new Float64Array(this.F * 256);
    this.accountFigures = new Float64Array(this.F);
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

  /** Adds one account-hour (every account-hour of the period once). */
  add(facts: AccountHourFacts): void {
    if (this.groupedAccounts) throw new Error("internal: an account-hour added beside accounts' grouped totals");
    this.hours?.begin(facts.hourEpoch);
    if (!this.weighted) this.see(facts);
    const part = this.partOf(facts.hourEpoch);
    const account = this.environmentOnly ? undefined : this.accountOf(part, facts.accountId);
    this.beginLevels(facts);
    const vms = this.addVms(facts, account, part);
    this.addCloudspaces(facts);
    if (account !== undefined) this.addEntitySamples(facts, account, vms);
    if (this.weighted) return; // the environment of grouped input comes from its grouped totals (see `GroupedInput.hourTotals`)
    this.fedHours = true;
    const hour = this.environmentHour(facts.hourEpoch);
    hour.accounts++;
    this.addTotals(this.environment, hour.base, this.levels, this.accountAt);
    hour.counts.vcpus += this.accountCounts.vcpus;
    hour.counts.gatewayPiu += this.accountCounts.gatewayPiu;
  }

  /** The local index of a cloud space in the account-hour's `levels` (a new one gets its totals, at 0). */
  private localOf(cloudspaceId: number): number {
    let c = this.csIndex.get(cloudspaceId);
    if (c === undefined) {
      this.csIndex.set(cloudspaceId, (c = this.locals++));
      this.levels.alloc(this.L);
      const n = (this.csCounts[c] ??= { vcpus: 0, gatewayPiu: 0 });
      n.vcpus = n.gatewayPiu = 0;
      this.csMachines[c] = 0;
    }
    return c;
  }

  /** Empties the scratch of an account-hour: the cloud spaces of the hour first, room for its machines. */
  private beginLevels(facts: AccountHourFacts): void {
    this.levels.truncate(0);
    this.csIndex.clear();
    this.locals = 0;
    for (const id of facts.cloudspaceIds) this.localOf(id);
    if (this.machineFigures.length < this.F * facts.machines) {
      this.machineFigures = new Float64Array(this.F * facts.machines * 2);
      this.machineCs = new Int32Array(facts.machines * 2);
      this.machineRow = new Int32Array(facts.machines * 2);
    }
  }

  /** The entity of record `i`'s machine in its cloud space (made when first seen). */
  private machineOf(cloudspace: CloudspaceEntry, facts: AccountHourFacts, i: number, part: number): Entity {
    const machineId = facts.machineId[i]!;
    let machine = cloudspace.machines.get(machineId);
    if (machine === undefined)
      cloudspace.machines.set(
        machineId,
        (machine = this.entity(3, facts.accountId, facts.cloudspaceId[i]!, machineId, part)),
      );
    return machine;
  }

  /**
   * The account-hour's VMs (machines of the billed type): each one's figures, and their totals
   * per cloud space (local index). A VM's figures are computed once per configuration: a
   * machine configured as in its last hour takes them from then (`VmConfigurations`). Returns how many.
   */
  private addVms(facts: AccountHourFacts, account: AccountEntry | undefined, part: number): number {
    const machines = account !== undefined && this.sumMachines;
    const { levels, F, L, summed, vm, csCounts } = this;
    const vmType = this.units.vmType;
    const mf = this.machineFigures;
    let configurations = this.configurations.get(facts.accountId);
    if (configurations === undefined)
      this.configurations.set(facts.accountId, (configurations = new VmConfigurations(F)));
    configurations.begin();
    // a machine's cloud space is most often the previous machine's
    let lastCloudspaceId = Number.NaN;
    let lastLocal = -1;
    let lastCloudspace: CloudspaceEntry | undefined;
    let vms = 0;
    for (let i = 0; i < facts.machines; i++) {
      if (facts.type[i] !== vmType) continue;
      const at = F * vms;
      const s = configurations.slotOf(facts, i);
      if (configurations.figuresOf(facts, i, s, mf, at)) {
        vm.memMb = configurations.memMb(s);
        vm.vcpus = configurations.vcpus(s);
        vm.cu = mf[at + CU]!;
        mf[at + OWN_NIC_NU] = this.nuOf(facts.externalBytes[i]!);
      } else {
        this.vmFigures(mf, at, vmFactsAt(facts, i, vm));
        configurations.keep(facts, i, s, mf, at, vm.memMb, vm.vcpus);
      }
      const cloudspaceId = facts.cloudspaceId[i]!;
      if (cloudspaceId !== lastCloudspaceId) {
        lastCloudspaceId = cloudspaceId;
        lastLocal = this.localOf(cloudspaceId);
        if (machines) lastCloudspace = this.cloudspaceOf(account, cloudspaceId);
      }
      const c = lastLocal;
      this.machineCs[vms] = c;
      this.machineRow[vms] = i;
      if (machines) this.machineEntity[vms] = this.machineOf(lastCloudspace!, facts, i, part);
      const t = L * c;
      levels.add(t + T_MEM, vm.memMb);
      levels.add(t + T_CU_SUM, vm.cu);
      levels.add(t + T_BYTES, facts.externalBytes[i]!);
      levels.add(t + T_MACHINES_CU, vm.cu);
      for (let k = 0; k < summed.length; k++) levels.add(t + summed[k]!.total, mf[at + summed[k]!.figure]!);
      csCounts[c]!.vcpus += vm.vcpus;
      this.csMachines[c]!++;
      vms++;
    }
    return vms;
  }

  /** Cloud spaces: their machines' totals, their gateways' NICs and public IP; the account: Σ of its cloud spaces. */
  private addCloudspaces(facts: AccountHourFacts): void {
    const { levels, L, csCounts: counts, machinesBytes, accountCounts, accountFigures } = this;
    const cloudspaces = facts.cloudspaceIds.length;
    const accountAt = (this.accountAt = levels.alloc(L));
    accountCounts.vcpus = accountCounts.gatewayPiu = 0;
    const cloudspaceCu = (this.cloudspaceCu = levels.alloc(1));
    for (let c = 0; c < cloudspaces; c++) {
      const g = facts.gateways.get(facts.cloudspaceIds[c]!);
      const t = L * c;
      machinesBytes[c] = levels.value(t + T_BYTES);
      const gatewayPiu = this.publicIpStates.has(facts.cloudspaceStates[c]!) && (g?.externalNics ?? 0) > 0 ? 1 : 0;
      counts[c]!.gatewayPiu = gatewayPiu;
      const out = (this.csFigures[c] ??= new Float64Array(this.F));
      // the cloud space's bytes: its machines' total plus its gateways' total
      levels.set(t + T_BYTES, machinesBytes[c]! + (g?.externalBytes ?? 0));
      this.levelFigures(levels, t, counts[c]!, out);
      levels.add(cloudspaceCu, out[CU]!);
      this.addTotals(levels, accountAt, levels, t);
      accountCounts.vcpus += counts[c]!.vcpus;
      accountCounts.gatewayPiu += gatewayPiu;
    }
    this.levelFigures(levels, accountAt, accountCounts, accountFigures);
    accountFigures[CU_ALLOCATED] = accountFigures[CU]!;
  }

  /** `lineIds`, set to these ids. */
  private ids(accountId: number, cloudspaceId: number | null, machineId: number | null): EntityIds {
    const ids = this.lineIds;
    ids.accountId = accountId;
    ids.cloudspaceId = cloudspaceId;
    ids.machineId = machineId;
    return ids;
  }

  /**
   * The account-hour's showback (the account's CU allocated to its cloud spaces, theirs to
   * their machines), its samples of the account, cloud spaces and machines, and its hourly
   * lines when asked for.
   */
  private addEntitySamples(facts: AccountHourFacts, account: AccountEntry, vms: number): void {
    if (this.sumAccounts) this.addLevelSample(account.entity, this.accountFigures, this.levels, this.accountAt);
    this.hours?.line(1, this.ids(facts.accountId, null, null), this.accountFigures, 0);
    if (!this.keepCloudspaces && !this.keepMachines) return;
    this.allocateToCloudspaces(facts);
    if (this.keepCloudspaces) this.addCloudspaceSamples(facts, account);
    if (!this.keepMachines) return;
    this.allocateToMachines(facts, vms);
    const { F, machineFigures: mf, hours } = this;
    for (let v = 0; v < vms; v++) {
      if (this.sumMachines) this.addSample(this.machineEntity[v]!, mf, F * v);
      const i = this.machineRow[v]!;
      hours?.line(3, this.ids(facts.accountId, facts.cloudspaceId[i]!, facts.machineId[i]!), mf, F * v);
    }
  }

  /** Showback: the account's CU to its cloud spaces (in proportion to their CU); their gateways' own NU. */
  private allocateToCloudspaces(facts: AccountHourFacts): void {
    const { machinesBytes, accountFigures } = this;
    const cloudspaces = facts.cloudspaceIds.length;
    const cuOfCloudspaces = this.levels.value(this.cloudspaceCu);
    for (let c = 0; c < cloudspaces; c++) {
      const out = this.csFigures[c]!;
      const bytes = machinesBytes[c]! + (facts.gateways.get(facts.cloudspaceIds[c]!)?.externalBytes ?? 0);
      out[CU_ALLOCATED] = accountFigures[CU]! * (cuOfCloudspaces > 0 ? out[CU]! / cuOfCloudspaces : 1.0 / cloudspaces);
      out[OWN_NIC_NU] = this.nuOf(bytes - machinesBytes[c]!);
    }
  }

  /** The cloud spaces' samples (when summed) and hourly lines. */
  private addCloudspaceSamples(facts: AccountHourFacts, account: AccountEntry): void {
    const cloudspaces = facts.cloudspaceIds.length;
    for (let c = 0; c < cloudspaces; c++) {
      const cloudspaceId = facts.cloudspaceIds[c]!;
      if (this.sumCloudspaces) {
        const cloudspace = this.cloudspaceOf(account, cloudspaceId);
        cloudspace.entity ??= this.entity(2, facts.accountId, cloudspaceId, null, account.entity.part);
        this.addLevelSample(cloudspace.entity, this.csFigures[c]!, this.levels, this.L * c);
      }
      this.hours?.line(2, this.ids(facts.accountId, cloudspaceId, null), this.csFigures[c]!, 0);
    }
  }

  /** Showback: each cloud space's allocated CU to its machines, in proportion to their CU (equal shares when all are 0). */
  private allocateToMachines(facts: AccountHourFacts, vms: number): void {
    const { F, levels, machinesCu, machineFigures: mf } = this;
    const cloudspaces = facts.cloudspaceIds.length;
    for (let c = 0; c < this.locals; c++) machinesCu[c] = levels.value(this.L * c + T_MACHINES_CU);
    for (let v = 0; v < vms; v++) {
      const c = this.machineCs[v]!;
      const allocated = c < cloudspaces ? this.csFigures[c]![CU_ALLOCATED]! : 0;
      const cu = machinesCu[c]!;
      mf[F * v + CU_ALLOCATED] = allocated * (cu > 0 ? mf[F * v + CU]! / cu : 1.0 / this.csMachines[c]!);
    }
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

  /**
   * Ends the period: emits the last hour's lines (with `onHour`) and returns the period lines
   * in report order: the environment (when the period has an hour), then per account the
   * account, each cloud space followed by its machines.
   */
  finish(): EngineLine[] {
    if (this.hours !== undefined) {
      this.hours.flush();
      this.hours.hour = null;
    }
    const environments = this.environments();
    const sampled = [...this.entities.filter((e) => e.samples > 0), ...environments];
    const parts = this.splitAt.length + 1;
    if (parts === 1) return (this.periodParts = [sampled.map((e) => this.periodLine(e)).sort(compareLines)])[0]!;
    this.periodParts = Array.from({ length: parts }, () => []);
    // the period's sums: each entity's parts' terms, exactly (an entity of the whole period is its own)
    const whole = new Map<string, Entity>();
    const wholeLines: EngineLine[] = [];
    for (const e of sampled) {
      if (e.part === WHOLE_PERIOD) {
        wholeLines.push(this.periodLine(e));
        continue;
      }
      this.periodParts[e.part]!.push(this.periodLine(e));
      const key = `${e.rank}/${e.accountId}/${e.cloudspaceId}/${e.machineId}`;
      let sum = whole.get(key);
      if (sum === undefined) whole.set(key, (sum = { ...e, part: -1, base: this.period.alloc(this.F), samples: 0 }));
      sum.samples += e.samples;
      for (let k = 0; k < this.F; k++) this.period.addSum(sum.base + k, this.period, e.base + k);
    }
    for (const lines of this.periodParts) lines.sort(compareLines);
    return [...whole.values()]
      .map((e) => this.periodLine(e))
      .concat(wholeLines)
      .sort(compareLines);
  }

  /**
   * The environment's entity of each part of the period, from its hours and the grouped
   * VM-hours' totals; and the grouped VM-hours' totals of the accounts, into their entities.
   */
  private environments(): Entity[] {
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
      // grouped VM-hours: their sums as the environment's, as if summed hour by hour (see `GroupedInput.vmHours`)
      const environment = environments[part];
      if (environment === undefined)
        throw new Error(`internal: grouped VM-hours in part ${part} of the period, which has no hour`);
      environment.samples--;
      this.addLevelSample(environment, new Float64Array(this.F), this.environment, at);
    });
    for (const [account, at] of this.accountGroupedTotals) {
      // an account's grouped VM-hours: their sums as its own, as if summed hour by hour (see `GroupedInput.accountVmHours`)
      if (account.samples === 0)
        throw new Error(
          `internal: grouped VM-hours of account ${account.accountId} in part ${account.part} of the period, which has no hour of it`,
        );
      account.samples--;
      this.addLevelSample(account, new Float64Array(this.F), this.accountTotals, at);
    }
    return environments.filter((e) => e !== undefined);
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
    return engineState(this);
  }

  /**
   * Adds another engine's account-hours (same units and CU rule; see {@link state}), exactly:
   * engines fed parts of a period merge into the figures of one fed it all, to the bit.
   */
  merge(state: EngineState): void {
    mergeEngineState(this, state);
  }

  /** What the engine saw besides the figures (account-hours, unbilled types, empty records). */
  seenData(): SeenData {
    // most come in order (a warehouse's are read so): sorting boxes every hour of a long period
    for (const hours of this.seen.accountHours.values()) if (!ascending(hours)) hours.sort((a, b) => a - b);
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
}
