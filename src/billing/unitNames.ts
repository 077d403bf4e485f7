/** How CU rolls up from machines to cloud spaces, accounts and the environment (docs/formulas.md). */
export type CuRollup = "aggregate" | "sum";

/** The billing units, in the order every output shows them. */
export const UNIT_NAMES = ["CU", "SU", "TU", "NU", "VCU", "MU", "WU", "PIU"] as const;
/** A billing unit. */
export type UnitName = (typeof UNIT_NAMES)[number];
/** The four units of the service's `billing/calculate`. */
export const BASE_UNITS = ["CU", "SU", "TU", "NU"] as const;
