import type { DuckDBConnection } from "@duckdb/node-api";
import { describeImpossible, type ImpossibleValue } from "../load/impossibleValues.js";
import type { LoadReport, SkippedFile } from "../load/loadReport.js";
import { isoUtc } from "../base/time.js";
import type { SeenData } from "./billingEngine.js";
import { ascending } from "./engineSums.js";
import { checkPeriod, paramTypes, paramValues, periodSql, type Period } from "../base/period.js";
import { clockNow } from "../base/clock.js";

/** A run of consecutive missing hours: hour labels `[startHour, endHour]`, both included, epoch seconds. */
export interface MissingRun {
  startHour: number;
  endHour: number;
  hours: number;
}

/** What the data of a period lacks or holds that is not billed; it travels with every report. */
export interface DataQuality {
  /** Hours of `[start, end)` without a sample, per account that has at least one sample in the period. */
  missingHours: {
    accountId: number;
    hours: number;
    runs: MissingRun[];
    notYetSynced?: { startHour: number; hours: number };
    /** Of `runs`, the hours `sync` gave up as lost at source (never written within the platform's retention); absent when none. */
    lost?: { hours: number; runs: MissingRun[] };
  }[];
  /** Machines of types other than the billed one (e.g. not `vm`), in machine-hours: kept in the tables, never billed. */
  unbilledMachineTypes: { type: string; machineHours: number }[];
  /**
   * Records with no id and no type or state: machine-hours of machines with id 0 and type "",
   * cloud-space-hours of cloud spaces with id 0 and state "". Files of the platform never hold
   * them; a damaged file does (e.g. a list of Void read as empty structs, docs/input.md).
   */
  emptyRecords: { machineHours: number; cloudSpaceHours: number };
  /** True when no account has a sample in the period (the result is empty). */
  emptyPeriod: boolean;
  /**
   * With `emptyPeriod`: the hours the data holds (of the period's account, when it names one),
   * from the first hour's start to the last hour's end, epoch seconds; null when it holds none.
   */
  held?: { start: number; end: number } | null;
  /** Bad files skipped under `--skip-bad` (from the load report). */
  skipped: SkippedFile[];
  /** Byte-identical duplicates dropped (from the load report). */
  duplicates: string[];
  /** Impossible values (docs/warehouse.md: NaN, ±Infinity, negative) in billed fields of the period: counted as 0. */
  impossibleValues: ImpossibleValue[];
}

/**
 * The runs of missing hours of each account that has a sample in `[start, end)`: the hours
 * from the first whole hour of the period to its end without a sample, in runs of
 * consecutive hours, accounts in id order. Hours that have not ended yet (from the current
 * hour on) are never missing; nor, for an account `sync` keeps (`syncedUntil`: the hour after
 * its last hour held), the hours after its last complete hour: those are "not yet synced".
 */
export function missingHoursOf(
  accountHours: ReadonlyMap<number, readonly number[]>,
  params: Period,
  syncedUntil: ReadonlyMap<number, number> = new Map(),
  nowEpoch = clockNow(),
  lostHours: ReadonlyMap<number, ReadonlySet<number>> = new Map(),
  heldRuns: ReadonlyMap<number, readonly number[]> = new Map(),
): DataQuality["missingHours"] {
  const first = Math.ceil(params.start / 3600) * 3600;
  const ended = Math.min(params.end, Math.floor(nowEpoch / 3600) * 3600);
  const out: DataQuality["missingHours"] = [];
  for (const accountId of [...new Set([...accountHours.keys(), ...heldRuns.keys()])].sort((a, b) => a - b)) {
    const isHeld = heldWalk(accountHours.get(accountId) ?? [], heldRuns.get(accountId) ?? []);
    const entry: DataQuality["missingHours"][number] = { accountId, hours: 0, runs: [] as MissingRun[] };
    const until = Math.min(ended, syncedUntil.get(accountId) ?? ended);
    let run: MissingRun | undefined;
    for (let hour = first; hour < until; hour += 3600) {
      if (isHeld(hour)) {
        run = undefined;
        continue;
      }
      if (run === undefined) entry.runs.push((run = { startHour: hour, endHour: hour, hours: 0 }));
      run.endHour = hour;
      run.hours++;
      entry.hours++;
    }
    const lost = entry.runs.flatMap(hoursOfRun).filter((h) => lostHours.get(accountId)?.has(h));
    if (lost.length > 0) entry.lost = { hours: lost.length, runs: runsOf(lost) };
    const pending = Math.max(0, (ended - Math.max(until, first)) / 3600);
    if (pending > 0) entry.notYetSynced = { startHour: Math.max(until, first), hours: pending };
    if (entry.hours > 0 || pending > 0) out.push(entry);
  }
  return out;
}

/**
 * Whether an account holds an hour, asked of ascending hours: one of its hours, or in one of its
 * runs of held hours (`[start, end)` pairs, ascending). Walked in order, not put in a set: a year
 * of 100 accounts is 876,000 hours.
 */
function heldWalk(hours: readonly number[], runs: readonly number[]): (hour: number) => boolean {
  const present = ascending(hours) ? hours : Float64Array.from(hours).sort();
  let next = 0; // the first held hour not before the hour asked
  let k = 0; // the first run not ended at the hour asked
  return (hour) => {
    while (next < present.length && present[next]! < hour) next++;
    while (k < runs.length && runs[k + 1]! <= hour) k += 2;
    return present[next] === hour || (k < runs.length && runs[k]! <= hour);
  };
}

/** The hours of a run, ascending. */
const hoursOfRun = (r: MissingRun) => Array.from({ length: r.hours }, (_, k) => r.startHour + k * 3600);

/** Ascending hours as runs of consecutive hours. */
function runsOf(hours: readonly number[]): MissingRun[] {
  const runs: MissingRun[] = [];
  for (const h of hours) {
    const last = runs.at(-1);
    if (last && last.endHour + 3600 === h) {
      last.endHour = h;
      last.hours++;
    } else runs.push({ startHour: h, endHour: h, hours: 1 });
  }
  return runs;
}

/** The hours `sync` gave up per account (`sync_log` event `lost`); none in a warehouse without the table. */
export async function lostHoursOf(connection: DuckDBConnection): Promise<Map<number, Set<number>>> {
  const lost = new Map<number, Set<number>>();
  const present = await connection.runAndReadAll(
    "SELECT count(*) FROM information_schema.tables WHERE table_name = 'sync_log'",
  );
  if (Number(present.getRows()[0]![0]) === 0) return lost;
  for (const [accountId, hour] of (
    await connection.runAndReadAll("SELECT DISTINCT account_id, hour_epoch FROM sync_log WHERE event = 'lost'")
  ).getRows()) {
    const set = lost.get(Number(accountId)) ?? new Set<number>();
    set.add(Number(hour));
    lost.set(Number(accountId), set);
  }
  return lost;
}

/**
 * For each account `sync` keeps in a warehouse (`sync_state`), the hour after its last hour held
 * (an hour later than the current one, loaded by `ingest`, does not count): later hours are not yet synced.
 */
export async function syncedUntilOf(connection: DuckDBConnection, nowEpoch = clockNow()): Promise<Map<number, number>> {
  const rows = (
    await connection.runAndReadAll(
      `SELECT s.account_id, coalesce(max(a.hour_epoch) FILTER (WHERE a.hour_epoch <= $now) + 3600, min(s.synced_until_epoch)) AS until
     FROM sync_state s LEFT JOIN account_hours a USING (account_id) GROUP BY 1`,
      { now: Math.floor(nowEpoch / 3600) * 3600 },
    )
  ).getRowsJS();
  return new Map(rows.map(([accountId, until]) => [Number(accountId), Number(until)]));
}

/**
 * The data quality of a period from what the billing engine saw of its account-hours, the
 * billed impossible values and the load report: missing hours per account, machine types
 * that are not billed, empty records, whether the period is empty, skipped files and duplicates.
 */
export function qualityOf(
  seen: SeenData,
  params: Period,
  load: LoadReport | undefined,
  impossibleValues: ImpossibleValue[],
  syncedUntil?: ReadonlyMap<number, number>,
  lostHours?: ReadonlyMap<number, ReadonlySet<number>>,
): DataQuality {
  return {
    missingHours: missingHoursOf(seen.accountHours, params, syncedUntil, undefined, lostHours, seen.heldRuns),
    unbilledMachineTypes: [...seen.unbilledTypes]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([type, machineHours]) => ({ type, machineHours })),
    emptyRecords: { machineHours: seen.emptyMachineHours, cloudSpaceHours: seen.emptyCloudspaceHours },
    emptyPeriod: seen.accountHours.size === 0 && (seen.heldRuns?.size ?? 0) === 0,
    skipped: load?.skipped ?? [],
    duplicates: load?.duplicates ?? [],
    impossibleValues,
  };
}

/** The hours of `[start, end)` at which each account (one, or every one) has a sample in a warehouse (its `account_hours`). */
export async function accountHoursIn(connection: DuckDBConnection, params: Period): Promise<Map<number, number[]>> {
  checkPeriod(params);
  const reader = await connection.runAndReadAll(
    `SELECT account_id, hour_epoch FROM account_hours WHERE ${periodSql()} ORDER BY 1, 2`,
    paramValues(params),
    paramTypes(),
  );
  const hours = new Map<number, number[]>();
  for (const [accountId, hourEpoch] of reader.getRowsJS()) {
    const list = hours.get(Number(accountId));
    if (list === undefined) hours.set(Number(accountId), [Number(hourEpoch)]);
    else list.push(Number(hourEpoch));
  }
  return hours;
}

/** A data-quality warning: a stable code, a one-line message, and the details behind it. */
export interface Warning {
  code:
    | "EMPTY_PERIOD"
    | "MISSING_HOURS"
    | "LOST_AT_SOURCE"
    | "NOT_YET_SYNCED"
    | "UNBILLED_MACHINE_TYPE"
    | "EMPTY_RECORDS"
    | "SKIPPED_FILE"
    | "DUPLICATES"
    | "IMPOSSIBLE_VALUE"
    | "MARKETPLACE_CHARGES";
  message: string;
  details?: unknown;
}

/** The MISSING_HOURS warnings of the missing hours of a period, one per account. */
export function missingHoursWarnings(missingHours: DataQuality["missingHours"], params: Period): Warning[] {
  const period = `[${isoUtc(params.start)}, ${isoUtc(params.end)})`;
  const shownRuns = (runs: readonly MissingRun[]) => {
    const texts = runs.map((r) =>
      r.hours === 1 ? isoUtc(r.startHour) : `${isoUtc(r.startHour)}..${isoUtc(r.endHour)}`,
    );
    return (texts.length > 5 ? [...texts.slice(0, 5), `and ${texts.length - 5} more runs`] : texts).join(", ");
  };
  return missingHours.flatMap((m): Warning[] => {
    const warnings: Warning[] = [];
    // lost hours are not "missing": sync no longer asks for them, and they never come
    const lost = new Set(m.lost ? m.lost.runs.flatMap(hoursOfRun) : []);
    const missing = runsOf(m.runs.flatMap(hoursOfRun).filter((h) => !lost.has(h)));
    const n = m.hours - lost.size;
    if (n > 0) {
      warnings.push({
        code: "MISSING_HOURS",
        message: `account ${m.accountId}: ${n} hour${n === 1 ? "" : "s"} missing in ${period}: ${shownRuns(missing)}`,
        details: { ...m, hours: n, runs: missing },
      });
    }
    if (m.lost) {
      warnings.push({
        code: "LOST_AT_SOURCE",
        message: `account ${m.accountId}: ${m.lost.hours} hour${m.lost.hours === 1 ? "" : "s"} of ${period} lost at source (never written by the platform within its retention, given up by sync): ${shownRuns(m.lost.runs)}`,
        details: m.lost,
      });
    }
    if (m.notYetSynced) {
      const n = m.notYetSynced.hours;
      warnings.push({
        code: "NOT_YET_SYNCED",
        message: `account ${m.accountId}: ${n} hour${n === 1 ? "" : "s"} of ${period} not yet synced (from ${isoUtc(m.notYetSynced.startHour)}, after the last hour held)`,
        details: m.notYetSynced,
      });
    }
    return warnings;
  });
}

/** The warnings of a data-quality report, one line each, for stderr and `--warnings-json`. */
export function qualityWarnings(quality: DataQuality, params: Period): Warning[] {
  const period = `[${isoUtc(params.start)}, ${isoUtc(params.end)})`;
  const warnings: Warning[] = [];
  if (quality.emptyPeriod) {
    const whose = params.accountId === undefined ? "" : ` for account ${params.accountId}`;
    const held =
      quality.held === undefined
        ? ""
        : quality.held === null
          ? "; it holds no hour at all"
          : `; it holds [${isoUtc(quality.held.start)}, ${isoUtc(quality.held.end)})`;
    warnings.push({
      code: "EMPTY_PERIOD",
      message: `the data holds no hour of the period ${period}${whose}: the result is empty (all zero)${held}`,
      details: quality.held,
    });
  }
  warnings.push(...missingHoursWarnings(quality.missingHours, params));
  for (const t of quality.unbilledMachineTypes) {
    warnings.push({
      code: "UNBILLED_MACHINE_TYPE",
      message: `${t.machineHours} machine-hours of type ${JSON.stringify(t.type)} are not billed (only VMs are)`,
      details: t,
    });
  }
  const { machineHours, cloudSpaceHours } = quality.emptyRecords;
  if (machineHours + cloudSpaceHours > 0) {
    warnings.push({
      code: "EMPTY_RECORDS",
      message:
        `${machineHours} machine-hour${machineHours === 1 ? "" : "s"} and ${cloudSpaceHours} cloud-space-hour${cloudSpaceHours === 1 ? "" : "s"} ` +
        "are empty records (no id, no type or state): a damaged file?",
      details: quality.emptyRecords,
    });
  }
  for (const s of quality.skipped) {
    warnings.push({ code: "SKIPPED_FILE", message: `skipped bad file ${s.file}: ${s.code}: ${s.reason}`, details: s });
  }
  for (const v of quality.impossibleValues) {
    warnings.push({
      code: "IMPOSSIBLE_VALUE",
      message: `impossible value counted as 0: ${describeImpossible(v)}`,
      details: v,
    });
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
