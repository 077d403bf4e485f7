import { UsageError } from "../base/errors.js";
import { readStructured } from "./readStructured.js";

/** How a machine's `cpuMinutes` field is read (see `Units.cpuReading`). */
export type CpuReading = "cpu-minutes" | "busy-vcpus-per-60";
/** How a NIC's `tx`/`rx` fields are read (see `Units.nicReading`). */
export type NicReading = "bytes" | "host-packets-per-second";
const CPU_READINGS: readonly CpuReading[] = ["cpu-minutes", "busy-vcpus-per-60"];
const NIC_READINGS: readonly NicReading[] = ["bytes", "host-packets-per-second"];

/**
 * Every constant of the billing formulas (docs/formulas.md). The defaults are the published ones
 * (`DEFAULT_UNITS`); a units file (JSON or YAML) overrides any of them.
 */
export interface Units {
  /** MB per GiB of memory: MU = mem / mbPerGb. Default 1024. */
  mbPerGb: number;
  /** GiB of memory per compute unit: CU memory part = mem / mbPerGb / gbPerCu. Default 4. */
  gbPerCu: number;
  /** Virtual CPUs per compute unit: CU vCPU part = vcpus / vcpusPerCu. Default 2. */
  vcpusPerCu: number;
  /** GB of disk per storage unit: SU = Σ size / gbPerSu. Default 1024. */
  gbPerSu: number;
  /** IOPS of configured limit per transaction unit: TU = Σ iopsLimit / iopsPerTu. Default 400. */
  iopsPerTu: number;
  /** Bytes per network unit: NU = Σ (tx + rx) × nicBytesPerValue / bytesPerNu. Default 1024⁴ (one TiB). */
  bytesPerNu: number;
  /**
   * Bytes per unit of a NIC's `tx`/`rx` value as written in the files. Default 1 (the files hold
   * bytes). With `nicReading: "host-packets-per-second"`: the bytes of one packet.
   */
  nicBytesPerValue: number;
  /**
   * How a machine's `cpuMinutes` is read (docs/formulas.md, "Field readings"): `cpu-minutes`, the
   * CPU-minutes used in the hour (default); `busy-vcpus-per-60`, as the platform's public
   * collectors write it: the hour's average of busy vCPUs ÷ 60 (a CPU-minute count of value × 3600).
   */
  cpuReading: CpuReading;
  /**
   * How a NIC's `tx`/`rx` are read: `bytes`, the bytes the machine sent and received in the hour
   * (default); `host-packets-per-second`, as the public collectors write them: the hour's average
   * packets per second counted on the host's tap device, so `tx` is what the machine received
   * and `rx` what it sent (each value stands for value × 3600 × `nicBytesPerValue` bytes).
   */
  nicReading: NicReading;
  /** Hours of a billing month: `per: "month"` divides unit-hours by it. Default 720 (30 days). */
  hoursPerMonth: number;
  /** Case-insensitive regular expression (RE2 syntax) on `imageName` that makes a VM a Windows VM (WU). Default `windows`. */
  windowsPattern: string;
  /** The machine type that is billed. Default `vm`. Other types are reported, never billed. */
  vmType: string;
  /** The NIC type that carries public traffic and public IPs (NU, PIU). Default `external`. */
  externalNicType: string;
  /** Cloud space states in which a gateway's external NIC counts one PIU. Default `["DEPLOYED"]`. */
  publicIpStates: string[];
  /**
   * Machine statuses whose compute is billed (CU, VCU, MU, WU); `null` bills every status.
   * Storage (SU, TU), public IPs (PIU) and traffic (NU) are billed whatever the status.
   * Default `null` (docs/formulas.md bills every VM).
   */
  billableStatuses: string[] | null;
}

/** The published constants of docs/formulas.md. */
export const DEFAULT_UNITS: Readonly<Units> = Object.freeze({
  mbPerGb: 1024,
  gbPerCu: 4,
  vcpusPerCu: 2,
  gbPerSu: 1024,
  iopsPerTu: 400,
  bytesPerNu: 1024 ** 4,
  nicBytesPerValue: 1,
  cpuReading: "cpu-minutes",
  nicReading: "bytes",
  hoursPerMonth: 720,
  windowsPattern: "windows",
  vmType: "vm",
  externalNicType: "external",
  publicIpStates: ["DEPLOYED"],
  billableStatuses: null,
});

const NUMBER_KEYS = [
  "mbPerGb",
  "gbPerCu",
  "vcpusPerCu",
  "gbPerSu",
  "iopsPerTu",
  "bytesPerNu",
  "nicBytesPerValue",
  "hoursPerMonth",
] as const;
const STRING_KEYS = ["windowsPattern", "vmType", "externalNicType"] as const;

/**
 * Checks a parsed units object (from a file or a caller) and fills in the defaults.
 * `source` names the file in error messages. Unknown keys and bad values throw a UsageError.
 */
export function parseUnits(value: unknown, source = "units"): Units {
  if (value === null || value === undefined) return { ...DEFAULT_UNITS };
  if (typeof value !== "object" || Array.isArray(value)) {
    throw new UsageError(`${source}: the units must be an object of constants such as { "gbPerCu": 4 }`);
  }
  const input = value as Record<string, unknown>;
  const known = new Set<string>(Object.keys(DEFAULT_UNITS));
  const unknown = Object.keys(input).filter((k) => !known.has(k));
  if (unknown.length > 0) {
    throw new UsageError(
      `${source}: unknown unit constant${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")} (known: ${[...known].join(", ")})`,
    );
  }
  const units: Units = { ...DEFAULT_UNITS, publicIpStates: [...DEFAULT_UNITS.publicIpStates] };
  for (const key of NUMBER_KEYS) {
    const v = input[key];
    if (v === undefined) continue;
    if (typeof v !== "number" || !Number.isFinite(v) || v <= 0) {
      throw new UsageError(`${source}: ${key} must be a positive number, got ${JSON.stringify(v)}`);
    }
    units[key] = v;
  }
  for (const key of STRING_KEYS) {
    const v = input[key];
    if (v === undefined) continue;
    if (typeof v !== "string" || v === "")
      throw new UsageError(`${source}: ${key} must be a non-empty string, got ${JSON.stringify(v)}`);
    units[key] = v;
  }
  try {
    new RegExp(units.windowsPattern, "i");
  } catch (error) {
    throw new UsageError(
      `${source}: windowsPattern is not a regular expression: ${JSON.stringify(units.windowsPattern)}`,
      { cause: error },
    );
  }
  units.cpuReading = reading(input.cpuReading, "cpuReading", CPU_READINGS, source) ?? units.cpuReading;
  units.nicReading = reading(input.nicReading, "nicReading", NIC_READINGS, source) ?? units.nicReading;
  if (input.publicIpStates !== undefined)
    units.publicIpStates = stringList(input.publicIpStates, "publicIpStates", source);
  if (input.billableStatuses !== undefined) {
    units.billableStatuses =
      input.billableStatuses === null ? null : stringList(input.billableStatuses, "billableStatuses", source);
  }
  refuseInfiniteUnits(units, Object.keys(input), source);
  return units;
}

/**
 * The largest sum a unit's formula may meet: the largest value a file's field holds (a float32,
 * 3.4 × 10³⁸) added up over 2⁵³ rows (machines, disks, NICs and hours: more than any period holds).
 */
const LARGEST_FIELD_SUM = 3.4028234663852886e38 * 2 ** 53;

/**
 * Each unit at its largest, computed as the engine computes it (same order of operations), with the
 * constants it reads: a unit that could be infinite (or NaN, ∞ − ∞ further on) is refused here.
 */
function largestUnits(u: Units): { unit: string; keys: (keyof Units)[]; value: number }[] {
  const nicPerValue = nicBytesPerHourValue(u);
  return [
    { unit: "MU", keys: ["mbPerGb"], value: LARGEST_FIELD_SUM / u.mbPerGb },
    { unit: "CU", keys: ["mbPerGb", "gbPerCu"], value: LARGEST_FIELD_SUM / u.mbPerGb / u.gbPerCu },
    { unit: "CU", keys: ["vcpusPerCu"], value: LARGEST_FIELD_SUM / u.vcpusPerCu },
    { unit: "SU", keys: ["gbPerSu"], value: LARGEST_FIELD_SUM / u.gbPerSu },
    { unit: "TU", keys: ["iopsPerTu"], value: LARGEST_FIELD_SUM / u.iopsPerTu },
    { unit: "the network series", keys: ["nicBytesPerValue"], value: LARGEST_FIELD_SUM * nicPerValue },
    { unit: "NU", keys: ["nicBytesPerValue", "bytesPerNu"], value: (LARGEST_FIELD_SUM * nicPerValue) / u.bytesPerNu },
  ];
}

/**
 * Refuses constants whose units could be infinite or NaN: a tiny divisor (`gbPerCu: 5e-324`), a huge
 * multiplier (`nicBytesPerValue: 1e300`), per hour or per month (÷ `hoursPerMonth`). Names the key
 * the file gave (`given`), or the keys of the formula.
 */
function refuseInfiniteUnits(units: Units, given: readonly string[], source: string): void {
  for (const { unit, keys, value } of largestUnits(units)) {
    const perMonth = value / units.hoursPerMonth;
    if (Number.isFinite(value) && Number.isFinite(perMonth)) continue;
    const culprits = (Number.isFinite(value) ? [...keys, "hoursPerMonth" as const] : keys).filter((k) =>
      given.includes(k),
    );
    const named = (culprits.length > 0 ? culprits : keys).map((k) => `${k} ${String(units[k])}`).join(" with ");
    throw new UsageError(
      `${source}: ${named} makes ${unit}${Number.isFinite(value) ? " per month" : ""} infinite for values a file can hold ` +
        `(the formulas must stay finite up to 3.4e38, a float32, summed over 2^53 rows): give a value nearer the published ${culprits.map((k) => `${k} (${String(DEFAULT_UNITS[k])})`).join(", ") || "ones"}`,
      { code: "UNITS_NOT_FINITE" },
    );
  }
}

function reading<R extends string>(v: unknown, key: string, choices: readonly R[], source: string): R | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== "string" || !choices.includes(v as R))
    throw new UsageError(`${source}: ${key} must be one of ${choices.join(", ")}, got ${JSON.stringify(v)}`);
  return v as R;
}

/** The CPU-minutes one unit of a `cpuMinutes` value stands for: 1, or 3600 read as busy vCPUs ÷ 60 (an hour of 60 minutes × 60). */
export function cpuMinutesPerValue(units: Pick<Units, "cpuReading">): number {
  return units.cpuReading === "busy-vcpus-per-60" ? 3600 : 1;
}

/** The bytes one unit of a NIC's `tx`/`rx` value stands for over its hour: `nicBytesPerValue`, × 3600 for packets per second. */
export function nicBytesPerHourValue(units: Pick<Units, "nicReading" | "nicBytesPerValue">): number {
  return units.nicBytesPerValue * (units.nicReading === "host-packets-per-second" ? 3600 : 1);
}

function stringList(v: unknown, key: string, source: string): string[] {
  if (!Array.isArray(v) || v.some((s) => typeof s !== "string")) {
    throw new UsageError(`${source}: ${key} must be a list of strings, got ${JSON.stringify(v)}`);
  }
  return [...(v as string[])];
}

/** Reads a units file (JSON, or YAML for any other extension) and checks it. */
export async function loadUnits(file: string): Promise<Units> {
  return parseUnits(await readStructured(file, { role: "units file" }), file);
}

/** The aggregate CU rule with these constants, as a reader sees it: `max(Σmem/1024/4, Σvcpus/2)`. */
export function cuRuleText(units: Units): string {
  return `max(Σmem/${units.mbPerGb}/${units.gbPerCu}, Σvcpus/${units.vcpusPerCu})`;
}

/** The CU rule in a sentence, as every output that shows CU states it: `CU rule: aggregate (...)`. */
export function cuRuleSentence(cuRollup: "aggregate" | "sum" | undefined, units: Units = DEFAULT_UNITS): string {
  return (cuRollup ?? "aggregate") === "aggregate"
    ? `CU rule: aggregate (each level's CU per hour is ${cuRuleText(units)} of its own totals)`
    : `CU rule: sum (each level's CU is the sum of its machines' CU; a machine's is ${cuRuleText(units)})`;
}

/** What one TU is with these constants: `400 IOPS of configured limit`. */
export function tuText(units: Units): string {
  return `${units.iopsPerTu} IOPS of configured limit`;
}

/** The unit of NU volumes: `TiB` (1024⁴ bytes, the default), `TB` (10¹² bytes), else `NU of N bytes`. */
export function nuUnit(units: Units): string {
  if (units.bytesPerNu === 1024 ** 4) return "TiB";
  if (units.bytesPerNu === 1e12) return "TB";
  return `NU of ${units.bytesPerNu} bytes`;
}
