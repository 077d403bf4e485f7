import type { DuckDBConnection } from "@duckdb/node-api";
import { describeImpossible, type ImpossibleValue } from "../store/impossibleValues.js";
import type { LoadReport, SkippedFile } from "../store/types.js";
import { billedImpossibleValues } from "./billedImpossibleValues.js";
import { isoUtc } from "../time.js";
import { checkParams, PARAM_TYPES, paramValues, type BillingParams } from "./lines.js";
import { DEFAULT_UNITS, type Units } from "./units.js";

/** A run of consecutive missing hours: hour labels `[startHour, endHour]`, both included, epoch seconds. */
export interface MissingRun {
  startHour: number;
  endHour: number;
  hours: number;
}

/** What the data of a period lacks or holds that is not billed; it travels with every report. */
export interface DataQuality {
  /** Hours of `[start, end)` without a sample, per account that has at least one sample in the period. */
  missingHours: { accountId: number; hours: number; runs: MissingRun[] }[];
  /** Machines of types other than the billed one (e.g. not `vm`), in machine-hours: kept in the tables, never billed. */
  unbilledMachineTypes: { type: string; machineHours: number }[];
  /**
   * Records with no id and no type or state: machine-hours of machines with id 0 and type "",
   * cloud-space-hours of cloud spaces with id 0 and state "". Files of the platform never hold
   * them; a damaged file does (e.g. a list of Void read as empty structs, SPEC 2.2).
   */
  emptyRecords: { machineHours: number; cloudSpaceHours: number };
  /** True when no account has a sample in the period (the result is empty). */
  emptyPeriod: boolean;
  /** Bad files skipped under `--skip-bad` (from the load report). */
  skipped: SkippedFile[];
  /** Byte-identical duplicates dropped (from the load report). */
  duplicates: string[];
  /** Impossible values (SPEC 3.1: NaN, ±Infinity, negative) in billed fields of the period: counted as 0. */
  impossibleValues: ImpossibleValue[];
}

/** The rows of the period (and account) in a data table. */
const PERIOD = "hour_epoch >= $start AND hour_epoch < $end AND ($account IS NULL OR account_id = $account)";

/**
 * The data quality of a period: missing hours per account (from `account_hours`), machine
 * types that are not billed, whether the period is empty, the impossible values in billed
 * fields, and the skipped files and duplicates of `load` when given.
 */
export async function dataQuality(
  connection: DuckDBConnection, params: BillingParams, load?: LoadReport, units: Units = DEFAULT_UNITS,
): Promise<DataQuality> {
  checkParams(params);
  const values = paramValues(params);
  const missing = await connection.runAndReadAll(
    `WITH present AS (
       SELECT account_id, hour_epoch FROM account_hours
       WHERE hour_epoch >= $start AND hour_epoch < $end AND ($account IS NULL OR account_id = $account)
     ),
     accounts AS (SELECT DISTINCT account_id FROM present),
     expected AS (
       SELECT a.account_id, h.hour_epoch FROM accounts a,
         (SELECT unnest(range(CAST(ceil($start / 3600) * 3600 AS BIGINT), $end, 3600)) AS hour_epoch) h
     ),
     gaps AS (
       SELECT e.account_id, e.hour_epoch FROM expected e
       ANTI JOIN present p ON p.account_id = e.account_id AND p.hour_epoch = e.hour_epoch
     )
     SELECT account_id, min(hour_epoch) AS start_hour, max(hour_epoch) AS end_hour, count(*) AS hours
     FROM (SELECT *, hour_epoch - 3600 * row_number() OVER (PARTITION BY account_id ORDER BY hour_epoch) AS run FROM gaps)
     GROUP BY account_id, run ORDER BY account_id, start_hour`,
    values,
    PARAM_TYPES,
  );
  const byAccount = new Map<number, { accountId: number; hours: number; runs: MissingRun[] }>();
  for (const row of missing.getRowObjectsJS()) {
    const accountId = Number(row.account_id);
    const entry = byAccount.get(accountId) ?? { accountId, hours: 0, runs: [] };
    const run = { startHour: Number(row.start_hour), endHour: Number(row.end_hour), hours: Number(row.hours) };
    entry.runs.push(run);
    entry.hours += run.hours;
    byAccount.set(accountId, entry);
  }
  const types = await connection.runAndReadAll(
    `SELECT type, count(*) AS machine_hours FROM machines
     WHERE hour_epoch >= $start AND hour_epoch < $end AND ($account IS NULL OR account_id = $account) AND type <> $vmType
     GROUP BY type ORDER BY type`,
    { ...values, vmType: units.vmType },
    PARAM_TYPES,
  );
  const empty = await connection.runAndReadAll(
    `SELECT (SELECT count(*) FROM machines WHERE ${PERIOD} AND machine_id = 0 AND type = '') AS machine_hours,
            (SELECT count(*) FROM cloudspaces WHERE ${PERIOD} AND cloudspace_id = 0 AND state = '') AS cloudspace_hours`,
    values,
    PARAM_TYPES,
  );
  const emptyRow = empty.getRowObjectsJS()[0]!;
  const samples = await connection.runAndReadAll(
    `SELECT count(*) AS n FROM account_hours WHERE hour_epoch >= $start AND hour_epoch < $end AND ($account IS NULL OR account_id = $account)`,
    values,
    PARAM_TYPES,
  );
  return {
    missingHours: [...byAccount.values()],
    unbilledMachineTypes: types.getRowObjectsJS().map((r) => ({ type: String(r.type), machineHours: Number(r.machine_hours) })),
    emptyRecords: { machineHours: Number(emptyRow.machine_hours), cloudSpaceHours: Number(emptyRow.cloudspace_hours) },
    emptyPeriod: Number(samples.getRowObjectsJS()[0]!.n) === 0,
    skipped: load?.skipped ?? [],
    duplicates: load?.duplicates ?? [],
    impossibleValues: await billedImpossibleValues(connection, params, units),
  };
}

/** A data-quality warning: a stable code, a one-line message, and the details behind it. */
export interface Warning {
  code: "EMPTY_PERIOD" | "MISSING_HOURS" | "UNBILLED_MACHINE_TYPE" | "EMPTY_RECORDS" | "SKIPPED_FILE" | "DUPLICATES" | "IMPOSSIBLE_VALUE";
  message: string;
  details?: unknown;
}

/** The warnings of a data-quality report, one line each, for stderr and `--warnings-json`. */
export function qualityWarnings(quality: DataQuality, params: BillingParams): Warning[] {
  const period = `[${isoUtc(params.start)}, ${isoUtc(params.end)})`;
  const warnings: Warning[] = [];
  if (quality.emptyPeriod) {
    warnings.push({
      code: "EMPTY_PERIOD",
      message: `no samples in the period ${period}${params.accountId === undefined ? "" : ` for account ${params.accountId}`}: the result is empty (all zero)`,
    });
  }
  for (const m of quality.missingHours) {
    const runs = m.runs.map((r) => (r.hours === 1 ? isoUtc(r.startHour) : `${isoUtc(r.startHour)}..${isoUtc(r.endHour)}`));
    const shown = runs.length > 5 ? [...runs.slice(0, 5), `and ${runs.length - 5} more runs`] : runs;
    warnings.push({
      code: "MISSING_HOURS",
      message: `account ${m.accountId}: ${m.hours} hour${m.hours === 1 ? "" : "s"} missing in ${period}: ${shown.join(", ")}`,
      details: m,
    });
  }
  for (const t of quality.unbilledMachineTypes) {
    warnings.push({
      code: "UNBILLED_MACHINE_TYPE",
      message: `${t.machineHours} machine-hours of type "${t.type}" are not billed (only VMs are)`,
      details: t,
    });
  }
  const { machineHours, cloudSpaceHours } = quality.emptyRecords;
  if (machineHours + cloudSpaceHours > 0) {
    warnings.push({
      code: "EMPTY_RECORDS",
      message: `${machineHours} machine-hour${machineHours === 1 ? "" : "s"} and ${cloudSpaceHours} cloud-space-hour${cloudSpaceHours === 1 ? "" : "s"} ` +
        "are empty records (no id, no type or state): a damaged file?",
      details: quality.emptyRecords,
    });
  }
  for (const s of quality.skipped) {
    warnings.push({ code: "SKIPPED_FILE", message: `skipped bad file ${s.file}: ${s.code}: ${s.reason}`, details: s });
  }
  for (const v of quality.impossibleValues) {
    warnings.push({ code: "IMPOSSIBLE_VALUE", message: `impossible value counted as 0: ${describeImpossible(v)}`, details: v });
  }
  if (quality.duplicates.length > 0) {
    warnings.push({
      code: "DUPLICATES",
      message: `${quality.duplicates.length} byte-identical duplicate file${quality.duplicates.length === 1 ? "" : "s"} dropped`,
      details: quality.duplicates,
    });
  }
  return warnings;
}
