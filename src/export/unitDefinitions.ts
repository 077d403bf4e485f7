import type { UnitName } from "../billing/unitNames.js";
import { catalogUnits, unitDef } from "../billing/unitCatalog.js";
import type { Units } from "../billing/units.js";

/**
 * The definition of the units in use, with their rules and constants (the CU rule, the month of
 * `hoursPerMonth` hours, the volume unit): for the internal workbook's About sheet, not for what a
 * customer receives.
 */
export function unitsParagraph(
  units: Units,
  used: readonly UnitName[],
  cuRollup: "aggregate" | "sum",
  per: "hour" | "month",
): string {
  const parts: string[] = [];
  parts.push(
    `Units are measured once per hour: a unit-hour is one unit held for one hour, and a unit-month is ${units.hoursPerMonth} unit-hours (the 30-day month of the platform's billing rules)${per === "month" ? "; quantities per month are unit-hours / " + units.hoursPerMonth : ""}.`,
  );
  for (const unit of catalogUnits()) if (used.includes(unit)) parts.push(unitDef(unit).definition(units, cuRollup));
  return parts.join(" ");
}
