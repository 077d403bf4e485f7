import { ExactSum } from "./exactSum.js";
import type { AccountHourFacts } from "./machineFacts.js";
import type { CuRollup } from "./unitNames.js";
import type { Units } from "./units.js";

/** The rank of each level in a report's order (environment first, machines last). */
export const LEVEL_RANK = { environment: 0, account: 1, cloudspace: 2, machine: 3 } as const;
/** A level of the billing hierarchy. */
export type EngineLevel = keyof typeof LEVEL_RANK;

/**
 * The figures of one entity, in one hour or summed over the period (SPEC 3). Units in
 * unit-hours, NU in TB transferred (null for machines, which have no NU of their own).
 */
export interface Figures {
  CU: number;
  SU: number;
  TU: number;
  NU: number | null;
  VCU: number;
  MU: number;
  WU: number;
  PIU: number;
  /** Σ of the machines' CU. */
  cuSum: number;
  /** The part of PIU that is the gateways' public IPs. */
  gatewayPiu: number;
  /** Showback CU (SPEC 3.2): the account's CU allocated to its cloud spaces, and on to their machines. */
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

/** The totals of a cloud space, an account or the environment in one hour, before its CU and NU. */
interface LevelSums {
  memMb: number;
  vcpus: number;
  cuSum: number;
  SU: number;
  TU: number;
  externalBytes: number;
  VCU: number;
  MU: number;
  WU: number;
  PIU: number;
  gatewayPiu: number;
}

const SUMMED = ["memMb", "cuSum", "SU", "TU", "externalBytes", "VCU", "MU", "WU"] as const;

/** Exact sums of LevelSums, field by field (vcpus and PIU are whole numbers, summed as such). */
class LevelTotals {
  readonly sums = SUMMED.map(() => new ExactSum());
  vcpus = 0;
  PIU = 0;
  gatewayPiu = 0;

  add(s: LevelSums): void {
    for (let i = 0; i < SUMMED.length; i++) this.sums[i]!.add(s[SUMMED[i]!]);
    this.vcpus += s.vcpus;
    this.PIU += s.PIU;
    this.gatewayPiu += s.gatewayPiu;
  }

  merge(other: LevelTotals): void {
    for (let i = 0; i < SUMMED.length; i++) this.sums[i]!.addSum(other.sums[i]!);
    this.vcpus += other.vcpus;
    this.PIU += other.PIU;
    this.gatewayPiu += other.gatewayPiu;
  }

  value(): LevelSums {
    const v = this.sums.map((s) => s.value());
    return {
      memMb: v[0]!, cuSum: v[1]!, SU: v[2]!, TU: v[3]!, externalBytes: v[4]!, VCU: v[5]!, MU: v[6]!, WU: v[7]!,
      vcpus: this.vcpus, PIU: this.PIU, gatewayPiu: this.gatewayPiu,
    };
  }
}

const FIGURES = ["CU", "SU", "TU", "NU", "VCU", "MU", "WU", "PIU", "cuSum", "gatewayPiu", "cuAllocated", "ownNicNu"] as const;

/** The period totals of one entity: exact sums of its hourly figures. */
class PeriodTotals {
  readonly sums = FIGURES.map(() => new ExactSum());
  sampleHours = 0;
  hasNu = true;

  constructor(readonly level: EngineLevel, readonly accountId: number | null, readonly cloudspaceId: number | null, readonly machineId: number | null) {}

  add(f: Figures): void {
    this.sampleHours++;
    for (let i = 0; i < FIGURES.length; i++) {
      const v = f[FIGURES[i]!];
      if (v === null) this.hasNu = false;
      else this.sums[i]!.add(v);
    }
  }

  merge(other: PeriodTotals): void {
    this.sampleHours += other.sampleHours;
    this.hasNu &&= other.hasNu;
    for (let i = 0; i < FIGURES.length; i++) this.sums[i]!.addSum(other.sums[i]!);
  }

  line(): EngineLine {
    const v = this.sums.map((s) => s.value());
    const figures = Object.fromEntries(FIGURES.map((k, i) => [k, v[i]!])) as unknown as Figures;
    if (!this.hasNu) figures.NU = null;
    return { level: this.level, accountId: this.accountId, cloudspaceId: this.cloudspaceId, machineId: this.machineId, hourEpoch: null, sampleHours: this.sampleHours, figures };
  }
}

/** Report order: by hour, then account, cloud space and machine (none first), then level. */
export function compareLines(a: EngineLine, b: EngineLine): number {
  return (a.hourEpoch ?? -Infinity) - (b.hourEpoch ?? -Infinity)
    || (a.accountId ?? -Infinity) - (b.accountId ?? -Infinity)
    || (a.cloudspaceId ?? -Infinity) - (b.cloudspaceId ?? -Infinity)
    || (a.machineId ?? -Infinity) - (b.machineId ?? -Infinity)
    || LEVEL_RANK[a.level] - LEVEL_RANK[b.level];
}

/**
 * The one definition of the billing units (SPEC 3) and of showback (SPEC 3.2). It takes the
 * facts of account-hours (from the files as they decode, or from a database's rows) and
 * keeps, per entity, exact sums of its hourly figures: its memory grows with the entities and
 * the hours of the period (a few numbers per hour), not with the machine-hours. Account-hours
 * may come in any order, and engines fed with parts of the data merge into the same figures
 * to the bit (see `ExactSum`).
 *
 * Per hour: a machine's CU is max(mem / mbPerGb / gbPerCu, vcpus / vcpusPerCu); a cloud
 * space's, an account's and the environment's come from their own totals that hour
 * (`aggregate`) or are the sum of their machines' (`sum`). SU = Σ disk size / gbPerSu,
 * TU = Σ IOPS limit / iopsPerTu, NU = Σ external bytes × nicBytesPerValue / bytesPerNu,
 * VCU = vCPUs, MU = mem / mbPerGb, WU = CU of Windows machines, PIU = external NICs of machines
 * plus one per cloud space whose gateway has one while the cloud space is in a public-IP
 * state. Only machines of type `vmType` are billed; compute (CU, VCU, MU, WU) only in a
 * billable status.
 */
export class BillingEngine {
  private readonly machines = new Map<string, PeriodTotals>();
  private readonly cloudspaces = new Map<string, PeriodTotals>();
  private readonly accounts = new Map<number, PeriodTotals>();
  /** Per hour: the accounts' totals (the environment's hour is computed when it is complete). */
  private readonly environmentHours = new Map<number, { accounts: number; totals: LevelTotals }>();
  private readonly windows = new Map<string, boolean>();
  private readonly windowsPattern: RegExp;
  /** Hourly lines of the account-hours of the current hour, when hourly lines are asked for. */
  private hourLines: EngineLine[] = [];
  private currentHour: number | null = null;

  /**
   * `onHour`: called with the lines of each hour (in report order, the environment's first)
   * once the next hour's first account-hour arrives, and at `finish`; account-hours must then
   * come in hour order.
   */
  constructor(
    private readonly units: Units,
    private readonly cuRollup: CuRollup,
    private readonly onHour?: (lines: EngineLine[]) => void,
  ) {
    this.windowsPattern = new RegExp(units.windowsPattern, "i");
  }

  private cuOf(memMb: number, vcpus: number): number {
    const u = this.units;
    return Math.max(memMb / u.mbPerGb / u.gbPerCu, vcpus / u.vcpusPerCu);
  }

  private nuOf(bytes: number): number {
    return bytes * this.units.nicBytesPerValue / this.units.bytesPerNu;
  }

  private isWindows(imageName: string): boolean {
    let w = this.windows.get(imageName);
    if (w === undefined) this.windows.set(imageName, (w = this.windowsPattern.test(imageName)));
    return w;
  }

  private levelFigures(s: LevelSums): Figures {
    return {
      CU: this.cuRollup === "aggregate" ? this.cuOf(s.memMb, s.vcpus) : s.cuSum,
      SU: s.SU, TU: s.TU, NU: this.nuOf(s.externalBytes), VCU: s.VCU, MU: s.MU, WU: s.WU, PIU: s.PIU,
      cuSum: s.cuSum, gatewayPiu: s.gatewayPiu, cuAllocated: 0, ownNicNu: 0,
    };
  }

  /** Adds one account-hour (every account-hour of the period once). */
  add(facts: AccountHourFacts): void {
    const u = this.units;
    const { accountId, hourEpoch } = facts;
    if (this.onHour !== undefined && this.currentHour !== hourEpoch) {
      if (this.currentHour !== null && hourEpoch < this.currentHour) throw new Error(`account-hours out of hour order: ${hourEpoch} after ${this.currentHour}`);
      this.flushHour();
      this.currentHour = hourEpoch;
    }

    // machines (VMs only); their sums per cloud space
    const machines: { cloudspaceId: number; machineId: number; figures: Figures; externalBytes: number }[] = [];
    const byCloudspace = new Map<number, { totals: LevelTotals; cu: ExactSum; n: number }>();
    for (const m of facts.machines) {
      if (m.type !== u.vmType) continue;
      const billed = u.billableStatuses === null || u.billableStatuses.includes(m.status);
      const memMb = billed ? m.memMb : 0;
      const vcpus = billed ? m.vcpus : 0;
      const cu = this.cuOf(memMb, vcpus);
      const sums: LevelSums = {
        memMb, vcpus, cuSum: cu, SU: m.sizeGb / u.gbPerSu, TU: m.iopsLimit / u.iopsPerTu, externalBytes: m.externalBytes,
        VCU: vcpus, MU: memMb / u.mbPerGb, WU: this.isWindows(m.imageName) ? cu : 0, PIU: m.externalNics, gatewayPiu: 0,
      };
      const figures: Figures = {
        CU: cu, SU: sums.SU, TU: sums.TU, NU: null, VCU: sums.VCU, MU: sums.MU, WU: sums.WU, PIU: sums.PIU,
        cuSum: cu, gatewayPiu: 0, cuAllocated: 0, ownNicNu: this.nuOf(m.externalBytes),
      };
      machines.push({ cloudspaceId: m.cloudspaceId, machineId: m.machineId, figures, externalBytes: m.externalBytes });
      let c = byCloudspace.get(m.cloudspaceId);
      if (c === undefined) byCloudspace.set(m.cloudspaceId, (c = { totals: new LevelTotals(), cu: new ExactSum(), n: 0 }));
      c.totals.add(sums);
      c.cu.add(cu);
      c.n++;
    }

    // cloud spaces: their machines' totals, their gateways' NICs and public IP
    const account = new LevelTotals();
    const cloudspaces: { cloudspaceId: number; sums: LevelSums; figures: Figures; machinesExternalBytes: number }[] = [];
    const cloudspaceCu = new ExactSum();
    for (const [cloudspaceId, state] of facts.cloudspaces) {
      const m = byCloudspace.get(cloudspaceId)?.totals.value();
      const g = facts.gateways.get(cloudspaceId);
      const gatewayPiu = u.publicIpStates.includes(state) && (g?.externalNics ?? 0) > 0 ? 1 : 0;
      const machinesExternalBytes = m?.externalBytes ?? 0;
      const sums: LevelSums = {
        memMb: m?.memMb ?? 0, vcpus: m?.vcpus ?? 0, cuSum: m?.cuSum ?? 0, SU: m?.SU ?? 0, TU: m?.TU ?? 0,
        externalBytes: machinesExternalBytes + (g?.externalBytes ?? 0),
        VCU: m?.VCU ?? 0, MU: m?.MU ?? 0, WU: m?.WU ?? 0, PIU: (m?.PIU ?? 0) + gatewayPiu, gatewayPiu,
      };
      const figures = this.levelFigures(sums);
      cloudspaces.push({ cloudspaceId, sums, figures, machinesExternalBytes });
      cloudspaceCu.add(figures.CU);
      account.add(sums);
    }

    // the account; showback: its CU to its cloud spaces, theirs to their machines (equal shares when all are 0)
    const accountSums = account.value();
    const accountFigures = this.levelFigures(accountSums);
    accountFigures.cuAllocated = accountFigures.CU;
    const cuOfCloudspaces = cloudspaceCu.value();
    const allocated = new Map<number, number>();
    for (const c of cloudspaces) {
      c.figures.cuAllocated = accountFigures.CU * (cuOfCloudspaces > 0 ? c.figures.CU / cuOfCloudspaces : 1.0 / cloudspaces.length);
      c.figures.ownNicNu = this.nuOf(c.sums.externalBytes - c.machinesExternalBytes);
      allocated.set(c.cloudspaceId, c.figures.cuAllocated);
    }
    const machineCu = new Map<number, number>();
    for (const [id, c] of byCloudspace) machineCu.set(id, c.cu.value());
    for (const m of machines) {
      const c = byCloudspace.get(m.cloudspaceId)!;
      const cu = machineCu.get(m.cloudspaceId)!;
      m.figures.cuAllocated = (allocated.get(m.cloudspaceId) ?? 0) * (cu > 0 ? m.figures.CU / cu : 1.0 / c.n);
    }

    // period totals, the environment's hour, hourly lines
    this.totals(this.accounts, accountId, "account", accountId, null, null).add(accountFigures);
    for (const c of cloudspaces) this.totals(this.cloudspaces, `${accountId}:${c.cloudspaceId}`, "cloudspace", accountId, c.cloudspaceId, null).add(c.figures);
    for (const m of machines) {
      this.totals(this.machines, `${accountId}:${m.cloudspaceId}:${m.machineId}`, "machine", accountId, m.cloudspaceId, m.machineId).add(m.figures);
    }
    let environment = this.environmentHours.get(hourEpoch);
    if (environment === undefined) this.environmentHours.set(hourEpoch, (environment = { accounts: 0, totals: new LevelTotals() }));
    environment.accounts++;
    environment.totals.add(accountSums);
    if (this.onHour !== undefined) {
      const line = (level: EngineLevel, cloudspaceId: number | null, machineId: number | null, figures: Figures): EngineLine =>
        ({ level, accountId, cloudspaceId, machineId, hourEpoch, sampleHours: 1, figures });
      this.hourLines.push(line("account", null, null, accountFigures));
      for (const c of cloudspaces) this.hourLines.push(line("cloudspace", c.cloudspaceId, null, c.figures));
      for (const m of machines) this.hourLines.push(line("machine", m.cloudspaceId, m.machineId, m.figures));
    }
  }

  private totals<K>(map: Map<K, PeriodTotals>, key: K, level: EngineLevel, accountId: number, cloudspaceId: number | null, machineId: number | null): PeriodTotals {
    let t = map.get(key);
    if (t === undefined) map.set(key, (t = new PeriodTotals(level, accountId, cloudspaceId, machineId)));
    return t;
  }

  private environmentFigures(hour: { totals: LevelTotals }): Figures {
    const f = this.levelFigures(hour.totals.value());
    f.cuAllocated = f.CU;
    return f;
  }

  /** Emits the current hour's lines (the environment's first). */
  private flushHour(): void {
    if (this.currentHour === null || this.onHour === undefined) return;
    const hour = this.environmentHours.get(this.currentHour)!;
    const lines = this.hourLines;
    lines.push({
      level: "environment", accountId: null, cloudspaceId: null, machineId: null, hourEpoch: this.currentHour, sampleHours: 1,
      figures: this.environmentFigures(hour),
    });
    lines.sort(compareLines);
    this.hourLines = [];
    this.onHour(lines);
  }

  /** Adds the account-hours another engine (same units and rule) took, exactly. */
  merge(other: BillingEngine): void {
    const mergeInto = <K>(to: Map<K, PeriodTotals>, from: Map<K, PeriodTotals>) => {
      for (const [k, t] of from) {
        const mine = to.get(k);
        if (mine === undefined) to.set(k, t);
        else mine.merge(t);
      }
    };
    mergeInto(this.machines, other.machines);
    mergeInto(this.cloudspaces, other.cloudspaces);
    mergeInto(this.accounts, other.accounts);
    for (const [hour, h] of other.environmentHours) {
      const mine = this.environmentHours.get(hour);
      if (mine === undefined) this.environmentHours.set(hour, h);
      else {
        mine.accounts += h.accounts;
        mine.totals.merge(h.totals);
      }
    }
  }

  /**
   * Ends the period: emits the last hour's lines (with `onHour`) and returns the period lines
   * in report order: the environment (when the period has an hour), then per account the
   * account, each cloud space followed by its machines.
   */
  finish(): EngineLine[] {
    this.flushHour();
    this.currentHour = null;
    const lines = [...this.accounts.values(), ...this.cloudspaces.values(), ...this.machines.values()].map((t) => t.line());
    if (this.environmentHours.size > 0) {
      const environment = new PeriodTotals("environment", null, null, null);
      for (const hour of this.environmentHours.values()) environment.add(this.environmentFigures(hour));
      lines.push(environment.line());
    }
    return lines.sort(compareLines);
  }
}
