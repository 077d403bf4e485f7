import { UsageError } from "../base/errors.js";
import type { Names } from "./names.js";
import type { CuRollup } from "./unitNames.js";
import { DEFAULT_UNITS, type Units } from "./units.js";

/** The rules of every billing computation: units, CU rollup, names, the units shown, quantities per hour or month. */
export interface BillingOptions {
  /** The unit constants; default `DEFAULT_UNITS` (the published ones). */
  units?: Units;
  /** CU rollup rule; default `"aggregate"` (the published rule). */
  cuRollup?: CuRollup;
  /** Display names; default none (every name is `""`). */
  names?: Names;
  /** Add VCU, MU, WU and PIU to the `calculate` shape; default false. */
  allUnits?: boolean;
  /** Quantities per `"hour"` (unit-hours, default) or per `"month"` (unit-hours / `units.hoursPerMonth`); NU is a volume (TiB) either way. */
  per?: "hour" | "month";
}

/** The resolved options, with defaults applied. */
export interface ResolvedBillingOptions {
  units: Units;
  cuRollup: CuRollup;
  names: Names | undefined;
  allUnits: boolean;
  per: "hour" | "month";
}

/** Applies the defaults of BillingOptions and checks them. */
export function resolveOptions(options: BillingOptions = {}): ResolvedBillingOptions {
  const cuRollup = options.cuRollup ?? "aggregate";
  if (cuRollup !== "aggregate" && cuRollup !== "sum")
    throw new UsageError(`bad CU rollup "${String(cuRollup)}" (use aggregate or sum)`);
  const per = options.per ?? "hour";
  if (per !== "hour" && per !== "month") throw new UsageError(`bad per: "${String(per)}" (use hour or month)`);
  return {
    units: options.units ?? { ...DEFAULT_UNITS },
    cuRollup,
    names: options.names,
    allUnits: options.allUnits ?? false,
    per,
  };
}
