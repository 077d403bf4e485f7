import { BIGINT, type DuckDBConnection, type DuckDBType } from "@duckdb/node-api";
import { UsageError } from "../errors.js";
import { nameOf, type Names } from "./names.js";
import { DEFAULT_UNITS, type Units } from "./units.js";
import { billingCtes } from "./billingCtes.js";
import { showbackCtes } from "./showbackCtes.js";
import { UNIT_NAMES, type CuRollup, type UnitName } from "./unitNames.js";

/** The levels of the billing hierarchy, from the top. */
export const LEVELS = ["environment", "account", "cloudspace", "machine"] as const;
/** A level of the billing hierarchy. */
export type Level = (typeof LEVELS)[number];
/**
 * The level of a report line: a level of the hierarchy, or `gateway`: a cloud space's
 * gateway in showback (its NU and public IP, beside the machines; see `showback`).
 */
export type LineLevel = Level | "gateway";

/** Options of every billing computation. */
export interface BillingOptions {
  /** The unit constants; default `DEFAULT_UNITS` (the published ones). */
  units?: Units;
  /** CU rollup rule; default `"aggregate"` (the published rule). */
  cuRollup?: CuRollup;
  /** Display names; default none (every name is `""`). */
  names?: Names;
  /** Add VCU, MU, WU and PIU to the `calculate` shape; default false. */
  allUnits?: boolean;
  /** Quantities per `"hour"` (unit-hours, default) or per `"month"` (unit-hours / `units.hoursPerMonth`); NU is a volume (TB) either way. */
  per?: "hour" | "month";
}

/** A billing period: half-open `[start, end)`, epoch seconds; `accountId` limits it to one account. */
export interface BillingParams {
  /** First second of the period (inclusive), epoch seconds. */
  start: number;
  /** End of the period (exclusive), epoch seconds. */
  end: number;
  /** One account (detailed per cloud space and machine); omitted: every account. */
  accountId?: number;
}

/** The quantities of one line: unit-hours (or unit-months with `per: "month"`), NU in TB transferred; NU is null for machines. */
export type Quantities = Record<UnitName, number | null>;

/** One line: one entity at one level, over the period or in one hour. */
export interface BillingLine {
  level: LineLevel;
  /** null for the environment. */
  accountId: number | null;
  /** null above cloud-space level. */
  cloudspaceId: number | null;
  /** null above machine level. */
  machineId: number | null;
  /** The hour's label (epoch seconds) of an hourly line; null for a period line. */
  hourEpoch: number | null;
  /** Name from the names file, `""` when unknown (the environment's is `""`). */
  name: string;
  /** Number of hourly samples of the entity in the period (1 for an hourly line). */
  sampleHours: number;
  /** The units, per `options.per`. */
  quantities: Quantities;
  /** Σ of the machines' CU at this level (equal to CU under `sum`; the check figure under `aggregate`). */
  cuSumOfMachines: number;
  /** The part of PIU that is the gateways' public IPs (0 for machines), in PIU-hours whatever `options.per`. */
  gatewayPiuHours: number;
  /** Unit-hours (NU: TB), before any per-month division (what money is computed from). */
  unitHours: Quantities;
  /**
   * Showback CU (SPEC 3.2), per `options.per`: the account's CU allocated hour by hour to its
   * cloud spaces in proportion to their own CU, and on to their machines; equal to CU for
   * accounts and the environment. Adds up at every level, unlike own CU under `aggregate`.
   */
  cuAllocated: number;
  /** `cuAllocated` in CU-hours, whatever `options.per`. */
  cuAllocatedHours: number;
  /** NU (TB) of the entity's own external NICs: a machine's, or a cloud space's gateway's; 0 above. */
  ownNicNu: number;
}

/** The resolved options, with defaults applied. */
export interface ResolvedBillingOptions {
  units: Units;
  cuRollup: CuRollup;
  names: Names | undefined;
  allUnits: boolean;
  per: "hour" | "month";
}

/** Applies the defaults of BillingOptions and checks them. */
export function resolveOptions(options: BillingOptions = {}): ResolvedBillingOptions {
  const cuRollup = options.cuRollup ?? "aggregate";
  if (cuRollup !== "aggregate" && cuRollup !== "sum") throw new UsageError(`bad CU rollup "${String(cuRollup)}" (use aggregate or sum)`);
  const per = options.per ?? "hour";
  if (per !== "hour" && per !== "month") throw new UsageError(`bad --per "${String(per)}" (use hour or month)`);
  return { units: options.units ?? { ...DEFAULT_UNITS }, cuRollup, names: options.names, allUnits: options.allUnits ?? false, per };
}

/** Checks a period; throws a UsageError naming the bad value. */
export function checkParams(params: BillingParams): void {
  for (const key of ["start", "end"] as const) {
    if (!Number.isSafeInteger(params[key])) throw new UsageError(`bad ${key}: ${String(params[key])} (epoch seconds, a whole number)`);
  }
  if (params.end <= params.start) throw new UsageError(`the period is empty: end ${params.end} is not after start ${params.start} (the period is [start, end))`);
  if (params.accountId !== undefined && !Number.isSafeInteger(params.accountId)) {
    throw new UsageError(`bad account id: ${String(params.accountId)} (a whole number)`);
  }
}

const LEVEL_SQL: Record<Level, { cte: string; keys: string }> = {
  environment: { cte: "(SELECT *, CU AS cu_allocated, 0::DOUBLE AS own_nic_nu FROM bill_environment_hours)", keys: "NULL::BIGINT AS account_id, NULL::BIGINT AS cloudspace_id, NULL::BIGINT AS machine_id" },
  account: { cte: "(SELECT *, CU AS cu_allocated, 0::DOUBLE AS own_nic_nu FROM bill_account_hours)", keys: "account_id, NULL::BIGINT AS cloudspace_id, NULL::BIGINT AS machine_id" },
  cloudspace: { cte: "bill_cloudspace_showback", keys: "account_id, cloudspace_id::BIGINT AS cloudspace_id, NULL::BIGINT AS machine_id" },
  machine: { cte: "bill_machine_showback", keys: "account_id, cloudspace_id::BIGINT AS cloudspace_id, machine_id::BIGINT AS machine_id" },
};

function unitColumns(level: Level, aggregate: (column: string) => string): string {
  return UNIT_NAMES.map((u) => (u === "NU" && level === "machine" ? `NULL::DOUBLE AS NU` : `${aggregate(u)}::DOUBLE AS ${u}`)).join(", ");
}

/** The SQL of the lines of some levels: per period (`hourly` false) or per hour, ordered by the hierarchy. */
export function linesSql(levels: readonly Level[], units: Units, cuRollup: CuRollup, hourly: boolean): string {
  const selects = levels.map((level) => {
    const { cte, keys } = LEVEL_SQL[level];
    const rank = LEVELS.indexOf(level);
    if (hourly) {
      return `SELECT ${rank} AS level_rank, ${keys}, hour_epoch, 1::BIGINT AS sample_hours, ${unitColumns(level, (c) => c)}, cu_sum::DOUBLE AS cu_sum, gateway_piu::DOUBLE AS gateway_piu,
        cu_allocated::DOUBLE AS cu_allocated, own_nic_nu::DOUBLE AS own_nic_nu FROM ${cte}`;
    }
    const by = { environment: "", account: "GROUP BY account_id", cloudspace: "GROUP BY account_id, cloudspace_id", machine: "GROUP BY account_id, cloudspace_id, machine_id" }[level];
    return `SELECT ${rank} AS level_rank, ${keys}, NULL::BIGINT AS hour_epoch, count(*)::BIGINT AS sample_hours,
      ${unitColumns(level, (c) => `fsum(${c})`)}, fsum(cu_sum)::DOUBLE AS cu_sum, fsum(gateway_piu)::DOUBLE AS gateway_piu,
      fsum(cu_allocated)::DOUBLE AS cu_allocated, fsum(own_nic_nu)::DOUBLE AS own_nic_nu FROM ${cte} ${by}${level === "environment" ? " HAVING count(*) > 0" : ""}`;
  });
  return `${billingCtes(units, cuRollup).trimEnd()}${showbackCtes(units)}
SELECT * FROM (${selects.join("\nUNION ALL\n")})
ORDER BY ${hourly ? "hour_epoch, " : ""}account_id NULLS FIRST, cloudspace_id NULLS FIRST, machine_id NULLS FIRST, level_rank`;
}

/** The DuckDB types of the query parameters of a period (BigInt values would bind as HUGEINT). */
export const PARAM_TYPES: Record<string, DuckDBType> = { start: BIGINT, end: BIGINT, account: BIGINT };

/** The levels a report of `params` shows: with an account id, the account and below; without, every level. */
export function levelsFor(params: BillingParams): readonly Level[] {
  return params.accountId === undefined ? LEVELS : LEVELS.filter((l) => l !== "environment");
}

/** The query parameters of a period. */
export function paramValues(params: BillingParams): Record<string, bigint | null> {
  return { start: BigInt(params.start), end: BigInt(params.end), account: params.accountId === undefined ? null : BigInt(params.accountId) };
}

function toLine(row: Record<string, unknown>, options: ResolvedBillingOptions): BillingLine {
  const level = LEVELS[Number(row.level_rank)]!;
  const id = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  const accountId = id(row.account_id);
  const cloudspaceId = id(row.cloudspace_id);
  const machineId = id(row.machine_id);
  const divisor = options.per === "month" ? options.units.hoursPerMonth : 1;
  const unitHours = {} as Quantities;
  const quantities = {} as Quantities;
  for (const u of UNIT_NAMES) {
    const v = row[u] as number | null;
    unitHours[u] = v;
    quantities[u] = v === null ? null : u === "NU" ? v : v / divisor;
  }
  const name =
    level === "machine" ? nameOf(options.names, "machine", machineId!)
    : level === "cloudspace" ? nameOf(options.names, "cloudspace", cloudspaceId!)
    : level === "account" ? nameOf(options.names, "account", accountId!)
    : "";
  return {
    level, accountId, cloudspaceId, machineId, hourEpoch: id(row.hour_epoch), name,
    sampleHours: Number(row.sample_hours), quantities, cuSumOfMachines: (row.cu_sum as number) / divisor,
    gatewayPiuHours: row.gateway_piu as number, unitHours,
    cuAllocated: (row.cu_allocated as number) / divisor, cuAllocatedHours: row.cu_allocated as number, ownNicNu: row.own_nic_nu as number,
  };
}

/**
 * The period lines of the given levels (default `levelsFor(params)`), one per entity with at
 * least one sample in `[start, end)`, ordered environment, then per account: the account,
 * each cloud space followed by its machines. Every figure comes from `billingCtes`.
 */
export async function periodLines(
  connection: DuckDBConnection, params: BillingParams, options: BillingOptions = {}, levels: readonly Level[] = levelsFor(params),
): Promise<BillingLine[]> {
  checkParams(params);
  const resolved = resolveOptions(options);
  const reader = await connection.runAndReadAll(linesSql(levels, resolved.units, resolved.cuRollup, false), paramValues(params), PARAM_TYPES);
  return reader.getRowObjectsJS().map((row) => toLine(row, resolved));
}

/** Seconds of the windows `hourlyLines` queries one at a time (one day). */
const HOURLY_WINDOW_SECONDS = 86_400;

/**
 * The hourly lines of the given levels, streamed in batches (ordered by hour, then the
 * hierarchy): what `--detail hourly`, the Hourly sheet and FOCUS render. Same figures as
 * `periodLines`. The period is queried one day at a time: lines are ordered by hour first and
 * every figure is per hour, so the days in turn give exactly the period's lines, while DuckDB
 * sorts one day's lines instead of the whole period's (memory no longer grows with the period).
 */
export async function* hourlyLines(
  connection: DuckDBConnection, params: BillingParams, options: BillingOptions = {}, levels: readonly Level[] = levelsFor(params),
): AsyncGenerator<BillingLine[]> {
  checkParams(params);
  const resolved = resolveOptions(options);
  const sql = linesSql(levels, resolved.units, resolved.cuRollup, true);
  for (let start = params.start; start < params.end; start += HOURLY_WINDOW_SECONDS) {
    const window = { ...params, start, end: Math.min(start + HOURLY_WINDOW_SECONDS, params.end) };
    const result = await connection.stream(sql, paramValues(window), PARAM_TYPES);
    for await (const rows of result.yieldRowObjectJs()) yield rows.map((row) => toLine(row, resolved));
  }
}

/** The number of hourly lines `hourlyLines` would yield for these levels. */
export async function hourlyLineCount(
  connection: DuckDBConnection, params: BillingParams, options: BillingOptions = {}, levels: readonly Level[] = levelsFor(params),
): Promise<number> {
  checkParams(params);
  const resolved = resolveOptions(options);
  const reader = await connection.runAndReadAll(
    `SELECT count(*) AS n FROM (${linesSql(levels, resolved.units, resolved.cuRollup, true)})`, paramValues(params), PARAM_TYPES,
  );
  return Number(reader.getRowObjectsJS()[0]!.n);
}
