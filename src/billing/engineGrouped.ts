import type { AccountHourFacts } from "../load/machineFacts.js";
import type { VmFacts } from "../load/vmFacts.js";
import {
  addSeenData,
  CU,
  CU_ALLOCATED,
  NU,
  OWN_NIC_NU,
  T_BYTES,
  T_MEM,
  type EngineSums,
  type SeenData,
} from "./engineSums.js";

/** The totals of an hour (of an account, or of the environment): its billed VMs' memory and vCPUs, its VMs' and gateways' external bytes, its gateways' public IPs. */
export interface HourTotals {
  hourEpoch: number;
  memMb: number;
  vcpus: number;
  bytes: number;
  gatewayPiu: number;
}

/** The external bytes of an entity over a part of the period (see {@link GroupedInput.entityBytes}). */
export interface EntityBytes {
  part: number;
  accountId: number;
  cloudspaceId: number | null;
  machineId: number | null;
  bytes: number;
  /** Of a cloud space: the part of `bytes` that is its gateways'. */
  gatewayBytes?: number;
}

/**
 * The grouped roads' way into a {@link BillingEngine} (`groupedFacts.ts`): VM-hours counted per
 * configuration, hours' totals, account-hours that stand for many, bytes summed per entity; with
 * them, the same figures as the engine's `add` of every account-hour, to the bit.
 */
export class GroupedInput {
  private readonly scratch: Float64Array;

  constructor(
    private readonly sums: EngineSums,
    /** Adds one account-hour (the engine's `add`). */
    private readonly add: (facts: AccountHourFacts) => void,
    /** The engine gives hourly lines. */
    private readonly hourly: boolean,
    /** The engine sums the environment alone. */
    private readonly environmentOnly: boolean,
  ) {
    this.scratch = new Float64Array(sums.F);
  }

  /**
   * Adds an account-hour that stands for `weight` account-hours of the same facts but their
   * bytes (grouped input of the levels below the environment): its figures count `weight`
   * times, exactly. Its bytes must be 0 (add them with {@link entityBytes}); the environment's
   * sums and what data quality reads are not kept (give them with {@link hourTotals},
   * {@link vmHours} and {@link seen}).
   */
  weighted(facts: AccountHourFacts, weight: number): void {
    const sums = this.sums;
    if (this.hourly || this.environmentOnly)
      throw new Error("internal: weighted account-hours are for period lines below the environment");
    if (sums.fedHours) throw new Error("internal: weighted account-hours after account-hours added one by one");
    sums.weight = weight;
    sums.weighted = true;
    try {
      this.add(facts);
    } finally {
      sums.weight = 1;
      sums.weighted = false;
    }
  }

  /**
   * The exact Σ over a part of the period of the external bytes an entity's NU is made of (a
   * machine's own NICs; a cloud space's VMs' and gateways', and its gateways' apart; an
   * account's), when NU is those bytes scaled by a power of two (each hour's NU then adds up to
   * the NU of the bytes' sum, exactly). The entity must have been added.
   */
  entityBytes({ part, accountId, cloudspaceId, machineId, bytes, gatewayBytes = 0 }: EntityBytes): void {
    const sums = this.sums;
    const account = sums.accountsOf(part).get(accountId);
    const cloudspace = cloudspaceId === null ? undefined : account?.cloudspaces.get(cloudspaceId);
    const e =
      cloudspaceId === null
        ? account?.entity
        : machineId === null
          ? cloudspace?.entity
          : cloudspace?.machines.get(machineId);
    if (e === undefined)
      throw new Error(`internal: bytes of an entity never added (${part}/${accountId}/${cloudspaceId}/${machineId})`);
    if (e.rank === 3) sums.period.add(e.base + OWN_NIC_NU, sums.nuOf(bytes));
    else {
      sums.period.add(e.base + NU, sums.nuOf(bytes));
      if (e.rank === 2) sums.period.add(e.base + OWN_NIC_NU, sums.nuOf(gatewayBytes));
    }
  }

  /**
   * Grouped input of the environment (beside weighted account-hours for the levels below it,
   * or alone in an engine of the environment alone): `count` VM-hours of one configuration (its
   * facts, but those summed per hour: see `CONFIGURATION_FACTS`), in the part of the period
   * `part`, each in a cloud space of its account-hour. Their summed units and Σ CU go into the
   * environment's period sums as `count` times each VM-hour's amount, exactly: with
   * {@link hourTotals} for the same hours, the same figures as `add` of every account-hour.
   */
  vmHours(part: number, configuration: VmFacts, count: number): void {
    const sums = this.sums;
    if (sums.fedHours) throw new Error("internal: grouped VM-hours after account-hours added one by one");
    sums.vmFigures(this.scratch, 0, configuration);
    const at = (sums.groupedTotals[part] ??= sums.environment.alloc(sums.L));
    sums.addVmTotals(sums.environment, at, this.scratch, 0, count);
  }

  /**
   * An hour of the environment with `accounts` account-hours, the Σ of its billed VMs' memory
   * and vCPUs, the Σ of its VMs' and gateways' external bytes and its gateways' public IPs
   * (cloud spaces of each account-hour only). Each hour once.
   */
  hourTotals(h: HourTotals & { accounts: number }): void {
    const sums = this.sums;
    if (sums.fedHours || sums.environmentHours.has(h.hourEpoch))
      throw new Error(`internal: grouped hour ${h.hourEpoch} twice, or after account-hours added one by one`);
    const hour = {
      accounts: h.accounts,
      base: sums.environment.alloc(sums.L),
      counts: { vcpus: h.vcpus, gatewayPiu: h.gatewayPiu },
    };
    sums.environmentHours.set(h.hourEpoch, hour);
    sums.environment.add(hour.base + T_MEM, h.memMb);
    sums.environment.add(hour.base + T_BYTES, h.bytes);
  }

  /**
   * Grouped input of the accounts' lines (with the environment's grouped totals, and no level
   * below the accounts): one account-hour's totals (see {@link HourTotals}; cloud spaces of the
   * account-hour only), as `add` would total them. Each account-hour once; their VM-hours' own
   * amounts with {@link accountVmHours}.
   */
  accountHourTotals(h: HourTotals & { accountId: number }): void {
    const sums = this.sums;
    if (sums.fedHours || sums.weighted || this.environmentOnly)
      throw new Error("internal: accounts' grouped totals beside account-hours added one by one");
    sums.groupedAccounts = true;
    const entity = sums.accountOf(sums.partOf(h.hourEpoch), h.accountId).entity;
    const bank = sums.levels;
    bank.truncate(0);
    const at = bank.alloc(sums.L);
    bank.add(at + T_MEM, h.memMb);
    bank.add(at + T_BYTES, h.bytes);
    const f = this.scratch;
    sums.levelFigures(bank, at, { vcpus: h.vcpus, gatewayPiu: h.gatewayPiu }, f);
    f[CU_ALLOCATED] = f[CU]!;
    sums.addLevelSample(entity, f, bank, at);
  }

  /**
   * Grouped input of the accounts' lines (see {@link accountHourTotals}): `count` VM-hours of one
   * configuration of `accountId`'s, in the part of the period `part`, each in a cloud space of
   * its account-hour: their summed units and Σ CU go into the account's sums as `count` times
   * each VM-hour's amount, exactly.
   */
  accountVmHours(part: number, accountId: number, configuration: VmFacts, count: number): void {
    this.sums.vmFigures(this.scratch, 0, configuration);
    this.addAccountVmTotals(part, accountId, count);
  }

  /** {@link vmHours} and {@link accountVmHours} of the same VM-hours, their figures computed once. */
  accountAndEnvironmentVmHours(part: number, accountId: number, configuration: VmFacts, count: number): void {
    this.vmHours(part, configuration, count);
    this.addAccountVmTotals(part, accountId, count);
  }

  /** Adds the figures in `scratch` (of one VM-hour), `count` times, to `accountId`'s sums in `part`. */
  private addAccountVmTotals(part: number, accountId: number, count: number): void {
    const sums = this.sums;
    const entity = sums.accountOf(part, accountId).entity;
    let at = sums.accountGroupedTotals.get(entity);
    if (at === undefined) sums.accountGroupedTotals.set(entity, (at = sums.accountTotals.alloc(sums.L)));
    sums.addVmTotals(sums.accountTotals, at, this.scratch, 0, count);
  }

  /**
   * Grouped input of machines alone (a ranking of machines by their own units): `count` hours,
   * in the part of the period `part`, of VM `machineId` in cloud space `cloudspaceId` of
   * `accountId`, configured as `configuration` (its facts summed per hour at 0: its bytes go in
   * with {@link entityBytes}). Its figures count `count` times, exactly, as `add` of those hours
   * sums them; not its allocated CU (0: it needs the hour's other machines), nor the lines of its
   * cloud space and account, which are not made.
   */
  machineHours(
    part: number,
    ids: { accountId: number; cloudspaceId: number; machineId: number },
    configuration: VmFacts,
    count: number,
  ): void {
    const sums = this.sums;
    if (sums.fedHours || sums.weighted || this.hourly || this.environmentOnly)
      throw new Error("internal: grouped machine-hours are for period lines of machines alone");
    sums.vmFigures(this.scratch, 0, configuration);
    const { machines } = sums.cloudspaceOf(sums.accountOf(part, ids.accountId), ids.cloudspaceId);
    let machine = machines.get(ids.machineId);
    if (machine === undefined)
      machines.set(ids.machineId, (machine = sums.entity(3, ids.accountId, ids.cloudspaceId, ids.machineId, part)));
    sums.weight = count;
    try {
      sums.addSample(machine, this.scratch, 0);
    } finally {
      sums.weight = 1;
    }
  }

  /** What the account-hours of the grouped input hold for data quality. */
  seen(seen: SeenData): void {
    addSeenData(this.sums.seen, seen);
  }
}
