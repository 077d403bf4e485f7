import type { Period } from "../base/period.js";
import type { BillingEngine, EngineLine } from "./billingEngine.js";
import type { Figures } from "./engineSums.js";
import type { ResolvedBillingOptions } from "./billingOptions.js";
import type { Level } from "./levels.js";
import type { BillingLine, MachineQuantities, PeriodPart, Quantities } from "./lines.js";
import { nameOf } from "./names.js";
import type { UnitName } from "./unitNames.js";
import { catalogUnits, isVolume } from "./unitCatalog.js";

/** A unit's quantity in an engine line's figures: unit-hours, or unit-months with `options.per` "month" (a volume, NU in TiB, as it is). */
export function quantityOf(figures: Figures, unit: UnitName, options: ResolvedBillingOptions): number | null {
  const v = figures[unit];
  const divisor = options.per === "month" ? options.units.hoursPerMonth : 1;
  return v === null ? null : isVolume(unit) ? v : v / divisor;
}

/** One engine line as a BillingLine (names from the options, quantities per `options.per`). */
export function toLine(line: EngineLine, options: ResolvedBillingOptions): BillingLine {
  const { level, figures } = line;
  const divisor = options.per === "month" ? options.units.hoursPerMonth : 1;
  const unitHours = {} as Record<UnitName, number | null>;
  const quantities = {} as Record<UnitName, number | null>;
  for (const u of catalogUnits()) {
    unitHours[u] = figures[u];
    quantities[u] = quantityOf(figures, u, options);
  }
  const common = {
    hourEpoch: line.hourEpoch,
    sampleHours: line.sampleHours,
    cuSumOfMachines: figures.cuSum / divisor,
    gatewayPiuHours: figures.gatewayPiu,
    cuAllocated: figures.cuAllocated / divisor,
    cuAllocatedHours: figures.cuAllocated,
    ownNicNu: figures.ownNicNu,
  };
  // The engine gives each level its ids (those below it null) and a machine alone a null NU.
  if (level === "environment") {
    return {
      ...common,
      level,
      accountId: null,
      cloudspaceId: null,
      machineId: null,
      name: "",
      quantities: quantities as Quantities,
      unitHours: unitHours as Quantities,
    };
  }
  const accountId = line.accountId!;
  if (level === "account") {
    return {
      ...common,
      level,
      accountId,
      cloudspaceId: null,
      machineId: null,
      name: nameOf(options.names, "account", accountId),
      quantities: quantities as Quantities,
      unitHours: unitHours as Quantities,
    };
  }
  const cloudspaceId = line.cloudspaceId!;
  if (level === "cloudspace") {
    return {
      ...common,
      level,
      accountId,
      cloudspaceId,
      machineId: null,
      name: nameOf(options.names, "cloudspace", cloudspaceId),
      quantities: quantities as Quantities,
      unitHours: unitHours as Quantities,
    };
  }
  const machineId = line.machineId!;
  return {
    ...common,
    level,
    accountId,
    cloudspaceId,
    machineId,
    name: nameOf(options.names, "machine", machineId),
    quantities: quantities as MachineQuantities,
    unitHours: unitHours as MachineQuantities,
  };
}

/** The engine's lines of the given levels as BillingLines (names, per-month quantities). */
export function linesOf(
  lines: readonly EngineLine[],
  options: ResolvedBillingOptions,
  levels: readonly Level[],
): BillingLine[] {
  return lines.filter((l) => levels.includes(l.level)).map((l) => toLine(l, options));
}

/** The lines of each part of the period an engine (finished) cut at `cuts`; undefined without cuts. */
export function partsOf(
  engine: BillingEngine,
  period: Period,
  cuts: readonly number[],
  options: ResolvedBillingOptions,
  levels: readonly Level[],
): PeriodPart[] | undefined {
  if (cuts.length === 0) return undefined;
  const bounds = [period.start, ...cuts, period.end];
  return engine
    .partLines()
    .map((lines, k) => ({ start: bounds[k]!, end: bounds[k + 1]!, lines: linesOf(lines, options, levels) }));
}
