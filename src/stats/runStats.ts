import type { DuckDBConnection, DuckDBValue } from "@duckdb/node-api";
import { UsageError } from "../base/errors.js";
import { isoUtc, parseTime } from "../base/time.js";
import { assembleSeries, type SeriesRow } from "./assembleSeries.js";
import { buildStatsSql, readingValues } from "./buildStatsSql.js";
import type { EntityQueries } from "./seriesDefinition.js";
import { selectSeries } from "./selectSeries.js";
import type { StatsEntity, StatsPeriod, StatsResponse } from "./types.js";
import { checkKnownInWarehouse } from "../base/unknownIds.js";

/** What `runStats` needs to know about the entity asked for. */
export interface StatsPlan {
  entity: StatsEntity;
  queries: EntityQueries;
  /** The machine or cloud space id; absent for accounts. */
  id?: number;
  /** The account: given, or (when `queries.accountsSql` is set) found. */
  accountId?: number;
}

/**
 * Computes the requested series of one entity, each once, in one query (each warehouse
 * table scanned once), laid out on the entity's sample hours in `[from, till)`. Throws a
 * UsageError for a bad period, a bad include name, an id found in several accounts when
 * no account was given, or an id (or account) the warehouse has never seen (UNKNOWN_ID, listing
 * the known ones or the nearest; an id known but without samples in the period gives empty series).
 */
export async function runStats(
  connection: DuckDBConnection,
  plan: StatsPlan,
  period: StatsPeriod,
): Promise<StatsResponse> {
  const { fromEpoch, tillEpoch } = parsePeriod(period.from, period.till);
  const definitions = selectSeries(plan.entity, plan.queries.series, period.include);
  for (const [what, value] of [
    ["id", plan.id],
    ["accountId", plan.accountId],
  ] as const) {
    if (value !== undefined && !Number.isSafeInteger(value))
      throw new UsageError(`bad ${plan.entity} ${what}: ${value} (a whole number)`);
  }
  const accountId = await resolveAccount(connection, plan, fromEpoch, tillEpoch);
  const params: Record<string, bigint | number> = {
    from: BigInt(fromEpoch),
    till: BigInt(tillEpoch),
    ...readingValues(period.readings),
  };
  if (plan.id !== undefined) params.id = BigInt(plan.id);
  const rows: SeriesRow[][] = definitions.map(() => []);
  const time: number[] = [];
  if (accountId !== undefined) {
    params.account = BigInt(accountId);
    for (const r of await query(connection, buildStatsSql(plan.queries, definitions, period.readings), params)) {
      const hourEpoch = Number(r.hour_epoch);
      const series = Number(r.series);
      if (series < 0) time.push(hourEpoch);
      else
        rows[series]!.push({
          hourEpoch,
          k1: r.k1 as string | null,
          k2: r.k2 as string | null,
          value: r.value === null ? null : Number(r.value),
        });
    }
  }
  if (time.length === 0) {
    // no sample in the period: an id never seen is an error, not an empty series
    if (plan.entity === "account") await checkKnownInWarehouse(connection, "account", plan.accountId!);
    else {
      if (plan.accountId !== undefined) await checkKnownInWarehouse(connection, "account", plan.accountId);
      await checkKnownInWarehouse(connection, plan.entity, plan.id!, plan.accountId);
    }
  }
  time.sort((a, b) => a - b);
  const indexOfHour = new Map(time.map((t, i) => [t, i]));
  const series: StatsResponse["series"] = {};
  definitions.forEach((definition, i) => {
    series[definition.name] = assembleSeries(definition.layout, time.length, indexOfHour, rows[i]!);
  });
  return { time, series };
}

/**
 * The period `[from, till)` in epoch seconds, from epoch seconds or ISO 8601 (`what` names the
 * options in messages). Throws a UsageError for a bad time or when `till` is not after `from`.
 */
export function parsePeriod(
  from: number | string,
  till: number | string,
  what = { from: "from", till: "till" },
): { fromEpoch: number; tillEpoch: number } {
  const fromEpoch = parseTime(from, what.from);
  const tillEpoch = parseTime(till, what.till);
  if (tillEpoch <= fromEpoch) {
    throw new UsageError(
      `${what.till} (${isoUtc(tillEpoch)}) must be after ${what.from} (${isoUtc(fromEpoch)}): the period is [from, till)`,
    );
  }
  return { fromEpoch, tillEpoch };
}

/**
 * The account whose rows a request reads: the plan's `accountId` when given, else (machines
 * and cloud spaces) the one account holding the id in `[fromEpoch, tillEpoch)`; undefined
 * when none does. Throws a UsageError when several do.
 */
export async function resolveAccount(
  connection: DuckDBConnection,
  plan: StatsPlan,
  fromEpoch: number,
  tillEpoch: number,
): Promise<number | undefined> {
  if (plan.accountId !== undefined || plan.queries.accountsSql === undefined || plan.id === undefined)
    return plan.accountId;
  const params = { from: BigInt(fromEpoch), till: BigInt(tillEpoch), id: BigInt(plan.id) };
  const rows = await query(connection, plan.queries.accountsSql, params);
  const accounts = rows.map((r) => Number(r.account_id));
  if (accounts.length > 1) {
    throw new UsageError(
      `${plan.entity} ${plan.id} has samples in ${accounts.length} accounts in the period (${accounts.join(", ")}): ` +
        "name one with accountId: ID",
      { code: "AMBIGUOUS_ID" },
    );
  }
  return accounts[0];
}

async function query(
  connection: DuckDBConnection,
  sql: string,
  params: Record<string, bigint | number>,
): Promise<Record<string, DuckDBValue>[]> {
  const used: Record<string, bigint | number> = {};
  for (const [name, value] of Object.entries(params)) if (sql.includes(`$${name}`)) used[name] = value;
  const reader = await connection.runAndReadAll(sql, used);
  return reader.getRowObjects();
}
