// The generated month the anomaly tests and the forecast bench share (it was built three times):
// September as history and October looked at, with a daily rhythm, quieter weekends and
// weekday-only machines (src/generate/scenario.ts), the anomalies planted in October and where
// each must be found, and the price list they are priced with. Plain JS so that vitest (on src/,
// through scenarioWarehouse.ts) and the bench (node on dist/) share it: each gives it the modules
// it runs on (`lib`).
import { DuckDBInstance } from "@duckdb/node-api";

export const HOUR = 3600;
export const DAY = 86400;
/** 2026-09-01, 2026-10-01 and 2026-11-01 at 00:00 UTC, epoch seconds. */
export const SEP_1 = Date.UTC(2026, 8, 1) / 1000;
export const OCT_1 = Date.UTC(2026, 9, 1) / 1000;
export const NOV_1 = Date.UTC(2026, 10, 1) / 1000;

/** The month's price list, to give `parsePrices`: CU 0.01, SU 40 a month, TU 0.001 and NU 20 EUR. */
export const MONTH_PRICES = { currency: "EUR", prices: { CU: 0.01, SU: { perMonth: 40 }, TU: 0.001, NU: 20 } };

/** September and October of 2 accounts × 2 cloud spaces × 3 machines, and a weekday-only machine in each cloud space. */
export const STEADY_MONTH = {
  start: SEP_1,
  days: 61,
  accounts: 2,
  spaces: 2,
  machines: 3,
  seed: 9,
  weekdayMachines: 1,
};

/**
 * What is planted in October, and where it must be found (entity, figure, direction): a
 * machine's traffic ×15 for 4 hours, a machine's disk tripled for good, 6 large machines for a
 * day in a cloud space, an account's traffic cut to 5% for 12 hours from 03:00.
 * @param {{ scenarioMachineId: (a: number, s: number, m: number) => number; scenarioCloudspaceId: (a: number, s: number) => number }} lib
 */
export function plantedAnomalies(lib) {
  const { scenarioMachineId: machine, scenarioCloudspaceId: cloudspace } = lib;
  return [
    {
      change: {
        kind: "traffic",
        accountId: 1,
        machineId: machine(1, 1, 2),
        from: OCT_1 + 10 * DAY + 14 * HOUR,
        hours: 4,
        factor: 15,
      },
      level: "machine",
      id: machine(1, 1, 2),
      metric: "NU",
      direction: "up",
    },
    {
      change: { kind: "disk", accountId: 2, machineId: machine(2, 2, 1), from: OCT_1 + 12 * DAY + 9 * HOUR, factor: 3 },
      level: "machine",
      id: machine(2, 2, 1),
      metric: "SU",
      direction: "up",
    },
    {
      change: {
        kind: "burst",
        accountId: 2,
        cloudspaceId: cloudspace(2, 1),
        firstMachineId: 99001,
        count: 6,
        from: OCT_1 + 16 * DAY,
        hours: 24,
      },
      level: "cloudspace",
      id: cloudspace(2, 1),
      metric: "CU",
      direction: "up",
    },
    {
      change: { kind: "account-traffic", accountId: 1, from: OCT_1 + 20 * DAY + 3 * HOUR, hours: 12, factor: 0.05 },
      level: "account",
      id: 1,
      metric: "NU",
      direction: "down",
    },
  ];
}

/**
 * True when an anomaly is the planted one: its entity, figure and direction, from at most a day
 * after the change starts (a day's run starts at midnight) and reaching past its start.
 */
export function findsPlanted(anomaly, planted) {
  const a = anomaly;
  const id = a.level === "machine" ? a.machineId : a.level === "cloudspace" ? a.cloudspaceId : a.accountId;
  return (
    a.level === planted.level &&
    id === planted.id &&
    a.metric === planted.metric &&
    a.direction === planted.direction &&
    a.since <= planted.change.from + DAY &&
    a.until > planted.change.from
  );
}

/**
 * A warehouse of a scenario: in memory (no file) or a .duckdb file (closed again, for the CLI);
 * with `endEpoch`, its hours before that one only (a day still running).
 */
export async function monthWarehouse(lib, options, file, endEpoch = Number.POSITIVE_INFINITY) {
  const instance = await DuckDBInstance.create(file ?? ":memory:");
  const connection = await instance.connect();
  await connection.run(lib.SCHEMA_SQL);
  await connection.run("BEGIN");
  const hours = lib.scenarioHours(options);
  await lib.appendAccountHours(
    connection,
    Number.isFinite(endEpoch) ? [...hours].filter((h) => h.hourEpoch < endEpoch) : hours,
  );
  await connection.run("COMMIT");
  if (file !== undefined) {
    await connection.run("CHECKPOINT");
    connection.closeSync();
    instance.closeSync();
  }
  return connection;
}
