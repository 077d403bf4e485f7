import type { DuckDBConnection } from "@duckdb/node-api";
import { duckdbApi } from "../base/duckdb.js";
import { isoUtc } from "../base/time.js";

const HOUR = 3600;

/**
 * Hours behind the current hour beyond which a warehouse is behind: an hourly sync leaves it 1
 * or 2 behind (the hour just ended is published a little later), `status --max-lag 3` in the
 * cron recipe alerts past 3.
 */
export const BEHIND_AFTER_HOURS = 3;

/** How far a warehouse's latest hour held is from now. */
export interface WarehouseLag {
  /** The latest hour held, of any account (epoch seconds). */
  lastHourEpoch: number;
  /** The current hour (now, down to the hour; epoch seconds). */
  currentHourEpoch: number;
  /** Whole hours from the end of the latest hour held to the current hour (0 when current), as `status` counts them. */
  lagHours: number;
  /** More than `BEHIND_AFTER_HOURS` behind: what a forecast, alerts or ranking of it says first. */
  behind: boolean;
}

/** The lag as of `nowEpoch` (epoch seconds) of a warehouse whose latest hour held is `lastHourEpoch`. */
export function lagOf(lastHourEpoch: number, nowEpoch: number): WarehouseLag {
  const currentHourEpoch = Math.floor(nowEpoch / HOUR) * HOUR;
  const lagHours = Math.max(0, (currentHourEpoch - (lastHourEpoch + HOUR)) / HOUR);
  return { lastHourEpoch, currentHourEpoch, lagHours, behind: lagHours > BEHIND_AFTER_HOURS };
}

/** The latest hour a warehouse holds (epoch seconds), not after `nowEpoch` when given (hours dated later are no news); undefined when none. */
export async function latestHour(connection: DuckDBConnection, nowEpoch?: number): Promise<number | undefined> {
  const reader = await connection.runAndReadAll(
    "SELECT max(hour_epoch)::DOUBLE AS last FROM account_hours WHERE $now IS NULL OR hour_epoch <= $now",
    { now: nowEpoch === undefined ? null : BigInt(Math.floor(nowEpoch)) },
    { now: duckdbApi().BIGINT },
  );
  const last = reader.getRowObjectsJS()[0]?.last;
  return last === null || last === undefined ? undefined : Number(last);
}

/** The lag of the warehouse behind `connection` as of `nowEpoch`; undefined when it holds no hour. */
export async function warehouseLag(connection: DuckDBConnection, nowEpoch: number): Promise<WarehouseLag | undefined> {
  const last = await latestHour(connection, nowEpoch);
  return last === undefined ? undefined : lagOf(last, nowEpoch);
}

/** A lag as people read it: hours up to 2 days, then whole days (`21 days`). */
export function lagDuration(lagHours: number): string {
  if (lagHours < 48) return `${lagHours} h`;
  return `${Math.floor(lagHours / 24)} days`;
}

/** `the warehouse holds hours up to 2026-11-12T09:00:00Z, 21 days behind`. */
export function lagText(lag: WarehouseLag): string {
  return `the warehouse holds hours up to ${isoUtc(lag.lastHourEpoch)}, ${lagDuration(lag.lagHours)} behind`;
}

/** A lag as JSON gives it: times in ISO 8601 UTC. */
export function lagJson(lag: WarehouseLag): {
  lastHour: string;
  currentHour: string;
  lagHours: number;
  behind: boolean;
} {
  return {
    lastHour: isoUtc(lag.lastHourEpoch),
    currentHour: isoUtc(lag.currentHourEpoch),
    lagHours: lag.lagHours,
    behind: lag.behind,
  };
}
