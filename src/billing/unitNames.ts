/** The unit names and the CU rule's names, declared with the units in the unit catalog (`unitCatalog.ts`), where a unit is added. */
export { BASE_UNITS, UNIT_NAMES } from "./unitCatalog.js";
export type { CuRollup, UnitName } from "./unitCatalog.js";
