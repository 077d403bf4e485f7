import type { DuckDBConnection } from "@duckdb/node-api";
import { UsageError } from "../base/errors.js";
import { checkParams, paramTypes, paramValues, periodSql } from "../base/period.js";
import { nameOf, type Names } from "./names.js";
import { DEFAULT_UNITS, type Units } from "./units.js";
import { BillingEngine, type EngineLine, type SeenData } from "./billingEngine.js";
import type { CuRollup, UnitName } from "./unitNames.js";
import { catalogUnits, isVolume } from "./unitCatalog.js";
import { warehouseFacts } from "./warehouseFacts.js";
import { addGroupedAccount, addGroupedFacts, groupedReadable } from "./groupedFacts.js";

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
  /**
   * Hours (epoch seconds) where a price changes (`priceChanges` of a price list): the parts of
   * the period between them are billed apart too (`BilledPeriod.parts`), for an invoice line per
   * price period. Default none.
   */
  splitAt?: readonly number[];
}

/** The lines of one part of a period cut where prices change: `[start, end)`, epoch seconds. */
export interface PeriodPart {
  start: number;
  end: number;
  /** The part's period lines, as `BilledPeriod.lines` are the period's. */
  lines: BillingLine[];
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

/** The quantities of a line: unit-hours (or unit-months with `per: "month"`), NU in TB transferred. */
export type Quantities = Record<UnitName, number>;
/** A machine's quantities: those of `Quantities`, but NU is null (a machine has no NU of its own; its NICs' is `ownNicNu`). */
export type MachineQuantities = Record<Exclude<UnitName, "NU">, number> & { NU: null };

/** What every billing line has, whatever its level. */
interface LineFigures<Q> {
  /** The hour's label (epoch seconds) of an hourly line; null for a period line. */
  hourEpoch: number | null;
  /** Name from the names file, `""` when unknown (the environment's is `""`; a gateway's is `"gateway"`). */
  name: string;
  /** Number of hourly samples of the entity in the period (1 for an hourly line). */
  sampleHours: number;
  /** The units, per `options.per`. */
  quantities: Q;
  /** Σ of the machines' CU at this level (equal to CU under `sum`; the check figure under `aggregate`). */
  cuSumOfMachines: number;
  /** The part of PIU that is the gateways' public IPs (0 for machines), in PIU-hours whatever `options.per`. */
  gatewayPiuHours: number;
  /** Unit-hours (NU: TB), before any per-month division (what money is computed from). */
  unitHours: Q;
  /**
   * Showback CU (docs/formulas.md), per `options.per`: the account's CU allocated hour by hour to its
   * cloud spaces in proportion to their own CU, and on to their machines; equal to CU for
   * accounts and the environment. Adds up at every level, unlike own CU under `aggregate`.
   */
  cuAllocated: number;
  /** `cuAllocated` in CU-hours, whatever `options.per`. */
  cuAllocatedHours: number;
  /** NU (TB) of the entity's own external NICs: a machine's, or a cloud space's gateway's; 0 above. */
  ownNicNu: number;
}

/** The whole environment: every account. */
export interface EnvironmentLine extends LineFigures<Quantities> {
  level: "environment";
  accountId: null;
  cloudspaceId: null;
  machineId: null;
}

/** One account. */
export interface AccountLine extends LineFigures<Quantities> {
  level: "account";
  accountId: number;
  cloudspaceId: null;
  machineId: null;
}

/** The period line of an account without samples: 0 of every unit of the catalog. */
export function emptyAccountLine(accountId: number, name: string): AccountLine {
  const zero = Object.fromEntries(catalogUnits().map((u) => [u, 0])) as Quantities;
  return {
    level: "account", accountId, cloudspaceId: null, machineId: null, hourEpoch: null, name, sampleHours: 0, quantities: zero, unitHours: zero,
    cuSumOfMachines: 0, gatewayPiuHours: 0, cuAllocated: 0, cuAllocatedHours: 0, ownNicNu: 0,
  };
}

/** One cloud space of an account. */
export interface CloudspaceLine extends LineFigures<Quantities> {
  level: "cloudspace";
  accountId: number;
  cloudspaceId: number;
  machineId: null;
}

/** A cloud space's gateway in showback (`BillingReport.lines`): its NU and public IP, beside the machines. */
export interface GatewayLine extends LineFigures<Quantities> {
  level: "gateway";
  accountId: number;
  cloudspaceId: number;
  machineId: null;
}

/** One machine of a cloud space. */
export interface MachineLine extends LineFigures<MachineQuantities> {
  level: "machine";
  accountId: number;
  cloudspaceId: number;
  machineId: number;
}

/**
 * One line: one entity at one level, over the period or in one hour. Narrow it by `level`
 * (`if (line.level === "machine") line.machineId` is a number) and the ids above the level
 * are numbers, those below null; quantities are numbers, but a machine's NU is null.
 */
export type BillingLine = EnvironmentLine | AccountLine | CloudspaceLine | GatewayLine | MachineLine;

/** The line of a level: `LineOf<"account">` is `AccountLine`. */
export type LineOf<L extends LineLevel> = Extract<BillingLine, { level: L }>;

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


/** The levels a report of `params` shows: with an account id, the account and below; without, every level. */
export function levelsFor(params: BillingParams): readonly Level[] {
  return params.accountId === undefined ? LEVELS : LEVELS.filter((l) => l !== "environment");
}

/** The levels the `billing/calculate` shape of `params` shows: the environment alone, or the account and below. */
export function calculateLevels(params: BillingParams): readonly Level[] {
  return params.accountId === undefined ? ["environment"] : levelsFor(params);
}

/** True when `levels` are the environment alone: an engine then keeps no other sums (see `BillingEngine`). */
export const environmentOnly = (levels: readonly Level[]): boolean => levels.length === 1 && levels[0] === "environment";


function toLine(line: EngineLine, options: ResolvedBillingOptions): BillingLine {
  const { level, figures } = line;
  const divisor = options.per === "month" ? options.units.hoursPerMonth : 1;
  const unitHours = {} as Record<UnitName, number | null>;
  const quantities = {} as Record<UnitName, number | null>;
  for (const u of catalogUnits()) {
    const v = figures[u];
    unitHours[u] = v;
    quantities[u] = v === null ? null : isVolume(u) ? v : v / divisor;
  }
  const common = {
    hourEpoch: line.hourEpoch, sampleHours: line.sampleHours, cuSumOfMachines: figures.cuSum / divisor,
    gatewayPiuHours: figures.gatewayPiu, cuAllocated: figures.cuAllocated / divisor, cuAllocatedHours: figures.cuAllocated, ownNicNu: figures.ownNicNu,
  };
  // The engine gives each level its ids (those below it null) and a machine alone a null NU.
  if (level === "environment") {
    return { ...common, level, accountId: null, cloudspaceId: null, machineId: null, name: "", quantities: quantities as Quantities, unitHours: unitHours as Quantities };
  }
  const accountId = line.accountId!;
  if (level === "account") {
    return {
      ...common, level, accountId, cloudspaceId: null, machineId: null, name: nameOf(options.names, "account", accountId),
      quantities: quantities as Quantities, unitHours: unitHours as Quantities,
    };
  }
  const cloudspaceId = line.cloudspaceId!;
  if (level === "cloudspace") {
    return {
      ...common, level, accountId, cloudspaceId, machineId: null, name: nameOf(options.names, "cloudspace", cloudspaceId),
      quantities: quantities as Quantities, unitHours: unitHours as Quantities,
    };
  }
  const machineId = line.machineId!;
  return {
    ...common, level, accountId, cloudspaceId, machineId, name: nameOf(options.names, "machine", machineId),
    quantities: quantities as MachineQuantities, unitHours: unitHours as MachineQuantities,
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
  return (await billingPass(connection, params, options, levels)).lines;
}

/** The most cuts (price changes) a period may have to be billed from grouped facts (see `groupedFacts.ts`). */
const MAX_GROUPED_CUTS = 12;

/** The period lines of the given levels and what the engine saw of the data (for data quality), in one pass over the warehouse. */
export async function billingPass(
  connection: DuckDBConnection, params: BillingParams, options: BillingOptions = {}, levels: readonly Level[] = levelsFor(params),
): Promise<{ lines: BillingLine[]; parts: PeriodPart[] | undefined; seen: SeenData }> {
  checkParams(params);
  const resolved = resolveOptions(options);
  const splitAt = cutsWithin(options.splitAt, params);
  const alone = environmentOnly(levels);
  const engine = new BillingEngine(resolved.units, resolved.cuRollup, undefined, alone, splitAt);
  // the environment alone: from the facts grouped in the warehouse, where they answer to the bit
  // one account's levels: from the classes of its identical account-hours, weighted; grouped
  // queries run per part of the period: a period cut into days (the dashboard's) reads the facts once instead
  const grouped = splitAt.length <= MAX_GROUPED_CUTS && (alone || (params.accountId !== undefined && !levels.includes("environment")))
    && (await groupedReadable(connection, resolved.units))
    && (alone ? await addGroupedFacts(connection, params, resolved.units, splitAt, engine) : await addGroupedAccount(connection, params, resolved.units, splitAt, engine));
  // a grouped road that does not answer has fed the engine nothing: the facts row by row
  if (!grouped) for await (const facts of warehouseFacts(connection, params, resolved.units.externalNicType)) engine.add(facts);
  const lines = linesOf(engine.finish(), resolved, levels);
  return { lines, parts: partsOf(engine, params, splitAt, resolved, levels), seen: engine.seenData() };
}

/** The cuts of `splitAt` strictly inside the period, ascending, each once. */
export function cutsWithin(splitAt: readonly number[] | undefined, params: BillingParams): number[] {
  return [...new Set(splitAt ?? [])].filter((t) => t > params.start && t < params.end).sort((a, b) => a - b);
}

/** The lines of each part of the period an engine (finished) cut at `splitAt`; undefined without cuts. */
export function partsOf(
  engine: BillingEngine, params: BillingParams, splitAt: readonly number[], options: ResolvedBillingOptions, levels: readonly Level[],
): PeriodPart[] | undefined {
  if (splitAt.length === 0) return undefined;
  const bounds = [params.start, ...splitAt, params.end];
  return engine.partLines().map((lines, k) => ({ start: bounds[k]!, end: bounds[k + 1]!, lines: linesOf(lines, options, levels) }));
}

/** The engine's lines of the given levels as BillingLines (names, per-month quantities). */
export function linesOf(lines: readonly EngineLine[], options: ResolvedBillingOptions, levels: readonly Level[]): BillingLine[] {
  return lines.filter((l) => levels.includes(l.level)).map((l) => toLine(l, options));
}

/**
 * The hourly lines of the given levels, in batches of one hour (ordered by hour, then the
 * hierarchy): what `--detail hourly`, the Hourly sheet and FOCUS render. Same figures as
 * `periodLines`, from the same engine; the warehouse is read in windows of whole days and each hour's
 * lines are yielded as soon as the hour is complete (memory does not grow with the period).
 */
export async function* hourlyLines(
  connection: DuckDBConnection, params: BillingParams, options: BillingOptions = {}, levels: readonly Level[] = levelsFor(params),
): AsyncGenerator<BillingLine[]> {
  checkParams(params);
  const resolved = resolveOptions(options);
  const ready: BillingLine[][] = [];
  const engine = new BillingEngine(resolved.units, resolved.cuRollup, (lines) => {
    ready.push(lines.filter((l) => levels.includes(l.level)).map((l) => toLine(l, resolved)));
  });
  for await (const facts of warehouseFacts(connection, params, resolved.units.externalNicType)) {
    engine.add(facts);
    while (ready.length > 0) yield ready.shift()!;
  }
  engine.finish();
  while (ready.length > 0) yield ready.shift()!;
}

/**
 * The number of hourly lines `hourlyLines` would yield for these levels: an hour of the
 * environment, an account-hour, a cloud-space-hour, a billed machine record each make one.
 */
export async function hourlyLineCount(
  connection: DuckDBConnection, params: BillingParams, options: BillingOptions = {}, levels: readonly Level[] = levelsFor(params),
): Promise<number> {
  checkParams(params);
  const resolved = resolveOptions(options);
  const where = periodSql();
  const counts: Record<Level, string> = {
    environment: `SELECT count(DISTINCT hour_epoch) FROM account_hours WHERE ${where}`,
    account: `SELECT count(*) FROM account_hours WHERE ${where}`,
    cloudspace: `SELECT count(DISTINCT (account_id, hour_epoch, cloudspace_id)) FROM cloudspaces WHERE ${where}`,
    machine: `SELECT count(*) FROM machines WHERE ${where} AND type = $vmType`,
  };
  const reader = await connection.runAndReadAll(
    `SELECT ${levels.map((l) => `(${counts[l]})`).join(" + ")} AS n`, { ...paramValues(params), vmType: resolved.units.vmType }, paramTypes(),
  );
  return Number(reader.getRowObjectsJS()[0]!.n);
}
