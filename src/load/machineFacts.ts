import {
  OWN_FACTS,
  perFact,
  VM_FACT_NAMES,
  type MachineRecordFields,
  type VmFactColumns,
  type VmFactName,
  type VmFacts,
} from "./vmFacts.js";
import { CONFIGURED_IOPS_FIELDS } from "../capnp/layout.js";
import type { RecordVisitor } from "../capnp/visitRecords.js";
import { GATEWAY_TYPE } from "./columnBatch.js";
import { isImpossible } from "./impossibleValues.js";
import { SumBank } from "../base/exactSum.js";

/**
 * The NIC type whose NICs the facts stored at ingest count (`machine_facts.external_nics`,
 * `external_bytes`): the published one, `DEFAULT_UNITS.externalNicType`. Billing with another
 * type reads a warehouse's raw rows instead (see `warehouseFacts`).
 */
export const FACTS_EXTERNAL_NIC_TYPE = "external";

/**
 * What billing needs of one account-hour, column by column: its cloud spaces' states, and per
 * machine record (every type but gateways) the machine's own fields with the totals of the
 * disks and external NICs of its (cloud space, machine id); per cloud space, its gateways'
 * external NICs. Impossible values (docs/warehouse.md: NaN, ±Infinity, negative; NULL in a database)
 * count as 0. The arrays are the builder's: valid until its next `begin`.
 */
export interface AccountHourFacts extends VmFactColumns {
  accountId: number;
  hourEpoch: number;
  /** Cloud spaces (each once) and their state (the greatest, should one appear twice). */
  cloudspaceIds: readonly number[];
  cloudspaceStates: readonly string[];
  /** Cloud-space rows with id 0 and state "": empty records of a damaged file. */
  emptyCloudspaceRows: number;
  /**
   * Machine records: `machines` of them, in the arrays below and in those of their facts
   * (`VM_FACTS`; the disks' are those of (cloud space, machine id), the NICs' those of (cloud
   * space, machine id, not a gateway)).
   */
  machines: number;
  cloudspaceId: readonly number[];
  machineId: readonly number[];
  type: readonly string[];
  /** Cloud space id → its gateways' external NICs and Σ (tx + rx) (cloud spaces with gateway NICs only). */
  gateways: ReadonlyMap<number, { externalNics: number; externalBytes: number }>;
}

/** A measure as billing counts it: an impossible value (or NULL, its form in a database) is 0. */
const counted = (value: number | null): number => (value === null || isImpossible(value) ? 0 : value);

/**
 * Keeps record `r`'s own facts (`OWN_FACTS`, the fields of the machine record) from `fields`
 * into `own[k][r]`, a measure as billing counts it; written out fact by fact (see `perFact`):
 * it runs once per machine record.
 */
const keepOwnFacts: (own: (string | number)[][], r: number, fields: MachineValues, count: typeof counted) => void =
  perFact(
    ["own", "r", "fields", "count"],
    OWN_FACTS.map((f) => f.name),
    (_name, k) =>
      `own[${k}][r] = ${OWN_FACTS[k]!.text ? `fields.${OWN_FACTS[k]!.field}` : `count(fields.${OWN_FACTS[k]!.field})`};`,
  );

/** Copies record `r`'s own facts (`own[k][r]`) into the facts' columns at `m`, written out fact by fact. */
const ownFactsInto: (own: (string | number)[][], r: number, facts: VmFactColumns, m: number) => void = perFact(
  ["own", "r", "facts", "m"],
  OWN_FACTS.map((f) => f.name),
  (name, k) => `facts.${name}[m] = own[${k}][r];`,
);

/** A machine record's fields as the builder takes them: a database's NULL (an impossible value) counts as 0. */
export type MachineValues = {
  readonly [K in keyof MachineRecordFields]: MachineRecordFields[K] extends number ? number | null : string;
};

/** The fields of a gateway known by its NICs alone (a database's billing rows hold no gateway record). */
const NO_FIELDS: MachineValues = { vcpus: 0, cpuMinutes: 0, mem: 0, imageName: "", status: "" };

/**
 * The IOPS limit of one disk (docs/formulas.md, TU): its configured total IOPS when set (> 0), else
 * read + write IOPS when they are, else 0.
 */
export function diskIopsLimit(total: number | null, read: number | null, write: number | null): number {
  const t = counted(total);
  if (t > 0) return t;
  const rw = counted(read) + counted(write);
  return rw > 0 ? rw : 0;
}

// The sums kept per machine record (index `SUMS * record + k`).
const SIZE = 0;
const IOPS = 1;
const BYTES = 2;
const SUMS = 3;

/** Exact key of (cloud space, machine id, gateway or not), for grouping records. */
const keyOf = (cloudspaceId: number, machineId: number, gateway: boolean): string =>
  `${cloudspaceId}/${machineId}/${gateway ? 1 : 0}`;

/**
 * Builds the facts of one account-hour, the one definition of what billing reads of the
 * records. Two ways in, one result:
 *
 * - in visiting order (files, `FactsVisitor`): a machine's NICs and disks, then the machine
 *   (`machine` takes the totals gathered since the last machine);
 * - by key (a database's rows): `machine` records first, then `diskOf`/`nicOf` add to the
 *   machines of their (cloud space, machine id); rows of no such machine are dropped.
 *
 * As the warehouse keys them, disks belong to (cloud space, machine id) whatever the
 * machine's type, NICs to (cloud space, machine id, gateway or not): should two records of an
 * hour share a key, each gets the key's totals.
 */
export class AccountHourFactsBuilder {
  private readonly sums = new SumBank(1024);
  private readonly pending = new SumBank(SUMS);
  private pendingNics = 0;
  private readonly states = new Map<number, string>();
  private readonly isGateway: boolean[] = [];
  private readonly nicCount: number[] = [];
  /** Cloud space → (machine id × 2 + 1 for a gateway) → record, built on the first look-up by key. */
  private readonly byKey = new Map<number, Map<number, number>>();
  private readonly groupCloudspaces = new Set<number>();
  private readonly facts = {
    accountId: 0,
    hourEpoch: 0,
    cloudspaceIds: [] as number[],
    cloudspaceStates: [] as string[],
    emptyCloudspaceRows: 0,
    machines: 0,
    cloudspaceId: [] as number[],
    machineId: [] as number[],
    type: [] as string[],
    ...(Object.fromEntries(VM_FACT_NAMES.map((n) => [n, []])) as unknown as { [K in VmFactName]: VmFacts[K][] }),
    gateways: new Map<number, { externalNics: number; externalBytes: number }>(),
  };
  /** Records (machines and gateways) of the hour; machines are those not `isGateway`. */
  private records = 0;
  private readonly recordCloudspace: number[] = [];
  private readonly recordId: number[] = [];
  private readonly recordType: string[] = [];
  /** The facts that are fields of the record (`OWN_FACTS`), by record: `own[k][r]`. */
  private readonly own: (string | number)[][] = OWN_FACTS.map(() => []);

  /** `externalNicType`: the NIC type whose traffic and public IPs are billed (units). */
  constructor(private readonly externalNicType: string) {
    this.pending.alloc(SUMS);
  }

  /** Starts an account-hour (the previous one's facts are overwritten). */
  begin(accountId: number, hourEpoch: number): void {
    this.facts.accountId = accountId;
    this.facts.hourEpoch = hourEpoch;
    this.facts.emptyCloudspaceRows = 0;
    this.states.clear();
    this.sums.truncate(0);
    this.records = 0;
    this.byKey.clear();
    this.dropPending();
  }

  cloudSpace(cloudspaceId: number, state: string): void {
    if (cloudspaceId === 0 && state === "") this.facts.emptyCloudspaceRows++;
    const seen = this.states.get(cloudspaceId);
    if (seen === undefined || state > seen) this.states.set(cloudspaceId, state);
  }

  /** Visiting order: a NIC of the machine visited next. */
  nic(type: string, tx: number | null, rx: number | null): void {
    if (type !== this.externalNicType) return;
    this.pendingNics++;
    this.pending.add(BYTES, counted(tx) + counted(rx));
  }

  /** Visiting order: a disk of the machine visited next. */
  disk(sizeGb: number | null, totalIops: number | null, readIops: number | null, writeIops: number | null): void {
    this.pending.add(SIZE, counted(sizeGb));
    this.pending.add(IOPS, diskIopsLimit(totalIops, readIops, writeIops));
  }

  /** Forgets the NICs and disks gathered since the last machine (they belong to none). */
  dropPending(): void {
    this.pending.truncate(0);
    this.pending.alloc(SUMS);
    this.pendingNics = 0;
  }

  /**
   * A machine record (a gateway when `type` is `routeros`) and its fields, with the NICs and
   * disks gathered since the last one.
   */
  machine(cloudspaceId: number, machineId: number, type: string, fields: MachineValues): void {
    const r = this.records++;
    const gateway = type === GATEWAY_TYPE;
    this.recordCloudspace[r] = cloudspaceId;
    this.recordId[r] = machineId;
    this.recordType[r] = type;
    keepOwnFacts(this.own, r, fields, counted);
    this.isGateway[r] = gateway;
    const at = this.sums.alloc(SUMS);
    for (let k = 0; k < SUMS; k++) this.sums.addSum(at + k, this.pending, k);
    this.nicCount[r] = this.pendingNics;
    this.dropPending();
  }

  /** By key: the record of (cloud space, machine id, gateway or not), or -1. */
  private recordOf(cloudspaceId: number, machineId: number, gateway: boolean): number {
    if (this.byKey.size === 0 && this.records > 0) {
      for (let r = 0; r < this.records; r++)
        this.keyRecord(this.recordCloudspace[r]!, this.recordId[r]!, this.isGateway[r]!, r);
    }
    return this.byKey.get(cloudspaceId)?.get(2 * machineId + (gateway ? 1 : 0)) ?? -1;
  }

  /** Records `r` as the record of its key, unless an earlier record has it. */
  private keyRecord(cloudspaceId: number, machineId: number, gateway: boolean, r: number): void {
    let ids = this.byKey.get(cloudspaceId);
    if (ids === undefined) this.byKey.set(cloudspaceId, (ids = new Map()));
    const id = 2 * machineId + (gateway ? 1 : 0);
    if (!ids.has(id)) ids.set(id, r);
  }

  /** By key: a disk of (cloud space, machine id): of its machine, else of its gateway. */
  diskOf(
    cloudspaceId: number,
    machineId: number,
    sizeGb: number | null,
    totalIops: number | null,
    readIops: number | null,
    writeIops: number | null,
  ): void {
    let r = this.recordOf(cloudspaceId, machineId, false);
    if (r < 0) r = this.recordOf(cloudspaceId, machineId, true);
    if (r < 0) return;
    this.sums.add(SUMS * r + SIZE, counted(sizeGb));
    this.sums.add(SUMS * r + IOPS, diskIopsLimit(totalIops, readIops, writeIops));
  }

  /** By key: a NIC of (cloud space, machine id, gateway or not). */
  nicOf(
    cloudspaceId: number,
    machineId: number,
    gateway: boolean,
    type: string,
    tx: number | null,
    rx: number | null,
  ): void {
    let r = this.recordOf(cloudspaceId, machineId, gateway);
    if (r < 0 && gateway) {
      // a gateway is known by its NICs (a database's billing rows hold no gateway record)
      r = this.records;
      this.machine(cloudspaceId, machineId, GATEWAY_TYPE, NO_FIELDS);
      this.keyRecord(cloudspaceId, machineId, true, r);
    }
    if (r < 0 || type !== this.externalNicType) return;
    this.nicCount[r]!++;
    this.sums.add(SUMS * r + BYTES, counted(tx) + counted(rx));
  }

  /**
   * True when two records of the hour share a (cloud space, machine id): never in the
   * platform's files, whose records come grouped by cloud space with ascending ids (checked
   * in one pass); otherwise checked exactly.
   */
  private sharesKeys(): boolean {
    const n = this.records;
    const cs = this.recordCloudspace;
    const id = this.recordId;
    const groups = this.groupCloudspaces;
    groups.clear();
    let ascending = true;
    for (let r = 0; r < n && ascending; r++) {
      if (r > 0 && cs[r] === cs[r - 1]) ascending = id[r]! > id[r - 1]!;
      else {
        ascending = !groups.has(cs[r]!);
        groups.add(cs[r]!);
      }
    }
    if (ascending) return false;
    const seen = new Set<string>();
    for (let r = 0; r < n; r++) {
      const k = `${cs[r]}/${id[r]}`;
      if (seen.has(k)) return true;
      seen.add(k);
    }
    return false;
  }

  /** The account-hour's facts. */
  finish(): AccountHourFacts {
    const f = this.facts;
    const n = this.records;
    const sums = this.sums;
    // records sharing a key share their totals: disks by (cloud space, id), NICs by (cloud space, id, gateway)
    const shared = this.sharesKeys();
    const diskKeys = new Map<string, number[]>();
    const nicKeys = new Map<string, number[]>();
    if (shared) {
      for (let r = 0; r < n; r++) {
        const disk = `${this.recordCloudspace[r]}/${this.recordId[r]}`;
        const nic = keyOf(this.recordCloudspace[r]!, this.recordId[r]!, this.isGateway[r]!);
        diskKeys.set(disk, [...(diskKeys.get(disk) ?? []), r]);
        nicKeys.set(nic, [...(nicKeys.get(nic) ?? []), r]);
      }
    }
    const total = (group: number[], k: number): number => {
      if (group.length === 1) return sums.value(SUMS * group[0]! + k);
      const bank = new SumBank(1);
      bank.alloc(1);
      for (const r of group) bank.addSum(0, sums, SUMS * r + k);
      return bank.value(0);
    };
    const nicsOf = (group: number[]): number => {
      let nics = 0;
      for (const g of group) nics += this.nicCount[g]!;
      return nics;
    };
    f.cloudspaceIds.length = 0;
    f.cloudspaceStates.length = 0;
    for (const [id, state] of this.states) {
      f.cloudspaceIds.push(id);
      f.cloudspaceStates.push(state);
    }
    f.gateways = new Map();
    let m = 0;
    for (let r = 0; r < n; r++) {
      const nicGroup = shared
        ? nicKeys.get(keyOf(this.recordCloudspace[r]!, this.recordId[r]!, this.isGateway[r]!))!
        : undefined;
      if (this.isGateway[r]) {
        if (nicGroup !== undefined && nicGroup[0] !== r) continue; // a gateway key counts once for its cloud space
        const nics = nicGroup === undefined ? this.nicCount[r]! : nicsOf(nicGroup);
        const bytes = nicGroup === undefined ? sums.value(SUMS * r + BYTES) : total(nicGroup, BYTES);
        const cloudspaceId = this.recordCloudspace[r]!;
        const seen = f.gateways.get(cloudspaceId);
        if (seen === undefined) f.gateways.set(cloudspaceId, { externalNics: nics, externalBytes: bytes });
        else {
          // Σ over the cloud space's gateways of each one's total
          const bank = new SumBank(1);
          bank.alloc(1);
          bank.add(0, seen.externalBytes);
          bank.add(0, bytes);
          seen.externalNics += nics;
          seen.externalBytes = bank.value(0);
        }
        continue;
      }
      f.cloudspaceId[m] = this.recordCloudspace[r]!;
      f.machineId[m] = this.recordId[r]!;
      f.type[m] = this.recordType[r]!;
      ownFactsInto(this.own, r, f, m);
      if (shared) {
        const diskGroup = diskKeys.get(`${this.recordCloudspace[r]}/${this.recordId[r]}`)!;
        f.sizeGb[m] = total(diskGroup, SIZE);
        f.iopsLimit[m] = total(diskGroup, IOPS);
        f.externalNics[m] = nicsOf(nicGroup!);
        f.externalBytes[m] = total(nicGroup!, BYTES);
      } else {
        f.sizeGb[m] = sums.value(SUMS * r + SIZE);
        f.iopsLimit[m] = sums.value(SUMS * r + IOPS);
        f.externalNics[m] = this.nicCount[r]!;
        f.externalBytes[m] = sums.value(SUMS * r + BYTES);
      }
      m++;
    }
    f.machines = m;
    return f;
  }
}

/** The indexes of the configured total, read and write IOPS limits in a disk's `configuredIops`. */
const TOTAL_IOPS = CONFIGURED_IOPS_FIELDS.indexOf("totalIopsSec");
const READ_IOPS = CONFIGURED_IOPS_FIELDS.indexOf("readIopsSec");
const WRITE_IOPS = CONFIGURED_IOPS_FIELDS.indexOf("writeIopsSec");

/**
 * Feeds the records a decoder visits (see `visitRecords.ts`) to an {@link AccountHourFactsBuilder}:
 * billing straight from the files' bytes, nothing else built.
 */
export class FactsVisitor implements RecordVisitor {
  /** The visited machine's fields, rewritten for each machine. */
  private readonly fields: MachineRecordFields = { vcpus: 0, cpuMinutes: 0, mem: 0, imageName: "", status: "" };

  constructor(readonly builder: AccountHourFactsBuilder) {}

  nic(
    _cloudSpaceId: number,
    _machineId: number,
    _machineType: string,
    _index: number,
    _id: number,
    type: string,
    tx: number,
    rx: number,
  ): void {
    this.builder.nic(type, tx, rx);
  }

  disk(
    _cloudSpaceId: number,
    _machineId: number,
    _index: number,
    _id: number,
    size: number,
    _iopsRead: number,
    _iopsWrite: number,
    _iopsReadMax: number,
    _iopsWriteMax: number,
    configuredIops: ArrayLike<number> | null,
  ): void {
    if (configuredIops === null) this.builder.disk(size, 0, 0, 0);
    else this.builder.disk(size, configuredIops[TOTAL_IOPS]!, configuredIops[READ_IOPS]!, configuredIops[WRITE_IOPS]!);
  }

  machine(
    cloudSpaceId: number,
    id: number,
    type: string,
    vcpus: number,
    cpuMinutes: number,
    mem: number,
    imageName: string,
    status: string,
  ): void {
    const f = this.fields;
    f.vcpus = vcpus;
    f.cpuMinutes = cpuMinutes;
    f.mem = mem;
    f.imageName = imageName;
    f.status = status;
    this.builder.machine(cloudSpaceId, id, type, f);
  }

  cloudSpace(cloudSpaceId: number, _accountId: number, state: string): void {
    this.builder.cloudSpace(cloudSpaceId, state);
  }
}
