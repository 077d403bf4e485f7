import type { AccountHourFacts } from "../load/machineFacts.js";
import { CONFIGURATION_FACTS, perFact, type VmFactColumns } from "../load/vmFacts.js";
import { OWN_NIC_NU } from "./engineSums.js";

/** The configuration facts of the machines kept, fact by fact (`CONFIGURATION_FACTS`: all but those summed per hour), by slot. */
type ConfigurationColumns = Record<string, unknown[]>;

/** True when record `i` of `facts` has the configuration facts of slot `s` of `kept`: written out fact by fact (see `perFact`). */
const sameConfiguration: (facts: VmFactColumns, i: number, kept: ConfigurationColumns, s: number) => boolean = perFact(
  ["facts", "i", "kept", "s"],
  CONFIGURATION_FACTS,
  (name) => `if (facts.${name}[i] !== kept.${name}[s]) return false;`,
  "return true;",
);

/** Keeps record `i`'s configuration facts into slot `s` of `kept`, written out fact by fact. */
const keepConfiguration: (facts: VmFactColumns, i: number, kept: ConfigurationColumns, s: number) => void = perFact(
  ["facts", "i", "kept", "s"],
  CONFIGURATION_FACTS,
  (name) => `kept.${name}[s] = facts.${name}[i];`,
);

/**
 * The VM configurations of an account's machines, each machine's last one the engine computed,
 * with what the per-VM formulas made of it: its figures (`F` of them, but the NU of its own
 * NICs, which is of its bytes) and the memory and vCPUs it counts in its levels' totals (0 when
 * its status is not billable). A machine whose configuration facts are those of its last hour
 * (most machine-hours: memory, vCPUs, disks, status and image change seldom) takes its figures
 * from here instead of computing them again; the facts summed per hour are not configuration
 * (`CONFIGURATION_FACTS`), and the formulas read no other (`VmHour`), so the figures are the
 * same to the bit. A machine is found first after the VM it followed the hour before (the same
 * machines come in the same order hour after hour), else by its cloud space and id.
 */
export class VmConfigurations {
  private slots = 0;
  private readonly cloudspaceId: number[] = [];
  private readonly machineId: number[] = [];
  private readonly facts: ConfigurationColumns = Object.fromEntries(CONFIGURATION_FACTS.map((n) => [n, []]));
  /** Whether the slot holds a configuration computed (a slot is made before its first). */
  private readonly computed: boolean[] = [];
  /** Each slot's figures (`F` of them), and the memory and vCPUs it counts (two). */
  private figures: Float64Array;
  private compute = new Float64Array(0);
  /** Cloud space id → machine id → slot. */
  private readonly bySpace = new Map<number, Map<number, number>>();
  /** The slot of the VM that followed each slot's in the last account-hour (-1: none), and of its first VM. */
  private next = new Int32Array(64).fill(-1);
  private first = -1;
  /** The slot of the account-hour's VM before (-1 at its first). */
  private previous = -1;

  constructor(private readonly F: number) {
    this.figures = new Float64Array(F * 64);
  }

  /** Starts an account-hour of the account: its VMs come next, in their order (`slotOf`). */
  begin(): void {
    this.previous = -1;
  }

  /**
   * The slot of record `i`'s machine, the account-hour's next VM (made, with no configuration
   * yet, when the machine is new): first looked for where the VM before it was followed last
   * time, so a machine that comes or goes sends only its neighbour to the maps.
   */
  slotOf(facts: AccountHourFacts, i: number): number {
    const cloudspaceId = facts.cloudspaceId[i]!;
    const machineId = facts.machineId[i]!;
    const previous = this.previous;
    let s = previous < 0 ? this.first : this.next[previous]!;
    if (s < 0 || this.machineId[s] !== machineId || this.cloudspaceId[s] !== cloudspaceId) {
      let machines = this.bySpace.get(cloudspaceId);
      if (machines === undefined) this.bySpace.set(cloudspaceId, (machines = new Map()));
      s = machines.get(machineId) ?? -1;
      if (s < 0) machines.set(machineId, (s = this.made(cloudspaceId, machineId)));
      if (previous < 0) this.first = s;
      else this.next[previous] = s;
    }
    this.previous = s;
    return s;
  }

  /** A new slot of a machine, with no configuration yet. */
  private made(cloudspaceId: number, machineId: number): number {
    const s = this.slots++;
    this.cloudspaceId[s] = cloudspaceId;
    this.machineId[s] = machineId;
    this.computed[s] = false;
    const grown = <T extends Float64Array | Int32Array>(a: T, size: number, fill: number): T => {
      if (a.length >= size) return a;
      const b = new (a.constructor as new (n: number) => T)(size * 2);
      b.fill(fill);
      b.set(a);
      return b;
    };
    this.figures = grown(this.figures, this.F * this.slots, 0);
    this.compute = grown(this.compute, 2 * this.slots, 0);
    this.next = grown(this.next, this.slots, -1);
    return s;
  }

  /**
   * Copies slot `s`'s figures into `out[at .. at + F)` and returns true when record `i` of
   * `facts` is configured as the slot is; `out`'s NU of the VM's own NICs is then left to the caller.
   */
  figuresOf(facts: AccountHourFacts, i: number, s: number, out: Float64Array, at: number): boolean {
    if (!this.computed[s] || !sameConfiguration(facts, i, this.facts, s)) return false;
    const { F, figures } = this;
    // a loop: a subarray to copy from costs an object per VM-hour
    for (let k = 0, from = F * s; k < F; k++) out[at + k] = figures[from + k]!;
    return true;
  }

  /** The memory (MB) and vCPUs slot `s`'s VM counts in its levels' totals. */
  memMb(s: number): number {
    return this.compute[2 * s]!;
  }
  vcpus(s: number): number {
    return this.compute[2 * s + 1]!;
  }

  /** Keeps record `i`'s configuration into slot `s`: its figures `f[at .. at + F)`, memory and vCPUs counted. */
  keep(facts: AccountHourFacts, i: number, s: number, f: Float64Array, at: number, memMb: number, vcpus: number): void {
    keepConfiguration(facts, i, this.facts, s);
    this.computed[s] = true;
    const F = this.F;
    this.figures.set(f.subarray(at, at + F), F * s);
    this.figures[F * s + OWN_NIC_NU] = 0;
    this.compute[2 * s] = memMb;
    this.compute[2 * s + 1] = vcpus;
  }
}
