import type { DuckDBConnection } from "@duckdb/node-api";
import { bill } from "../billEntry/bill.js";
import { calculateOf, type CalculateAccount, type CalculateResult, type Consumption } from "../billing/calculate.js";
import type { CuRollup } from "../billing/unitNames.js";
import type { Units } from "../billing/units.js";
import { UsageError } from "../base/errors.js";
import { callService } from "../fetch/callService.js";
import { listAccounts } from "../fetch/listEntities.js";
import { openSession } from "../fetch/serviceSession.js";
import type { FetchAuth, RequestPolicy } from "../fetch/types.js";
import { HOUR_SECONDS, hourCeil } from "../sync/syncChunks.js";
import { parseTime } from "../base/time.js";
import { accountTree, environmentFigures, type Figures } from "./billTree.js";
import { suggestUnits, unitFactors, type SuggestedUnits, type UnitFactor } from "./unitFactors.js";
import { compareBills, type ComparedCounts, type ReconcileRow } from "./compareBills.js";

export const CALCULATE_PATH = "/restmachine/cloudapi/billing/calculate";

/** How the platform reads `end`: `exclusive` (half-open, like ours) or `inclusive` (it counts the hour `end`). */
export type PlatformEnd = "exclusive" | "inclusive";

/** Options of {@link reconcile}. */
export interface ReconcileOptions extends RequestPolicy {
  /** The service base address `{base_url}`. */
  url: string;
  auth: FetchAuth;
  /** Start of the period, inclusive: epoch seconds or ISO 8601. */
  start: number | string;
  /** End of the period, exclusive: epoch seconds or ISO 8601. */
  end: number | string;
  /** Accounts to compare in detail. Default: those of `accounts/list` and those with samples in our data in the period. */
  accountIds?: number[];
  /** Largest relative difference that still agrees. Default 1e-9. */
  tolerance?: number;
  /** How the platform reads `end`. Default `exclusive`: it is asked `end` as is; `inclusive`: it is asked the period's last hour. */
  platformEnd?: PlatformEnd;
  /** Our CU rollup. Default `aggregate`. */
  cuRollup?: CuRollup;
  /** Our unit constants. Default the published ones. */
  units?: Units;
}

/** What {@link reconcile} found. */
export interface ReconcileReport {
  /** The period compared, `[startEpoch, endEpoch)`. */
  startEpoch: number;
  endEpoch: number;
  platformEnd: PlatformEnd;
  /** The `start` and `end` sent to billing/calculate. */
  platformRequest: { start: number; end: number };
  cuRollup: CuRollup;
  tolerance: number;
  /** The accounts compared in detail. */
  accountIds: number[];
  compared: ComparedCounts;
  /** Every figure beyond the tolerance and every entity or figure on one side only. */
  rows: ReconcileRow[];
  /** True when `rows` is empty. */
  agree: boolean;
  /** Per unit, the factor between the platform's figures and ours (environment, and its range over the accounts). */
  factors: UnitFactor[];
  /**
   * The units file that would make the units a constant explains agree (`changes` over the
   * units used): undefined when no unit differs by one factor shared by every account.
   */
  suggestedUnits?: SuggestedUnits;
}

/** Default relative tolerance of a reconciliation. */
export const DEFAULT_TOLERANCE = 1e-9;

/** The period and the comparison's options, checked (a UsageError names a bad one), with their defaults. */
function checkedOptions(options: ReconcileOptions): {
  startEpoch: number;
  endEpoch: number;
  tolerance: number;
  platformEnd: PlatformEnd;
} {
  const startEpoch = parseTime(options.start, "start");
  const endEpoch = parseTime(options.end, "end");
  if (endEpoch <= startEpoch)
    throw new UsageError(
      `the end (${String(options.end)}) is not after the start (${String(options.start)}): the period is [start, end)`,
    );
  const tolerance = options.tolerance ?? DEFAULT_TOLERANCE;
  if (!(tolerance >= 0)) throw new UsageError(`bad tolerance ${tolerance}: use a relative difference ≥ 0, e.g. 1e-9`);
  const platformEnd = options.platformEnd ?? "exclusive";
  if (platformEnd !== "exclusive" && platformEnd !== "inclusive")
    throw new UsageError(`bad platform end ${String(platformEnd)}: use exclusive or inclusive`);
  for (const id of options.accountIds ?? []) {
    if (!Number.isSafeInteger(id) || id < 1) throw new UsageError(`bad account id ${id}: use a positive whole number`);
  }
  return { startEpoch, endEpoch, tolerance, platformEnd };
}

/** Every account of the platform's list, and every account our warehouse holds hours of in `[startEpoch, endEpoch)`. */
async function everyAccount(
  connection: DuckDBConnection,
  session: Awaited<ReturnType<typeof openSession>>,
  startEpoch: number,
  endEpoch: number,
): Promise<number[]> {
  const ours = (
    await connection.runAndReadAll(
      "SELECT DISTINCT account_id FROM account_hours WHERE hour_epoch >= $s AND hour_epoch < $e",
      { s: startEpoch, e: endEpoch },
    )
  )
    .getRowObjectsJS()
    .map((r) => Number(r.account_id));
  return [...(await listAccounts(session)).map((a) => a.id), ...ours];
}

/**
 * Our `billing/calculate` of the period, of one account or the environment (impossible values
 * count 0: `check` names them); an account of the platform's our data never saw has zeros.
 */
async function ourCalculate(
  connection: DuckDBConnection,
  period: { start: number; end: number; accountId?: number },
  billing: { cuRollup: CuRollup; units?: Units },
): Promise<CalculateResult> {
  try {
    return (
      await bill({
        source: { connection },
        period,
        rules: billing,
        produce: { calculate: true },
        skipBad: true,
        allowEmpty: true,
      })
    ).calculate!;
  } catch (error) {
    if (error instanceof UsageError && error.code === "UNKNOWN_ID") return calculateOf([], period, billing);
    throw error;
  }
}

/**
 * Compares our bill of `[start, end)` over the warehouse `connection` with the platform's
 * (`GET billing/calculate`, seed 4.4): the environment's total, then each account, its
 * cloud spaces and machines, unit by unit (CU, SU, TU, NU). Returns every figure differing
 * beyond the relative tolerance and every entity present on one side only; never throws for
 * a difference. Throws UsageError for bad options, FetchError when it cannot log in or call
 * (FETCH_BAD_ANSWER for an answer not in the seed's shape). No message holds a secret.
 */
export async function reconcile(connection: DuckDBConnection, options: ReconcileOptions): Promise<ReconcileReport> {
  const { startEpoch, endEpoch, tolerance, platformEnd } = checkedOptions(options);
  const cuRollup = options.cuRollup ?? "aggregate";
  const billing = { cuRollup, units: options.units };
  const request = {
    start: startEpoch,
    end: platformEnd === "inclusive" ? hourCeil(endEpoch) - HOUR_SECONDS : endEpoch,
  };

  const session = await openSession(options.url, options.auth, options);
  const ask = (accountId?: number) =>
    callService(session, "GET", CALCULATE_PATH, {
      start: String(request.start),
      end: String(request.end),
      ...(accountId === undefined ? {} : { accountId: String(accountId) }),
    });
  const accountIds = [
    ...new Set(options.accountIds ?? (await everyAccount(connection, session, startEpoch, endEpoch))),
  ].sort((a, b) => a - b);

  const comparison = compareBills(tolerance);
  const where = (accountId?: number) =>
    `GET billing/calculate${accountId === undefined ? "" : ` (account ${accountId})`}`;
  const calculate = (accountId?: number) =>
    ourCalculate(connection, { start: startEpoch, end: endEpoch, accountId }, billing);
  const environment = (await calculate()) as { consumption: Consumption };
  const platformEnvironment = environmentFigures(await ask(), where());
  comparison.entity("environment", {}, "", environment.consumption, platformEnvironment);
  const accounts: { ours: Figures; platform: Figures }[] = [];
  for (const accountId of accountIds) {
    const ours = accountTree((await calculate(accountId)) as { account: CalculateAccount }, accountId, "our bill");
    const platform = accountTree(await ask(accountId), accountId, where(accountId));
    comparison.account(accountId, ours, platform);
    accounts.push({ ours: ours.consumption, platform: platform.consumption });
  }
  const factors = unitFactors({ ours: environment.consumption, platform: platformEnvironment }, accounts, tolerance);
  return {
    startEpoch,
    endEpoch,
    platformEnd,
    platformRequest: request,
    cuRollup,
    tolerance,
    accountIds,
    compared: comparison.compared,
    rows: comparison.rows,
    agree: comparison.rows.length === 0,
    factors,
    suggestedUnits: suggestUnits(factors, options.units),
  };
}
