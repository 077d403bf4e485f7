import type { DuckDBConnection, DuckDBValue } from "@duckdb/node-api";
import { withMemoryToSpare } from "../base/duckdb.js";
import type { Period } from "../base/period.js";
import type { BillingEngine } from "./billingEngine.js";
import type { HourTotals } from "./engineGrouped.js";
import {
  ACCOUNT_HOURS,
  ACCOUNT_HOURS_PER_QUERY,
  columns,
  ENVIRONMENT_HOURS,
  EXACT,
  inRun,
  NotExact,
  paramTypesOf,
  queryValues,
  seenOfRuns,
  VM_HOURS,
  VM_HOURS_FACTS,
} from "./groupedFacts.js";
import { groupedRuns, type RunsBy } from "./groupedRuns.js";
import { streamChunks } from "./readColumns.js";
import type { Units } from "./units.js";
import { CONFIGURATION_FACTS, configurationAt, emptyVmFacts } from "../load/vmFacts.js";

/**
 * The grouped roads of the environment and the accounts (`groupedFacts.ts` has their queries):
 * the period read in runs of whole hours (`hourRuns`), each run's VM configurations fed to the
 * engine as DuckDB gives them, a chunk at a time, copied from the columns into one object (the
 * engine keeps none); only the run's hours' totals are held, to be fed when the run is read
 * (the formulas of an hour's totals need all of its VM-hours). So the memory is a run's hours and
 * a chunk, however many configurations the period has (a month of 20,000 machines cut at every
 * midnight has 817,904 of its accounts'). Exact sums add up in any order: the figures are those
 * of the configurations and hours fed all at once, to the bit.
 */

/**
 * Account-hours read by one query of the accounts' grouped road at most (see
 * {@link ACCOUNT_HOURS_PER_QUERY}): DuckDB's grouping holds a row per account, part of the period
 * and VM configuration of a run (a machine keeps its configuration about a day), so its memory is
 * that of a run's machines; about three days of 100 accounts, a month of 10 (docs/performance.md).
 */
export const GROUPED_ACCOUNTS_HOURS_PER_QUERY = 7_200;

/** The environment's hours summed from the accounts' (a run of accounts holds part of each hour): fed once every run is read. */
type EnvironmentHours = Map<number, HourTotals & { accounts: number }>;

/** Feeds the engine the environment's hours summed over the runs, in order; throws `NotExact` when a sum would not be exact. */
function feedEnvironment(engine: BillingEngine, environment: EnvironmentHours): void {
  const hours = [...environment.values()].sort((a, b) => a.hourEpoch - b.hourEpoch);
  if (hours.some((h) => h.memMb >= EXACT || h.vcpus >= EXACT || h.bytes >= EXACT)) throw new NotExact();
  for (const h of hours) engine.grouped.hourTotals(h);
}

/** A query that ran out of memory after some of its rows were read: run again, they would count twice. */
class PartlyFed extends Error {}

/** The totals of a run's hours (of accounts, or of the environment), one slot each, found by their key. */
class RunHours {
  readonly slot = new Map<number, number>();
  readonly hourEpoch: Float64Array;
  readonly id: Float64Array;
  readonly memMb: Float64Array;
  readonly vcpus: Float64Array;
  readonly bytes: Float64Array;
  readonly gatewayPiu: Float64Array;

  /** `read`: the columns of `ACCOUNT_HOURS` (`byAccount`) or of `ENVIRONMENT_HOURS`: the id (an account, or the count of account-hours), the hour, Σ bytes, public IPs, those not whole. */
  constructor(
    read: ArrayLike<number>[],
    readonly byAccount: boolean,
  ) {
    const [first, second, bytes, piu, fractional] = read;
    const [ids, hours] = byAccount ? [first!, second!] : [second!, first!];
    const n = hours.length;
    this.hourEpoch = Float64Array.from(hours);
    this.id = Float64Array.from(ids);
    this.bytes = Float64Array.from(bytes!);
    this.gatewayPiu = Float64Array.from(piu!);
    this.memMb = new Float64Array(n);
    this.vcpus = new Float64Array(n);
    for (let r = 0; r < n; r++) {
      if (fractional![r]! > 0) throw new NotExact();
      this.slot.set(this.key(byAccount ? ids[r]! : -1, hours[r]!), r);
    }
  }

  /** An account-hour's key (exact for ids below 2^32), or an hour's (account -1). */
  key(accountId: number, hourEpoch: number): number {
    return this.byAccount ? accountId * 2 ** 21 + ((hourEpoch / 3600) % 2 ** 21) : hourEpoch;
  }

  /** The slot of the hour a VM-hours row of `VM_HOURS` sums. */
  of(accountId: number, hourEpoch: number): number {
    const at = this.slot.get(this.key(accountId, hourEpoch));
    if (at === undefined)
      throw new Error(
        `internal: VM-hours of account ${accountId} in hour ${hourEpoch}, which is not one of its account-hours`,
      );
    return at;
  }

  /**
   * Feeds the engine the run's hours (of accounts: each account-hour's, their sums kept in
   * `environment` for {@link feedEnvironment}); throws `NotExact` first when a total would not be exact.
   */
  feed(engine: BillingEngine, environment: EnvironmentHours): void {
    const n = this.hourEpoch.length;
    const inexact = (k: number) => this.memMb[k]! >= EXACT || this.vcpus[k]! >= EXACT || this.bytes[k]! >= EXACT;
    for (let k = 0; k < n; k++) if (inexact(k)) throw new NotExact();
    if (!this.byAccount) {
      for (let k = 0; k < n; k++) engine.grouped.hourTotals({ ...this.totals(k), accounts: this.id[k]! });
      return;
    }
    // the environment's hours: the Σ of their account-hours' totals (whole numbers, exact below 2^53)
    for (let k = 0; k < n; k++) {
      const totals = this.totals(k);
      engine.grouped.accountHourTotals({ ...totals, accountId: this.id[k]! });
      const hour = environment.get(totals.hourEpoch);
      if (hour === undefined) environment.set(totals.hourEpoch, { ...totals, accounts: 1 });
      else {
        hour.accounts++;
        hour.memMb += totals.memMb;
        hour.vcpus += totals.vcpus;
        hour.bytes += totals.bytes;
        hour.gatewayPiu += totals.gatewayPiu;
      }
    }
  }

  private totals(k: number) {
    return {
      hourEpoch: this.hourEpoch[k]!,
      memMb: this.memMb[k]!,
      vcpus: this.vcpus[k]!,
      bytes: this.bytes[k]!,
      gatewayPiu: this.gatewayPiu[k]!,
    };
  }
}

/**
 * Feeds an engine a run of hours grouped: its hours' totals and its VM configurations per part
 * (of the environment; with `byAccount`, of each account too, and each account-hour's totals).
 * Throws `NotExact` when a sum would not be exact, having fed some of it.
 */
async function feedRun(
  connection: DuckDBConnection,
  values: Record<string, DuckDBValue>,
  units: Units,
  cut: boolean,
  byAccount: boolean,
  engine: BillingEngine,
  environment: EnvironmentHours,
): Promise<void> {
  const hours = new RunHours(
    (await columns(
      connection,
      inRun(byAccount ? ACCOUNT_HOURS : ENVIRONMENT_HOURS, values),
      values,
    )) as ArrayLike<number>[],
    byAccount,
  );
  const billable = units.billableStatuses === null ? null : new Set(units.billableStatuses);
  const configuration = emptyVmFacts(); // the facts summed per hour (the bytes) stay 0
  const status = VM_HOURS_FACTS + CONFIGURATION_FACTS.indexOf("status");
  const sql = inRun(
    byAccount ? (cut ? VM_HOURS.cut : VM_HOURS.whole) : cut ? VM_HOURS.environmentCut : VM_HOURS.environmentWhole,
    values,
  );
  let fed = false;
  await withMemoryToSpare(connection, async () => {
    if (fed) throw new PartlyFed();
    await streamChunks(connection, sql, values, paramTypesOf(), (read) => {
      const [hourEpochs, parts, accountIds, counts, memSums, vcpuSums, bytesSums, fractional] =
        read as ArrayLike<number>[];
      const statuses = read[status] as ArrayLike<string>;
      fed ||= hourEpochs!.length > 0; // the hours' sums too: run again, they would count twice
      for (let r = 0; r < hourEpochs!.length; r++) {
        if (fractional![r]! > 0) throw new NotExact();
        const accountId = accountIds![r]!;
        if (hourEpochs![r] === -1) {
          configurationAt(read, VM_HOURS_FACTS, r, configuration);
          if (byAccount) engine.grouped.accountAndEnvironmentVmHours(parts![r]!, accountId, configuration, counts![r]!);
          else engine.grouped.vmHours(parts![r]!, configuration, counts![r]!);
          continue;
        }
        const k = hours.of(accountId, hourEpochs![r]!);
        if (billable === null || billable.has(statuses[r]!)) {
          hours.memMb[k] += memSums![r]!;
          hours.vcpus[k] += vcpuSums![r]!;
        }
        hours.bytes[k] += bytesSums![r]!;
      }
    });
  });
  hours.feed(engine, environment);
}

/** Feeds an engine the runs' grouped facts (see {@link feedRun}); false when a sum would not be exact, having fed some of them. */
async function feedRuns(
  connection: DuckDBConnection,
  runs: readonly Record<string, DuckDBValue>[],
  units: Units,
  cut: boolean,
  byAccount: boolean,
  engine: BillingEngine,
): Promise<boolean> {
  const environment: EnvironmentHours = new Map();
  try {
    for (const values of runs) await feedRun(connection, values, units, cut, byAccount, engine, environment);
    if (byAccount) feedEnvironment(engine, environment);
    return true;
  } catch (error) {
    if (error instanceof NotExact || error instanceof PartlyFed) return false;
    throw error;
  }
}

/** What a grouped road is given: the warehouse, the period, the units, its cuts, the engine (made with them), and the account-hours a query reads at most. */
type GroupedArgs = [
  connection: DuckDBConnection,
  params: Period,
  units: Units,
  splitAt: readonly number[],
  engine: BillingEngine,
  accountHoursPerQuery?: number,
  /** Runs of hours or of accounts (default: whichever reads fewer rows, see `groupedRuns`). */
  runsBy?: RunsBy,
];

/**
 * Feeds an engine the environment's grouped facts of the period (made with `splitAt` cutting
 * `[start, end)` into parts): its VM configurations per part and its hours, grouped per hour in
 * DuckDB (nothing per account-hour), in runs of at most `accountHoursPerQuery` account-hours
 * (default {@link ACCOUNT_HOURS_PER_QUERY}), and what data quality reads. False when a sum would
 * not be exact (a value that is not whole, or a total of 2^53 or more), having fed some of the
 * facts: billing then reads them another way, into an engine of its own.
 */
export const addGroupedFacts = (...args: GroupedArgs): Promise<boolean> =>
  addGrouped(false, ACCOUNT_HOURS_PER_QUERY, ...args);

/**
 * Feeds an engine (made with `splitAt`; the lines of the environment and the accounts, none
 * below) the period grouped, in runs of hours (default {@link GROUPED_ACCOUNTS_HOURS_PER_QUERY}
 * account-hours): each account-hour's totals and each account's VM configurations per part (the
 * account's own CU, NU and public IPs from the first, its summed units from the second), the
 * environment from their sums; what data quality reads. Nothing per machine, nor per
 * configuration. False when a sum would not be exact, having fed some of it.
 */
export const addGroupedAccounts = (...args: GroupedArgs): Promise<boolean> =>
  addGrouped(true, GROUPED_ACCOUNTS_HOURS_PER_QUERY, ...args);

/** {@link addGroupedFacts} (`byAccount` false) or {@link addGroupedAccounts}. */
async function addGrouped(
  byAccount: boolean,
  defaultPerQuery: number,
  ...[connection, params, units, splitAt, engine, accountHoursPerQuery = defaultPerQuery, runsBy]: GroupedArgs
): Promise<boolean> {
  const values = queryValues(params, units, splitAt);
  // the environment's road sums each hour in one query: its runs are of hours
  const runs = await groupedRuns(connection, values, accountHoursPerQuery, byAccount ? runsBy : "hours");
  if (!(await feedRuns(connection, runs, units, splitAt.length > 0, byAccount, engine))) return false;
  engine.grouped.seen(await seenOfRuns(connection, runs, units.vmType));
  return true;
}
