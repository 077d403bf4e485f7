import type { DuckDBConnection } from "@duckdb/node-api";
import type { DecodedAccountHour } from "../../src/capnp/records.js";
import type { Anomaly } from "../../src/forecast/anomalies.js";
import type { PlantedChange, ScenarioOptions } from "../../src/generate/scenario.js";

export const HOUR: number;
export const DAY: number;
export const SEP_1: number;
export const OCT_1: number;
export const NOV_1: number;
/** The month's price list, to give `parsePrices`. */
export const MONTH_PRICES: { currency: string; prices: Record<string, number | { perMonth: number }> };
/** September and October, steady (see generatedMonth.mjs). */
export const STEADY_MONTH: ScenarioOptions;

/** A change planted, and where it must be found. */
export interface PlantedAnomaly {
  change: PlantedChange;
  level: Anomaly["level"];
  id: number;
  metric: Anomaly["metric"];
  direction: Anomaly["direction"];
}

/** The modules the month is made with: src/ under vitest, dist/ under node. */
export interface MonthLibrary {
  SCHEMA_SQL: string;
  appendAccountHours(connection: DuckDBConnection, hours: Iterable<DecodedAccountHour>): Promise<unknown>;
  scenarioHours(options: ScenarioOptions): Iterable<DecodedAccountHour>;
  scenarioMachineId(a: number, s: number, m: number): number;
  scenarioCloudspaceId(a: number, s: number): number;
}

export function plantedAnomalies(
  lib: Pick<MonthLibrary, "scenarioMachineId" | "scenarioCloudspaceId">,
): PlantedAnomaly[];
export function findsPlanted(anomaly: Anomaly, planted: PlantedAnomaly): boolean;
export function monthWarehouse(
  lib: MonthLibrary,
  options: ScenarioOptions,
  file?: string,
  endEpoch?: number,
): Promise<DuckDBConnection>;
