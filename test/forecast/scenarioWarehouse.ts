import { DuckDBInstance, type DuckDBConnection } from "@duckdb/node-api";
import { appendAccountHours } from "../../src/store/append.js";
import { SCHEMA_SQL } from "../../src/store/schema.js";
import { scenarioHours, type ScenarioOptions } from "../../src/generate/scenario.js";

/** A warehouse of a scenario: in memory (no file) or a .duckdb file (closed again, for the CLI); with `endEpoch`, its hours before that one only (a day still running). */
export async function scenarioWarehouse(
  options: ScenarioOptions,
  file?: string,
  endEpoch = Number.POSITIVE_INFINITY,
): Promise<DuckDBConnection> {
  const instance = await DuckDBInstance.create(file ?? ":memory:");
  const connection = await instance.connect();
  await connection.run(SCHEMA_SQL);
  await connection.run("BEGIN");
  await appendAccountHours(
    connection,
    Number.isFinite(endEpoch)
      ? [...scenarioHours(options)].filter((h) => h.hourEpoch < endEpoch)
      : scenarioHours(options),
  );
  await connection.run("COMMIT");
  if (file !== undefined) {
    await connection.run("CHECKPOINT");
    connection.closeSync();
    instance.closeSync();
  }
  return connection;
}

/** 2026-09-01T00:00Z and 2026-10-01T00:00Z, epoch seconds; an hour and a day. */
export const SEP_1 = Date.UTC(2026, 8, 1) / 1000;
export const OCT_1 = Date.UTC(2026, 9, 1) / 1000;
export const HOUR = 3600;
export const DAY = 86400;
