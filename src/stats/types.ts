import type { Units } from "../billing/units.js";

/**
 * The shapes of the statistics responses (docs/statistics.md; seed sections 2.1–2.4).
 */

/** The kind of entity a statistics request is about. */
export type StatsEntity = "machine" | "cloudspace" | "account";

/** One value per entry of `time`; `null` where a disk or NIC is absent at that hour. */
export type SeriesArray = (number | null)[];

/**
 * A series: an array aligned with `time`, or an object of series (per disk id, per NIC
 * position, `{ in, out }`, `{ allocated, inuse }`, `{ vms, gateways }`).
 */
export type SeriesTree = SeriesArray | { [key: string]: SeriesTree };

/** `{ time, series }`: `time` in epoch seconds, ascending; only the requested series present. */
export interface StatsResponse {
  /** The hours in `[from, till)` at which the entity has a sample, epoch seconds UTC. */
  time: number[];
  /** One entry per requested `include` name, keyed by that name. */
  series: Record<string, SeriesTree>;
}

/** What every statistics request has in common. */
export interface StatsPeriod {
  /** Start of the time frame, inclusive: epoch seconds or ISO 8601 (`2026-10-01`). */
  from: number | string;
  /** End of the time frame, exclusive: epoch seconds or ISO 8601. */
  till: number | string;
  /** The series to return, one name or several (seed 4.1–4.3). Duplicates are ignored. */
  include: string | readonly string[];
  /**
   * How the files' `cpuMinutes` and NIC `tx`/`rx` are read: the `cpuReading`, `nicReading` and
   * `nicBytesPerValue` of a units file (`loadUnits`), as billing reads them. Default: CPU-minutes and bytes.
   */
  readings?: Pick<Units, "cpuReading" | "nicReading" | "nicBytesPerValue">;
}

/** Parameters of `machineStats` (seed 4.1). */
export interface MachineStatsRequest extends StatsPeriod {
  machineId: number;
  /**
   * The account the machine belongs to. Optional: needed only when the same machine id has
   * samples in more than one account in `[from, till)` (a UsageError says so).
   */
  accountId?: number;
}

/** Parameters of `cloudspaceStats` (seed 4.2). */
export interface CloudspaceStatsRequest extends StatsPeriod {
  cloudspaceId: number;
  /**
   * The account the cloud space belongs to. Optional: needed only when the same cloud space
   * id has samples in more than one account in `[from, till)` (a UsageError says so).
   */
  accountId?: number;
}

/** Parameters of `accountStats` (seed 4.3). */
export interface AccountStatsRequest extends StatsPeriod {
  accountId: number;
}
