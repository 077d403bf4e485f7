import { UsageError } from "../base/errors.js";
import { cuRuleText, nuUnit, tuText, type Units } from "./units.js";
import type { ConfigurationFacts } from "../load/vmFacts.js";

/** How CU rolls up from machines to cloud spaces, accounts and the environment (docs/formulas.md). */
export type CuRollup = "aggregate" | "sum";

/** The billing units, in the order every output shows them; each has its entry in `UNIT_CATALOG`. */
export const UNIT_NAMES = ["CU", "SU", "TU", "NU", "VCU", "MU", "WU", "PIU"] as const;
/** A billing unit. */
export type UnitName = (typeof UNIT_NAMES)[number];
/** The four units of the service's `billing/calculate`. */
export const BASE_UNITS = ["CU", "SU", "TU", "NU"] as const;

/**
 * What a billed VM holds in one hour, the inputs of the per-VM formulas (docs/formulas.md):
 * its facts (`VM_FACTS`: those of its record, the totals of its disks and NICs; not those
 * summed per hour, which the grouped roads hold per hour, not per VM), its CU and whether its
 * image is Windows. Compute (memory, vCPUs, CU) is 0 when its status is not billable.
 */
export type VmHour = ConfigurationFacts & {
  /** The VM's CU: max(mem / mbPerGb / gbPerCu, vcpus / vcpusPerCu). */
  cu: number;
  /** Its image matches `units.windowsPattern`. */
  windows: boolean;
};

/**
 * How a unit is computed at each level:
 * - `cu`: per VM max(mem / mbPerGb / gbPerCu, vcpus / vcpusPerCu); above the VM by the CU rollup
 *   (`aggregate`: the same rule on the level's own totals each hour; `sum`: Σ of the VMs');
 * - `volume`: Σ (tx + rx) of the external NICs, gateways' and VMs', / bytesPerNu at cloud space
 *   and above (a VM has none of its own); a volume over the period, priced per TiB;
 * - `sum`: `perVm` of each VM, summed above it; with `gatewayPublicIp`, plus 1 per cloud space
 *   in a public-IP state whose gateway has an external NIC.
 */
export type UnitRule =
  | { kind: "cu" }
  | { kind: "volume" }
  | { kind: "sum"; perVm: (vm: VmHour, units: Units) => number; gatewayPublicIp?: boolean };

/** A unit's FOCUS service: category and subcategory (FOCUS's allowed values), service name, meter, what the unit is. */
export interface FocusService {
  category: string;
  subcategory: string;
  name: string;
  meter: string;
  /** What one unit is, in a charge description: `transaction units (400 IOPS of configured limit)`. */
  what(units: Units): string;
}

/** Everything cloudunits knows of a billing unit: its formula, level rules, texts and FOCUS mapping. */
export interface UnitDef {
  rule: UnitRule;
  /** The invoice line's description (XLSX Invoice sheet, PDF statement): `Compute units`. */
  label(units: Units): string;
  /** The statement's definition of the unit (PDF), one sentence. */
  definition(units: Units, cuRollup: CuRollup): string;
  focus: FocusService;
}

const compute = { category: "Compute", subcategory: "Virtual Machines" } as const;
const storage = { category: "Storage", subcategory: "Block Storage" } as const;

/**
 * The billing units, each declared once (docs/formulas.md; docs/architecture.md, "Adding a
 * unit"): the engine's figures, the outputs (JSON, CSV, text, XLSX, PDF, FOCUS) and the help
 * text are derived from it. The compiler checks that every name of `UNIT_NAMES` has an entry.
 */
export const UNIT_CATALOG = {
  CU: {
    rule: { kind: "cu" },
    label: () => "Compute units",
    definition: (units, cuRollup) =>
      cuRollup === "aggregate"
        ? `CU (compute units): ${cuRuleText(units)} of the account's machines, per hour, from the account's own totals of memory (MiB) and virtual CPUs; the same rule gives each cloud space's and machine's own CU, so the account's CU can be less than the sum of its machines'.`
        : `CU (compute units): the sum of the machines' CU, each ${cuRuleText(units).replaceAll("Σ", "")} per hour (memory in MiB).`,
    focus: { ...compute, name: "Compute", meter: "Compute Units", what: () => "compute units" },
  },
  SU: {
    rule: { kind: "sum", perVm: (vm, units) => vm.sizeGb / units.gbPerSu },
    label: () => "Storage units (allocated disk)",
    definition: (units) =>
      `SU: allocated disk, one SU per ${units.gbPerSu} GiB${units.gbPerSu === 1024 ? " (1 TiB)" : ""}.`,
    focus: { ...storage, name: "Block storage", meter: "Storage Capacity", what: () => "storage units (TB allocated)" },
  },
  TU: {
    rule: { kind: "sum", perVm: (vm, units) => vm.iopsLimit / units.iopsPerTu },
    label: (units) => `Transaction units (${tuText(units)})`,
    definition: (units) => `TU: one per ${tuText(units)}.`,
    focus: {
      ...storage,
      name: "Block storage IOPS",
      meter: "Storage IOPS",
      what: (units) => `transaction units (${tuText(units)})`,
    },
  },
  NU: {
    rule: { kind: "volume" },
    label: () => "Network units (external traffic)",
    definition: (units) =>
      `NU: external traffic (sent and received) in ${nuUnit(units)} (${units.bytesPerNu === 1024 ** 4 ? "1024⁴ bytes" : `${units.bytesPerNu} bytes`}), a volume over the whole period.`,
    focus: {
      category: "Networking",
      subcategory: "Network Connectivity",
      name: "Public network traffic",
      meter: "Data Transfer",
      what: () => "network units (TiB of external traffic, a volume)",
    },
  },
  VCU: {
    rule: { kind: "sum", perVm: (vm) => vm.vcpus },
    label: () => "Virtual CPUs",
    definition: () => "VCU: one virtual CPU.",
    focus: { ...compute, name: "Compute", meter: "Virtual CPUs", what: () => "virtual CPUs" },
  },
  MU: {
    rule: { kind: "sum", perVm: (vm, units) => vm.memMb / units.mbPerGb },
    label: () => "Memory (GiB)",
    definition: () => "MU: one GiB of memory.",
    focus: { ...compute, name: "Compute", meter: "Memory", what: () => "memory GiB" },
  },
  WU: {
    rule: { kind: "sum", perVm: (vm) => (vm.windows ? vm.cu : 0) },
    label: () => "Windows units",
    definition: (units) => `WU: the CU of machines whose image matches /${units.windowsPattern}/i.`,
    focus: {
      ...compute,
      name: "Windows licensing",
      meter: "Windows Units",
      what: () => "Windows units (CU of Windows VMs)",
    },
  },
  PIU: {
    rule: { kind: "sum", perVm: (vm) => vm.externalNics, gatewayPublicIp: true },
    label: () => "Public IP addresses",
    definition: () => "PIU: one public IP address (an external network interface).",
    focus: {
      category: "Networking",
      subcategory: "Other (Networking)",
      name: "Public IP addresses",
      meter: "Public IP Addresses",
      what: () => "public IP units",
    },
  },
} as const satisfies Record<UnitName, UnitDef>;

/** Units added at run time (`registerUnit`), after the catalog's, in the order added. */
let added: readonly (readonly [UnitName, UnitDef])[] = [];
let names: readonly UnitName[] = UNIT_NAMES;

/** The units in the order every output shows them: the catalog's, then any registered. */
export function catalogUnits(): readonly UnitName[] {
  return names;
}

/** A unit's definition. */
export function unitDef(unit: UnitName): UnitDef {
  const def: UnitDef | undefined =
    (UNIT_CATALOG as Record<string, UnitDef>)[unit] ?? added.find(([name]) => name === unit)?.[1];
  if (def === undefined) throw new RangeError(`unknown unit ${unit} (units: ${names.join(", ")})`);
  return def;
}

/** True for a volume (NU): priced per TiB, never divided into unit-months, none of a VM's own. */
export const isVolume = (unit: UnitName): boolean => unitDef(unit).rule.kind === "volume";

/** True for a unit that counts a cloud space's gateway's public IP (PIU): a gateway's share of it is its own. */
export const countsGatewayIp = (unit: UnitName): boolean => {
  const rule = unitDef(unit).rule;
  return rule.kind === "sum" && rule.gatewayPublicIp === true;
};

/**
 * Adds a unit summed from a per-VM formula, after the catalog's units, to every engine made
 * and every output written from then on in this thread (an engine keeps the units it was made
 * with; worker threads do not see it). For a unit of your own or a test: a unit of the product
 * is declared in `UNIT_CATALOG`. Returns the function that removes it again.
 */
export function registerUnit(name: string, def: UnitDef): () => void {
  if (!/^[A-Z][A-Z0-9]*$/.test(name))
    throw new UsageError(`a unit's name is capital letters and digits, such as XU: got ${JSON.stringify(name)}`);
  if (names.includes(name as UnitName)) throw new UsageError(`the unit ${name} exists already`);
  if (def.rule.kind !== "sum")
    throw new UsageError(`a registered unit is summed from a per-VM formula (rule kind "sum"), got "${def.rule.kind}"`);
  const entry = [name as UnitName, def] as const;
  added = [...added, entry];
  names = [...UNIT_NAMES, ...added.map(([n]) => n)];
  return () => {
    added = added.filter((e) => e !== entry);
    names = [...UNIT_NAMES, ...added.map(([n]) => n)];
  };
}

/** `VCU, MU, WU and PIU`: a list of units as a sentence says it. */
export function unitList(units: readonly UnitName[]): string {
  return units.length <= 1 ? units.join("") : `${units.slice(0, -1).join(", ")} and ${units[units.length - 1]}`;
}

/** What `--all-units` does, from the catalog: `add VCU, MU, WU and PIU to CU, SU, TU, NU`. */
export function allUnitsText(): string {
  const base: readonly UnitName[] = BASE_UNITS;
  return `add ${unitList(catalogUnits().filter((u) => !base.includes(u)))} to ${BASE_UNITS.join(", ")}`;
}
