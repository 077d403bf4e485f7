import {
  DISK_FACTS,
  DISK_FIELDS_READ,
  NIC_FACTS,
  OWN_FACTS,
  perFact,
  VM_FACT_NAMES,
  type DiskRecord,
  type MachineRecordFields,
  type NicRecord,
  type VmFactColumns,
  type VmFactName,
  type VmFacts,
} from "./vmFacts.js";
import { CONFIGURED_IOPS_FIELDS } from "../capnp/layout.js";
import { DISK_MEASURES, type RecordVisitor } from "../capnp/visitRecords.js";
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
export const counted = (value: number | null): number => (value === null || isImpossible(value) ? 0 : value);

/**
 * Writes a machine's own facts (`OWN_FACTS`, the fields of the machine record) from `fields`
 * into the facts' columns at `m`, a measure as billing counts it; written out fact by fact
 * (see `perFact`): it runs once per machine record.
 */
const ownFactsInto: (facts: VmFactColumns, m: number, fields: MachineValues, count: typeof counted) => void = perFact(
  ["facts", "m", "fields", "count"],
  OWN_FACTS.map((f) => f.name),
  (name, k) =>
    `facts.${name}[m] = ${OWN_FACTS[k]!.text ? `fields.${OWN_FACTS[k]!.field}` : `count(fields.${OWN_FACTS[k]!.field})`};`,
);

/** Copies a record's sums (`sums` from `at` on: see `SUMS`) into the facts' columns at `m`, written out fact by fact. */
const sumsInto: (facts: VmFactColumns, m: number, sums: SumBank, at: number) => void = perFact(
  ["facts", "m", "sums", "at"],
  [...DISK_FACTS, ...NIC_FACTS].map((f) => f.name),
  (name, k) => `facts.${name}[m] = sums.value(at + ${k});`,
);

/** A machine record's fields as the builder takes them: a database's NULL (an impossible value) counts as 0. */
export type MachineValues = {
  readonly [K in keyof MachineRecordFields]: MachineRecordFields[K] extends number ? number | null : string;
};

/** The fields of a gateway known by its NICs alone (a database's billing rows hold no gateway record). */
const NO_FIELDS: MachineValues = { vcpus: 0, cpuMinutes: 0, mem: 0, imageName: "", status: "" };

// The sums kept per machine record (index `SUMS * record + k`): its disks' facts (`DISK_FACTS`), then its NICs' (`NIC_FACTS`).
const NICS_AT = DISK_FACTS.length;
const SUMS = NICS_AT + NIC_FACTS.length;
/** Where a gateway's external NICs and bytes are among its sums (the NIC facts a cloud space's gateways are billed by). */
const GATEWAY_NICS = NICS_AT + NIC_FACTS.findIndex((f) => f.name === "externalNics");
const GATEWAY_BYTES = NICS_AT + NIC_FACTS.findIndex((f) => f.name === "externalBytes");
if (GATEWAY_NICS < NICS_AT || GATEWAY_BYTES < NICS_AT)
  throw new Error("internal: externalNics and externalBytes are sums over NICs (VM_FACTS)");

/**
 * Adds each fact's amount of one record (a disk, or a NIC) to sums `at + offset + k` of `bank`:
 * written out fact by fact (see `perFact`), as it runs once per disk and per NIC.
 */
function amountsAdder<R>(
  facts: readonly { amount: (record: R) => number }[],
  offset: number,
): (bank: SumBank, at: number, record: R) => void {
  const body = facts.map((_, k) => `bank.add(at + ${offset + k}, amounts[${k}](record));`).join("\n");
  return new Function("amounts", `return function (bank, at, record) {\n${body}\n};`)(facts.map((f) => f.amount));
}
const addDisk = amountsAdder(DISK_FACTS, 0);
const addNic = amountsAdder(NIC_FACTS, NICS_AT);

/** A disk of no value: every field 0 (a scratch record to fill). */
const emptyDisk = (): DiskRecord =>
  ({
    size: 0,
    iopsRead: 0,
    iopsWrite: 0,
    iopsReadMax: 0,
    iopsWriteMax: 0,
    ...Object.fromEntries(CONFIGURED_IOPS_FIELDS.map((name) => [name, 0])),
  }) as DiskRecord;

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
  /**
   * The sums of each record (`SUMS` from `SUMS * r`), and after the last record's those of the
   * NICs and disks visited since (the next record's: `machine` takes them where they are).
   */
  private readonly sums = new SumBank(1024);
  private readonly states = new Map<number, string>();
  private readonly isGateway: boolean[] = [];
  /** The disk or NIC being added, rewritten for each (its fields counted: see `counted`). */
  readonly diskRecord: DiskRecord = emptyDisk();
  private readonly nicRecord: NicRecord = { external: false, tx: 0, rx: 0 };
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
  /** The machines among the records (not gateways), whose facts are written in `facts` at `0 .. machines - 1`. */
  private machines = 0;

  /** `externalNicType`: the NIC type whose traffic and public IPs are billed (units). */
  constructor(private readonly externalNicType: string) {
    this.sums.alloc(SUMS);
  }

  /** Starts an account-hour (the previous one's facts are overwritten). */
  begin(accountId: number, hourEpoch: number): void {
    this.facts.accountId = accountId;
    this.facts.hourEpoch = hourEpoch;
    this.facts.emptyCloudspaceRows = 0;
    this.states.clear();
    this.sums.truncate(0);
    this.sums.alloc(SUMS);
    this.records = 0;
    this.machines = 0;
    this.byKey.clear();
  }

  cloudSpace(cloudspaceId: number, state: string): void {
    if (cloudspaceId === 0 && state === "") this.facts.emptyCloudspaceRows++;
    const seen = this.states.get(cloudspaceId);
    if (seen === undefined || state > seen) this.states.set(cloudspaceId, state);
  }

  /** The NIC record of these values, counted. */
  private nicOfValues(type: string, tx: number | null, rx: number | null): NicRecord {
    const nic = this.nicRecord;
    nic.external = type === this.externalNicType;
    nic.tx = counted(tx);
    nic.rx = counted(rx);
    return nic;
  }

  /** Visiting order: a NIC of the machine visited next. */
  nic(type: string, tx: number | null, rx: number | null): void {
    addNic(this.sums, SUMS * this.records, this.nicOfValues(type, tx, rx));
  }

  /** Visiting order: the disk in `diskRecord` is of the machine visited next. */
  disk(): void {
    addDisk(this.sums, SUMS * this.records, this.diskRecord);
  }

  /** Forgets the NICs and disks gathered since the last machine (they belong to none). */
  dropPending(): void {
    for (let k = SUMS * this.records; k < SUMS * (this.records + 1); k++) this.sums.set(k, 0);
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
    this.isGateway[r] = gateway;
    if (!gateway) {
      const f = this.facts;
      const m = this.machines++;
      f.cloudspaceId[m] = cloudspaceId;
      f.machineId[m] = machineId;
      f.type[m] = type;
      ownFactsInto(f, m, fields, counted);
    }
    this.sums.alloc(SUMS); // the next record's, empty
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

  /** By key: the disk in `diskRecord` is of (cloud space, machine id): of its machine, else of its gateway. */
  diskOf(cloudspaceId: number, machineId: number): void {
    let r = this.recordOf(cloudspaceId, machineId, false);
    if (r < 0) r = this.recordOf(cloudspaceId, machineId, true);
    if (r < 0) return;
    addDisk(this.sums, SUMS * r, this.diskRecord);
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
    if (r < 0) return;
    addNic(this.sums, SUMS * r, this.nicOfValues(type, tx, rx));
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

  /**
   * The records of each key when two records of the hour share one (see `sharesKeys`): per
   * record, the records whose disks it has (same cloud space and id) and whose NICs (same
   * cloud space, id, and gateway or not).
   */
  private sharedKeys(): { disks: number[][]; nics: number[][] } | undefined {
    if (!this.sharesKeys()) return undefined;
    const diskKeys = new Map<string, number[]>();
    const nicKeys = new Map<string, number[]>();
    const disks: number[][] = [];
    const nics: number[][] = [];
    for (let r = 0; r < this.records; r++) {
      const disk = `${this.recordCloudspace[r]}/${this.recordId[r]}`;
      const nic = keyOf(this.recordCloudspace[r]!, this.recordId[r]!, this.isGateway[r]!);
      if (!diskKeys.has(disk)) diskKeys.set(disk, []);
      if (!nicKeys.has(nic)) nicKeys.set(nic, []);
      diskKeys.get(disk)!.push(r);
      nicKeys.get(nic)!.push(r);
      disks[r] = diskKeys.get(disk)!;
      nics[r] = nicKeys.get(nic)!;
    }
    return { disks, nics };
  }

  /** The exact Σ of sum `k` of the records of `group`. */
  private total(group: readonly number[], k: number): number {
    if (group.length === 1) return this.sums.value(SUMS * group[0]! + k);
    const bank = new SumBank(1);
    bank.alloc(1);
    for (const r of group) bank.addSum(0, this.sums, SUMS * r + k);
    return bank.value(0);
  }

  /** Adds gateway record `r`'s external NICs and bytes (its key's, `nicGroup`, when shared) to its cloud space's. */
  private addGateway(r: number, nicGroup: readonly number[] | undefined): void {
    const gateways = this.facts.gateways;
    const nics = nicGroup === undefined ? this.sums.value(SUMS * r + GATEWAY_NICS) : this.total(nicGroup, GATEWAY_NICS);
    const bytes =
      nicGroup === undefined ? this.sums.value(SUMS * r + GATEWAY_BYTES) : this.total(nicGroup, GATEWAY_BYTES);
    const cloudspaceId = this.recordCloudspace[r]!;
    const seen = gateways.get(cloudspaceId);
    if (seen === undefined) gateways.set(cloudspaceId, { externalNics: nics, externalBytes: bytes });
    else {
      // Σ over the cloud space's gateways of each one's total
      const bank = new SumBank(1);
      bank.alloc(1);
      bank.add(0, seen.externalBytes);
      bank.add(0, bytes);
      seen.externalNics += nics;
      seen.externalBytes = bank.value(0);
    }
  }

  /** The account-hour's facts. */
  finish(): AccountHourFacts {
    const f = this.facts;
    // records sharing a key share their totals: disks by (cloud space, id), NICs by (cloud space, id, gateway)
    const shared = this.sharedKeys();
    f.cloudspaceIds.length = 0;
    f.cloudspaceStates.length = 0;
    for (const [id, state] of this.states) {
      f.cloudspaceIds.push(id);
      f.cloudspaceStates.push(state);
    }
    f.gateways = new Map();
    let m = 0;
    for (let r = 0; r < this.records; r++) {
      const nicGroup = shared?.nics[r];
      if (this.isGateway[r]) {
        // a gateway key counts once for its cloud space
        if (nicGroup === undefined || nicGroup[0] === r) this.addGateway(r, nicGroup);
        continue;
      }
      if (shared === undefined) sumsInto(f, m, this.sums, SUMS * r);
      else {
        DISK_FACTS.forEach(({ name }, k) => ((f[name] as number[])[m] = this.total(shared.disks[r]!, k)));
        NIC_FACTS.forEach(({ name }, k) => ((f[name] as number[])[m] = this.total(nicGroup!, NICS_AT + k)));
      }
      m++;
    }
    f.machines = m;
    return f;
  }
}

/**
 * Sets the fields of a disk record that the facts read (`DISK_FIELDS_READ`; the others stay 0)
 * from a visited disk's `measures` (`DISK_MEASURES` order) and `configuredIops` (in
 * `CONFIGURED_IOPS_FIELDS` order; null: a disk of the older schema, all 0), counted: written out
 * field by field, as it runs once per disk.
 */
const setDiskRead: (
  disk: DiskRecord,
  measures: Float64Array,
  limits: Float64Array | null,
  count: typeof counted,
) => void = new Function(
  "disk",
  "measures",
  "limits",
  "count",
  DISK_FIELDS_READ.map((name) => {
    const m = (DISK_MEASURES as readonly string[]).indexOf(name);
    if (m >= 0) return `disk.${name} = count(measures[${m}]);`;
    const k = (CONFIGURED_IOPS_FIELDS as readonly string[]).indexOf(name);
    if (k < 0) throw new Error(`internal: the disk field ${name} is neither visited nor a configured limit`);
    return `disk.${name} = limits === null ? 0 : count(limits[${k}]);`;
  }).join("\n"),
) as (disk: DiskRecord, measures: Float64Array, limits: Float64Array | null, count: typeof counted) => void;

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
    bytes: Float64Array,
  ): void {
    this.builder.nic(type, bytes[0]!, bytes[1]!);
  }

  disk(
    _cloudSpaceId: number,
    _machineId: number,
    _index: number,
    _id: number,
    measures: Float64Array,
    configuredIops: Float64Array | null,
  ): void {
    setDiskRead(this.builder.diskRecord, measures, configuredIops, counted);
    this.builder.disk();
  }

  machine(
    cloudSpaceId: number,
    id: number,
    type: string,
    vcpus: number,
    measures: Float64Array,
    imageName: string,
    status: string,
  ): void {
    const f = this.fields;
    f.vcpus = vcpus;
    f.cpuMinutes = measures[0]!;
    f.mem = measures[1]!;
    f.imageName = imageName;
    f.status = status;
    this.builder.machine(cloudSpaceId, id, type, f);
  }

  cloudSpace(cloudSpaceId: number, _accountId: number, state: string): void {
    this.builder.cloudSpace(cloudSpaceId, state);
  }
}
