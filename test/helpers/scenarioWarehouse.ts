import type { DuckDBConnection } from "@duckdb/node-api";
import { appendAccountHours } from "../../src/store/append.js";
import { SCHEMA_SQL } from "../../src/store/schema.js";
import {
  scenarioCloudspaceId,
  scenarioHours,
  scenarioMachineId,
  type ScenarioOptions,
} from "../../src/generate/scenario.js";
import { monthWarehouse, OCT_1, plantedAnomalies, SEP_1, type MonthLibrary } from "./generatedMonth.mjs";

export { DAY, HOUR, MONTH_PRICES, NOV_1, OCT_1, SEP_1, STEADY_MONTH, findsPlanted } from "./generatedMonth.mjs";
export type { PlantedAnomaly } from "./generatedMonth.mjs";

/** The generated month's modules, from the sources (the bench gives dist/'s). */
const SOURCES: MonthLibrary = {
  SCHEMA_SQL,
  appendAccountHours,
  scenarioHours,
  scenarioMachineId,
  scenarioCloudspaceId,
};

/** The anomalies planted in the generated October, and where each must be found (generatedMonth.mjs). */
export const PLANTED = plantedAnomalies(SOURCES);

/** September, then October with two more machines per cloud space from Oct 15: the month `top` ranks in its tests. */
export const GROWING_OCTOBER: ScenarioOptions = {
  start: SEP_1,
  days: 61,
  accounts: 2,
  spaces: 2,
  machines: 3,
  seed: 6,
  addedAt: OCT_1 + 14 * 86400,
  added: 2,
};

/** A warehouse of a scenario: in memory (no file) or a .duckdb file (closed again, for the CLI); with `endEpoch`, its hours before that one only (a day still running). */
export function scenarioWarehouse(
  options: ScenarioOptions,
  file?: string,
  endEpoch?: number,
): Promise<DuckDBConnection> {
  return monthWarehouse(SOURCES, options, file, endEpoch);
}
