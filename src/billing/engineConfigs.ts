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
 * same to the bit. A machine is found first at the place it had among the account-hour's
 * records the hour before (the same machines come in the same order hour after hour), else by
 * its cloud space and id.
 */
export class VmConfigurations {
  private slots = 0;
  private readonly cloudspaceId: number[] = [];
  private readonly machineId: number[] = [];
  private readonly facts: ConfigurationColumns = Object.fromEntries(CONFIGURATION_FACTS.map((n) => [n, []]));
  /** Whether the slot holds a configuration computed (a slot is made before its first). */
  private readonly computed: boolean[] = [];
  private figures: Float64Array;
  private compute = new Float64Array(0);
  /** Cloud space id → machine id → slot. */
  private readonly bySpace = new Map<number, Map<number, number>>();
  /** The slot of each record of the account's last account-hour. */
  private atRecord = new Int32Array(0);

  constructor(private readonly F: number) {
    this.figures = new Float64Array(F * 64);
  }

  /** The slot of record `i`'s machine (made, with no configuration yet, when the machine is new). */
  slotOf(facts: AccountHourFacts, i: number): number {
    const cloudspaceId = facts.cloudspaceId[i]!;
    const machineId = facts.machineId[i]!;
    if (i >= this.atRecord.length) {
      const more = new Int32Array(Math.max(16, 2 * (i + 1))).fill(-1);
      more.set(this.atRecord);
      this.atRecord = more;
    }
    let s = this.atRecord[i]!;
    if (s >= 0 && this.machineId[s] === machineId && this.cloudspaceId[s] === cloudspaceId) return s;
    let machines = this.bySpace.get(cloudspaceId);
    if (machines === undefined) this.bySpace.set(cloudspaceId, (machines = new Map()));
    s = machines.get(machineId) ?? -1;
    if (s < 0) {
      machines.set(machineId, (s = this.slots++));
      this.cloudspaceId[s] = cloudspaceId;
      this.machineId[s] = machineId;
      this.computed[s] = false;
      if (this.figures.length < this.F * this.slots) {
        const grown = new Float64Array(this.F * this.slots * 2);
        grown.set(this.figures);
        this.figures = grown;
      }
      if (this.compute.length < 2 * this.slots) {
        const grown = new Float64Array(this.slots * 4);
        grown.set(this.compute);
        this.compute = grown;
      }
    }
    this.atRecord[i] = s;
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
