/**
 * The facts billing reads of each VM record in an hour: the one list of them. The facts builder
 * (`machineFacts.ts`) makes them from files and from a database's rows, ingest stores them
 * (`machine_facts`, whose columns these are), billing reads them back row by row
 * (`billing/warehouseFacts.ts`) and grouped (`billing/groupedFacts.ts`), and the engine hands
 * each VM's to the unit formulas (`VmHour` of `billing/unitCatalog.ts`). A new fact is an entry
 * here: a field of the machine record (`from: { machine }`, the field the decoder visits, read
 * from the same column of the `machines` table), or a sum over the machine's disks or NICs
 * (`from: "disks"`, `"nics"`: the facts builder sums them).
 *
 * `perHour`: summed per hour rather than grouped by (the grouped roads count VM-hours of each
 * configuration of the other facts, and sum this one per hour and entity).
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
  sizeGb: { column: "size_gb", kind: "f64", from: "disks" },
  /** Σ of its disks' IOPS limits (docs/formulas.md, TU). */
  iopsLimit: { column: "iops_limit", kind: "f64", from: "disks" },
  /** Its NICs of the external type (`warehouse_meta.facts_external_nic_type`). */
  externalNics: { column: "external_nics", kind: "i32", from: "nics" },
  /** Σ (tx + rx) of those NICs, as the files count them. */
  externalBytes: { column: "external_bytes", kind: "f64", from: "nics", perHour: true },
} as const satisfies Record<string, VmFactDef>;

/** The fields of a machine record the decoder visits (`RecordVisitor.machine`), by name: what a fact `from: { machine }` names. */
export interface MachineRecordFields {
  vcpus: number;
  cpuMinutes: number;
  mem: number;
  imageName: string;
  status: string;
}

/** One per-VM fact: its column, how it is staged (`columnBatch.ts`), where it comes from. */
interface VmFactDef {
  column: string;
  kind: "str" | "f64" | "i32";
  from: { machine: keyof MachineRecordFields } | "disks" | "nics";
  perHour?: true;
}

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
    const def: VmFactDef = VM_FACTS[name];
    return typeof def.from === "object" ? [{ name, field: def.from.machine, text: def.kind === "str" }] : [];
  });

/** The facts a grouped road groups VM-hours by (all but those summed per hour). */
export const CONFIGURATION_FACTS: readonly VmFactName[] = VM_FACT_NAMES.filter(
  (name) => !(VM_FACTS[name] as VmFactDef).perHour,
);

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
 * of billing's time (in-process, a week of 1,000 VMs from files and from a warehouse's stored
 * facts, alternating: 0.44 against 0.37 CPU s, 0.60 against 0.43); written out they cost what
 * the hand-written copies cost. `names` come from `VM_FACTS` alone, so the body is ours.
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
 * The facts columns a warehouse's `machine_facts` holds, as `warehouse_meta.facts_columns`
 * records them (`factColumnsSql()` when written); a file that records none was made with the
 * first facts, these.
 */
export function storedFactColumns(recorded: string | undefined): string {
  return recorded ?? "status, image_name, mem_mb, vcpus, size_gb, iops_limit, external_nics, external_bytes";
}
