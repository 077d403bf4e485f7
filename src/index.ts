/** cloudunits: the public API. Everything public is exported here, by name. */
export * from "./errors.js";
export type * from "./capnp/records.js";
export type * from "./input/types.js";
export { parseTime, isoUtc } from "./time.js";
export { SCHEMA_SQL, DATA_TABLES } from "./store/schema.js";
export { calculate } from "./billing/calculate.js";
export type { CalculateResult, CalculateAccount, CalculateCloudspace, CalculateMachine, Consumption } from "./billing/calculate.js";
export { periodLines, hourlyLines, LEVELS } from "./billing/lines.js";
export type { BillingOptions, BillingParams, BillingLine, Level, Quantities } from "./billing/lines.js";
export { DEFAULT_UNITS, loadUnits, parseUnits } from "./billing/units.js";
export type { Units } from "./billing/units.js";
export { loadNames, makeNames } from "./billing/names.js";
export type { Names, NameKind } from "./billing/names.js";
export { UNIT_NAMES, BASE_UNITS } from "./billing/unitsSql.js";
export type { UnitName, CuRollup } from "./billing/unitsSql.js";
