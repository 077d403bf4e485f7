import { cpuMinutesPerValue, DEFAULT_UNITS, nicBytesPerHourValue, type Units } from "../billing/units.js";
import type { EntityQueries, SeriesDefinition } from "./seriesDefinition.js";

/** The constants of the units file that say how the files' fields are read (docs/formulas.md, "Field readings"). */
export type FieldReadings = Pick<Units, "cpuReading" | "nicReading" | "nicBytesPerValue">;

/**
 * An entity's rows as the units file reads the fields: its machines' `cpu_minutes` in
 * CPU-minutes, its NICs' `tx_bytes`/`rx_bytes` in bytes the machine sent and received (swapped
 * when counted on the host's side), so that every series reads them as billing does. The
 * factors are bound: `$cpuPerValue` and `$nicBytesPerHour` (`readingValues`).
 */
function readAs(name: string, sql: string, readings: FieldReadings): string {
  if (name === "entity_machines" && cpuMinutesPerValue(readings) !== 1)
    return `SELECT * REPLACE (cpu_minutes * $cpuPerValue AS cpu_minutes) FROM (${sql})`;
  if (name !== "entity_nics" || (nicBytesPerHourValue(readings) === 1 && readings.nicReading === "bytes")) return sql;
  const [sent, received] =
    readings.nicReading === "host-packets-per-second" ? ["rx_bytes", "tx_bytes"] : ["tx_bytes", "rx_bytes"];
  return `SELECT * REPLACE (${sent} * $nicBytesPerHour AS tx_bytes, ${received} * $nicBytesPerHour AS rx_bytes) FROM (${sql})`;
}

/** The values of the parameters `readAs` names: what one unit of a `cpuMinutes` value and of a NIC's value stand for. */
export function readingValues(readings: FieldReadings = DEFAULT_UNITS): {
  cpuPerValue: number;
  nicBytesPerHour: number;
} {
  return { cpuPerValue: cpuMinutesPerValue(readings), nicBytesPerHour: nicBytesPerHourValue(readings) };
}

/**
 * One query for a whole request: the entity's common table expressions that are needed,
 * each materialized (so each warehouse table is scanned once), then the sample hours and
 * every requested series, unioned as rows `(series, hour_epoch, k1, k2, value)` where
 * `series` is -1 for the hours and the position in `definitions` for a series.
 */
export function buildStatsSql(
  queries: EntityQueries,
  definitions: readonly SeriesDefinition[],
  readings: FieldReadings = DEFAULT_UNITS,
): string {
  const parts = [
    `SELECT -1 AS series, hour_epoch, NULL::VARCHAR AS k1, NULL::VARCHAR AS k2, NULL::DOUBLE AS value FROM (${queries.timeSql})`,
    ...definitions.map(
      (d, i) => `SELECT ${i} AS series, hour_epoch, k1::VARCHAR, k2::VARCHAR, value::DOUBLE FROM (${d.sql})`,
    ),
  ];
  const body = parts.join("\nUNION ALL\n");
  const used = neededCtes(queries.ctes, body);
  const ctes = used.map((name) => `${name} AS MATERIALIZED (${readAs(name, queries.ctes[name]!, readings)})`);
  return `${ctes.length > 0 ? `WITH ${ctes.join(",\n")}\n` : ""}${body}`;
}

/** The CTE names `sql` refers to, with the ones they refer to, in declaration order. */
function neededCtes(ctes: Readonly<Record<string, string>>, sql: string): string[] {
  const names = Object.keys(ctes);
  const needed = new Set<string>();
  let text = sql;
  for (;;) {
    const found = names.filter((n) => !needed.has(n) && new RegExp(`\\b${n}\\b`).test(text));
    if (found.length === 0) break;
    for (const n of found) needed.add(n);
    text = found.map((n) => ctes[n]).join("\n");
  }
  return names.filter((n) => needed.has(n));
}
