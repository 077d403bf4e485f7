import type { DuckDBConnection, DuckDBValue } from "@duckdb/node-api";
import { runsWithin } from "../base/period.js";
import { columns, hourRuns, rows, WHERE } from "./groupedFacts.js";

/**
 * The runs a grouped road reads a period in (docs/performance.md, "The dashboard's first page"):
 * runs of whole hours of every account (`hourRuns`), or runs of whole accounts over the period,
 * whichever reads fewer of `machine_facts`' rows. DuckDB skips the row groups whose account ids or
 * hours lie outside a query's, so a table written account by account (as an ingest of many hours
 * writes it) is read once by runs of accounts and once per run by runs of hours, and a table
 * written hour by hour the other way round. Either way the figures are the same: each is a sum of
 * its account-hours', exact.
 */

/** Runs of whole hours of every account, or of whole accounts over the period. */
export type RunsBy = "hours" | "accounts";

/** The account-hours of the period per account. */
const ACCOUNTS = `SELECT account_id::DOUBLE, count(*)::DOUBLE FROM account_hours WHERE ${WHERE} GROUP BY ALL ORDER BY ALL`;

/**
 * The query values of `values`'s period cut into runs of whole accounts of at most half of
 * `perQuery` account-hours each (but an account holding more), in order: a run of accounts reads
 * only its accounts' row groups, so smaller runs cost no more reading, and DuckDB's grouping holds
 * half as many configurations (docs/performance.md).
 */
async function accountRuns(
  connection: DuckDBConnection,
  values: Record<string, DuckDBValue>,
  perQuery: number,
): Promise<Record<string, DuckDBValue>[]> {
  const [accounts, counts] = (await columns(connection, ACCOUNTS, values)) as ArrayLike<number>[];
  return runsWithin(accounts!, counts!, 1, Math.max(1, Math.floor(perQuery / 2))).map(([from, to]) => ({
    ...values,
    accountFrom: BigInt(from),
    accountTo: BigInt(to - 1),
  }));
}

/** Each row group of `machine_facts`: its rows and the least and greatest account id and hour it holds. */
export interface RowGroup {
  rows: number;
  account: [number, number];
  hour: [number, number];
}

const STATS = /\[Min: (-?\d+), Max: (-?\d+)\]/;

/** The row groups of `machine_facts` from DuckDB's storage statistics; undefined when they do not read as expected. */
export async function rowGroups(connection: DuckDBConnection): Promise<RowGroup[] | undefined> {
  const groups = new Map<number, RowGroup>();
  const read = await rows(
    connection,
    `SELECT row_group_id::DOUBLE, column_name, count::DOUBLE, stats FROM pragma_storage_info('machine_facts')
     WHERE column_name IN ('account_id', 'hour_epoch') AND segment_type <> 'VALIDITY'`,
    {},
  );
  for (const [id, column, count, stats] of read) {
    const m = STATS.exec(String(stats));
    if (m === null) return undefined;
    const [min, max] = [Number(m[1]), Number(m[2])];
    let group = groups.get(id as number);
    if (group === undefined)
      groups.set(id as number, (group = { rows: 0, account: [Infinity, -Infinity], hour: [Infinity, -Infinity] }));
    const range = column === "account_id" ? group.account : group.hour;
    if (column === "account_id") group.rows += count as number;
    range[0] = Math.min(range[0], min);
    range[1] = Math.max(range[1], max);
  }
  return [...groups.values()];
}

/** The rows of the row groups a run's query reads (those its accounts' and hours' ranges overlap), over every run. */
function rowsRead(groups: readonly RowGroup[], runs: readonly Record<string, DuckDBValue>[]): number {
  let read = 0;
  for (const run of runs) {
    const account = [Number(run.accountFrom ?? -Infinity), Number(run.accountTo ?? Infinity)];
    const hour = [Number(run.start), Number(run.end) - 1];
    for (const g of groups)
      if (g.account[0] <= account[1]! && g.account[1] >= account[0]! && g.hour[0] <= hour[1]! && g.hour[1] >= hour[0]!)
        read += g.rows;
  }
  return read;
}

/** The runs of accounts when they read fewer rows of `groups` than the runs of hours (see {@link groupedRuns}); else those of hours. */
export function fewerRowsRead<Run extends Record<string, DuckDBValue>>(
  groups: readonly RowGroup[],
  byHours: Run[],
  byAccounts: Run[],
): Run[] {
  return rowsRead(groups, byAccounts) < rowsRead(groups, byHours) ? byAccounts : byHours;
}

/**
 * The runs to read `values`'s period in, of at most `perQuery` account-hours each: of whole
 * hours, or of whole accounts when those read fewer row groups of `machine_facts` (see above);
 * runs of hours when the period is one run, or DuckDB's statistics do not read as expected.
 */
export async function groupedRuns(
  connection: DuckDBConnection,
  values: Record<string, DuckDBValue>,
  perQuery: number,
  by?: RunsBy,
): Promise<Record<string, DuckDBValue>[]> {
  if (by === "accounts") return accountRuns(connection, values, perQuery);
  const byHours = await hourRuns(connection, values, perQuery);
  if (by === "hours" || byHours.length <= 1 || values.account !== null) return byHours;
  const byAccounts = await accountRuns(connection, values, perQuery);
  const groups = await rowGroups(connection);
  return groups === undefined ? byHours : fewerRowsRead(groups, byHours, byAccounts);
}
