import { DEFAULT_UNITS, nicBytesPerHourValue, type Units } from "../billing/units.js";
import { RECONCILED_UNITS, type Figures, type ReconciledUnit } from "./billTree.js";

/** The factor between the platform's figure of a unit and ours, over the environment and each account. */
export interface UnitFactor {
  unit: ReconciledUnit;
  /** Our figure and the platform's for the environment (unit-hours; NU: TiB). */
  ours: number;
  platform: number;
  /** platform ÷ ours for the environment; null when either is 0 (no factor makes 0 of a figure, or a figure of 0). */
  factor: number | null;
  /** The least and the greatest platform ÷ ours over the accounts compared with both figures above 0; null without any. */
  accounts: { least: number; greatest: number } | null;
  /**
   * True when one constant explains the difference: a factor other than 1 (beyond the
   * tolerance) that every account shares (within 0.1%). A factor that varies between accounts
   * is a difference of data (hours, machines), not of how the files are read.
   */
  constant: boolean;
}

/** What the factors suggest: the constants to change in the units file, and the units they would make agree. */
export interface SuggestedUnits {
  /** The keys to set in the units file (over the one used), e.g. `{ nicReading: "host-packets-per-second", nicBytesPerValue: 1500 }`. */
  changes: Partial<Units>;
  /** The units whose factor these changes cancel. */
  units: ReconciledUnit[];
}

/** How close the accounts' factors must be to be one factor. */
const SAME_FACTOR = 1e-3;

/**
 * The factor per unit between the platform's figures and ours: the environment's, and its
 * range over the accounts (`accounts`: our and the platform's consumption of each).
 */
export function unitFactors(
  environment: { ours: Figures; platform: Figures },
  accounts: readonly { ours: Figures; platform: Figures }[],
  tolerance: number,
): UnitFactor[] {
  return RECONCILED_UNITS.map((unit): UnitFactor => {
    const ours = environment.ours[unit] ?? 0;
    const platform = environment.platform[unit] ?? 0;
    const factor = ours > 0 && platform > 0 ? platform / ours : null;
    const each = accounts.flatMap((a) =>
      (a.ours[unit] ?? 0) > 0 && (a.platform[unit] ?? 0) > 0 ? [a.platform[unit]! / a.ours[unit]!] : [],
    );
    const range = each.length === 0 ? null : { least: Math.min(...each), greatest: Math.max(...each) };
    const differs = factor !== null && Math.abs(factor - 1) > Math.max(tolerance, 1e-12);
    const shared =
      range === null ||
      (range.greatest - range.least <= SAME_FACTOR * range.greatest &&
        Math.abs(range.least - factor!) <= SAME_FACTOR * factor!);
    return { unit, ours, platform, factor, accounts: range, constant: differs && shared };
  });
}

/**
 * The units file that makes our figures the platform's, for each unit a constant explains:
 * every unit's figure is linear in one constant or two (CU = max(mem/mbPerGb/gbPerCu,
 * vcpus/vcpusPerCu) per hour: both divided by the factor multiply it by the factor). For NU,
 * a needed factor per value that is a whole multiple of 3600 reads the files as packets per
 * second (3600 s of packets of `nicBytesPerValue` bytes); otherwise `nicBytesPerValue` scales.
 * Undefined when no unit has such a factor.
 */
export function suggestUnits(factors: readonly UnitFactor[], units: Units = DEFAULT_UNITS): SuggestedUnits | undefined {
  const changes: Partial<Units> = {};
  const explained: ReconciledUnit[] = [];
  for (const { unit, factor, constant } of factors) {
    if (!constant || factor === null) continue;
    explained.push(unit);
    if (unit === "CU")
      Object.assign(changes, { gbPerCu: units.gbPerCu / factor, vcpusPerCu: units.vcpusPerCu / factor });
    else if (unit === "SU") changes.gbPerSu = units.gbPerSu / factor;
    else if (unit === "TU") changes.iopsPerTu = units.iopsPerTu / factor;
    else {
      const perValue = nicBytesPerHourValue(units) * factor; // the bytes one value must stand for over its hour
      const perPacket = perValue / 3600;
      const packets = perPacket >= 1 && Math.abs(perPacket - Math.round(perPacket)) <= 1e-6 * perPacket;
      Object.assign(
        changes,
        packets
          ? { nicReading: "host-packets-per-second", nicBytesPerValue: Math.round(perPacket) }
          : { nicReading: "bytes", nicBytesPerValue: perValue },
      );
    }
  }
  return explained.length === 0 ? undefined : { changes, units: explained };
}
