import { CONFIGURED_IOPS_FIELDS } from "../capnp/layout.js";

/**
 * The facts billing reads of each VM record in an hour: the one list of them. The facts builder
 * (`machineFacts.ts`) makes them from files and from a database's rows, ingest stores them
 * (`machine_facts`, whose columns these are), billing reads them back row by row
 * (`billing/warehouseFacts.ts`) and grouped (`billing/groupedFacts.ts`), and the engine hands
 * each VM's to the unit formulas (`VmHour` of `billing/unitCatalog.ts`). A new fact is an entry
 * here, and nothing else:
 * - a field of the machine record: `from: { machine: "cpuMinutes" }` (the field the decoder
 *   visits, read from the same column of the `machines` table);
 * - a sum over the machine's disks: `from: overDisks(["size"], (disk) => disk.size)`, the fields
 *   of a disk it reads (`DISK_FIELDS`: read from those columns of the `disks` table) and the
 *   amount of one disk, which reads no other;
 * - a sum over its NICs: `from: { nics: (nic) => number }`, the amount of one NIC (`NicRecord`:
 *   whether it is of the external type, its bytes sent and received).
 * The facts builder sums them exactly, on every road; what the list cannot carry (a text summed
 * over disks, a number read from a text field, a formula reading a fact summed per hour) does
 * not type-check.
 *
 * `perHour`: summed per hour rather than grouped by (the grouped roads count VM-hours of each
 * configuration of the other facts and sum this one per hour and entity; a per-VM formula
 * cannot read it: `ConfigurationFacts`). The external bytes are NU's, a volume of each level.
 */
export const VM_FACTS = {
  /** The machine's status (the units file lists the billable ones). */
  status: { column: "status", kind: "str", from: { machine: "status" } },
  /** Its image (the Windows pattern of the units file reads it). */
  imageName: { column: "image_name", kind: "str", from: { machine: "imageName" } },
  /** Allocated memory, MB. */
  memMb: { column: "mem_mb", kind: "f64", from: { machine: "mem" } },
  /** Allocated virtual CPUs. */
  vcpus: { column: "vcpus", kind: "i32", from: { machine: "vcpus" } },
  /** Σ size of its disks, GB. */
  sizeGb: { column: "size_gb", kind: "f64", from: overDisks(["size"], (disk) => disk.size) },
  /** Σ of its disks' IOPS limits (docs/formulas.md, TU). */
  iopsLimit: {
    column: "iops_limit",
    kind: "f64",
    from: overDisks(["totalIopsSec", "readIopsSec", "writeIopsSec"], (disk) =>
      diskIopsLimit(disk.totalIopsSec, disk.readIopsSec, disk.writeIopsSec),
    ),
  },
  /** Its NICs of the external type (`warehouse_meta.facts_external_nic_type`). */
  externalNics: { column: "external_nics", kind: "i32", from: { nics: (nic) => (nic.external ? 1 : 0) } },
  /** Σ (tx + rx) of those NICs, as the files count them. */
  externalBytes: {
    column: "external_bytes",
    kind: "f64",
    from: { nics: (nic) => (nic.external ? nic.tx + nic.rx : 0) },
    perHour: true,
  },
} as const satisfies Record<string, VmFactDef>;

/** The fields of a machine record the decoder visits (`RecordVisitor.machine`), by name: what a fact `from: { machine }` names. */
export interface MachineRecordFields {
  vcpus: number;
  cpuMinutes: number;
  mem: number;
  imageName: string;
  status: string;
}

/** The `disks` columns of a disk's configured limits, by field of `CONFIGURED_IOPS_FIELDS` (each has one). */
const CONFIGURED_COLUMNS = {
  totalBytesSec: "cfg_total_bytes_sec",
  readBytesSec: "cfg_read_bytes_sec",
  writeBytesSec: "cfg_write_bytes_sec",
  totalIopsSec: "cfg_total_iops_sec",
  readIopsSec: "cfg_read_iops_sec",
  writeIopsSec: "cfg_write_iops_sec",
  totalBytesSecMax: "cfg_total_bytes_sec_max",
  readBytesSecMax: "cfg_read_bytes_sec_max",
  writeBytesSecMax: "cfg_write_bytes_sec_max",
  totalIopsSecMax: "cfg_total_iops_sec_max",
  readIopsSecMax: "cfg_read_iops_sec_max",
  writeIopsSecMax: "cfg_write_iops_sec_max",
  sizeIopsSec: "cfg_size_iops_sec",
} as const satisfies Record<(typeof CONFIGURED_IOPS_FIELDS)[number], string>;

/**
 * The fields of a disk record a fact may sum (`from: { disks }`), each with the column of the
 * `disks` table it is read from: the decoder's measures, and its configured limits (0 for a
 * disk of the older schema, which has none).
 */
export const DISK_FIELDS = {
  size: "size_gb",
  iopsRead: "iops_read",
  iopsWrite: "iops_write",
  iopsReadMax: "iops_read_max",
  iopsWriteMax: "iops_write_max",
  ...CONFIGURED_COLUMNS,
} as const;

/** A disk record's fields as a fact's amount reads them (impossible values counted as 0). */
export type DiskRecord = { -readonly [K in keyof typeof DISK_FIELDS]: number };

/** A NIC record's fields as a fact's amount reads them (impossible values counted as 0). */
export interface NicRecord {
  /** Of the NIC type whose traffic and public IPs are billed (`units.externalNicType`). */
  external: boolean;
  tx: number;
  rx: number;
}

/**
 * The IOPS limit of one disk (docs/formulas.md, TU): its configured total IOPS when set (> 0), else
 * read + write IOPS when they are, else 0 (each counted: impossible values are 0).
 */
export function diskIopsLimit(total: number, read: number, write: number): number {
  if (total > 0) return total;
  const rw = read + write;
  return rw > 0 ? rw : 0;
}

/** A sum over a machine's disks: the fields of a disk it reads, and the amount of one disk. */
export interface DiskSum {
  fields: readonly (keyof DiskRecord)[];
  amount: (disk: DiskRecord) => number;
}

/**
 * A fact summed over a machine's disks (`from` of `VM_FACTS`): `amount` of each disk, which may
 * read the `fields` named and no other (the rows' road reads only their columns).
 */
export function overDisks<K extends keyof DiskRecord>(
  fields: readonly K[],
  amount: (disk: Pick<DiskRecord, K>) => number,
): { disks: DiskSum } {
  return { disks: { fields, amount } };
}

type FieldsOf<T, V> = { [K in keyof T]: T[K] extends V ? K : never }[keyof T];

/**
 * One per-VM fact: its `machine_facts` column, how it is staged (`columnBatch.ts`), where it
 * comes from. A text is a field of the machine record; a number is one too, or a sum over the
 * machine's disks or NICs, and may be summed per hour.
 */
export type VmFactDef =
  | { column: string; kind: "str"; from: { machine: FieldsOf<MachineRecordFields, string> } }
  | {
      column: string;
      kind: "f64" | "i32";
      from:
        { machine: FieldsOf<MachineRecordFields, number> } | { disks: DiskSum } | { nics: (nic: NicRecord) => number };
      perHour?: true;
    };

/** The name of a per-VM fact. */
export type VmFactName = keyof typeof VM_FACTS;

/** The facts of one VM record in one hour (impossible values counted as 0). */
export type VmFacts = { [K in VmFactName]: (typeof VM_FACTS)[K]["kind"] extends "str" ? string : number };

/** The facts of the VM records of an account-hour, fact by fact (the record `i` is at index `i` of each). */
export type VmFactColumns = { readonly [K in VmFactName]: readonly VmFacts[K][] };

/** The names of the facts, in column order. */
export const VM_FACT_NAMES = Object.keys(VM_FACTS) as VmFactName[];

/** The facts that are fields of the machine record, and the field each comes from. */
export const OWN_FACTS: readonly { name: VmFactName; field: keyof MachineRecordFields; text: boolean }[] =
  VM_FACT_NAMES.flatMap((name) => {
    const from: VmFactDef["from"] = VM_FACTS[name].from;
    return "machine" in from ? [{ name, field: from.machine, text: VM_FACTS[name].kind === "str" }] : [];
  });

/** The facts summed over a machine's disks, with the amount of one disk, in column order. */
export const DISK_FACTS: readonly ({ name: VmFactName } & DiskSum)[] = VM_FACT_NAMES.flatMap((name) => {
  const from: VmFactDef["from"] = VM_FACTS[name].from;
  return "disks" in from ? [{ name, ...from.disks }] : [];
});

/** The fields of a disk the facts read, in `DISK_FIELDS` order: the `disks` columns billing reads. */
export const DISK_FIELDS_READ: readonly (keyof DiskRecord)[] = (
  Object.keys(DISK_FIELDS) as (keyof DiskRecord)[]
).filter((field) => DISK_FACTS.some((f) => f.fields.includes(field)));

/** The facts summed over a machine's NICs, with the amount of one NIC, in column order. */
export const NIC_FACTS: readonly { name: VmFactName; amount: (nic: NicRecord) => number }[] = VM_FACT_NAMES.flatMap(
  (name) => {
    const from: VmFactDef["from"] = VM_FACTS[name].from;
    return "nics" in from ? [{ name, amount: from.nics }] : [];
  },
);

/** The facts summed per hour (see `perHour`). */
export type PerHourFactName = {
  [K in VmFactName]: (typeof VM_FACTS)[K] extends { perHour: true } ? K : never;
}[VmFactName];

/** The facts a grouped road groups VM-hours by (all but those summed per hour). */
export const CONFIGURATION_FACTS: readonly VmFactName[] = VM_FACT_NAMES.filter(
  (name) => !(VM_FACTS[name] as VmFactDef & { perHour?: true }).perHour,
);

/** The facts summed per hour (the grouped roads sum them per hour and entity, apart from the configurations). */
export const PER_HOUR_FACTS = VM_FACT_NAMES.filter((n) => !CONFIGURATION_FACTS.includes(n)) as PerHourFactName[];

/** The facts of a VM a per-VM formula reads: all but those summed per hour (the grouped roads have no VM's own). */
export type ConfigurationFacts = Omit<VmFacts, PerHourFactName>;

/** The `machine_facts` column of each fact, in order, as SQL (`a, b, c`); `names`: of these facts only. */
export const factColumnsSql = (names: readonly VmFactName[] = VM_FACT_NAMES): string =>
  names.map((n) => VM_FACTS[n].column).join(", ");

/** Facts of no VM: texts "", numbers 0 (a scratch record to fill). */
export function emptyVmFacts(): VmFacts {
  return Object.fromEntries(VM_FACT_NAMES.map((n) => [n, VM_FACTS[n].kind === "str" ? "" : 0])) as VmFacts;
}

/**
 * A function whose body is one statement per fact (`statement(name, k)` for the `k`-th of
 * `names`), as if each were written by hand. The loops that copy facts run once per VM-hour:
 * written as a loop over the names (each property reached by a computed key) they took a fifth
 * of billing's time (docs/performance.md, "Why the code is written so"); written out they cost
 * what the hand-written copies cost. `names` come from `VM_FACTS` alone, so the body is ours.
 */
export function perFact<F>(
  params: readonly string[],
  names: readonly VmFactName[],
  statement: (name: VmFactName, k: number) => string,
  result = "",
): F {
  return new Function(...params, `${names.map(statement).join("\n")}\n${result}`) as F;
}

/** Copies record `i` of `columns` into `into` (a scratch record, reused VM after VM). */
export const vmFactsAt: (columns: VmFactColumns, i: number, into: VmFacts) => VmFacts = perFact(
  ["columns", "i", "into"],
  VM_FACT_NAMES,
  (name) => `into.${name} = columns.${name}[i];`,
  "return into;",
);

/**
 * Copies row `r` of a query's configuration columns (`CONFIGURATION_FACTS`, in that order, from
 * `read[first]` on) into `into` (a scratch record; the facts summed per hour are left as they are).
 */
export const configurationAt: (
  read: readonly ArrayLike<unknown>[],
  first: number,
  r: number,
  into: VmFacts,
) => VmFacts = perFact(
  ["read", "first", "r", "into"],
  CONFIGURATION_FACTS,
  (name, k) => `into.${name} = read[first + ${k}][r];`,
  "return into;",
);

/**
 * The facts columns a warehouse's `machine_facts` holds, as `warehouse_meta.facts_columns`
 * records them (`factColumnsSql()` when written); a file that records none was made with the
 * first facts, these.
 */
export function storedFactColumns(recorded: string | undefined): string {
  return recorded ?? "status, image_name, mem_mb, vcpus, size_gb, iops_limit, external_nics, external_bytes";
}
