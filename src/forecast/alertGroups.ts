import type { DuckDBConnection } from "@duckdb/node-api";
import type { ResolvedBillingOptions } from "../billing/billingOptions.js";
import { factsReadable } from "../billing/warehouseFacts.js";

const HOUR = 3600;

/**
 * The entities (machines, cloud spaces, the account) of each account held in `[start, end)`:
 * what its anomalies keep, per hour. The machines are counted in the facts stored at ingest when
 * the pass reads them (a row per machine-hour, as `machines`, but a fraction of its columns to scan).
 */
async function entitiesOf(
  connection: DuckDBConnection,
  start: number,
  end: number,
  options: ResolvedBillingOptions,
): Promise<Map<number, number>> {
  const machines = (await factsReadable(connection, options.units.externalNicType)) ? "machine_facts" : "machines";
  const reader = await connection.runAndReadAll(
    `WITH held AS (SELECT * FROM account_hours WHERE hour_epoch >= $start AND hour_epoch < $end),
       m AS (SELECT account_id, count(DISTINCT (cloudspace_id, machine_id)) AS n FROM ${machines} WHERE hour_epoch >= $start AND hour_epoch < $end GROUP BY ALL),
       c AS (SELECT account_id, count(DISTINCT cloudspace_id) AS n FROM cloudspaces WHERE hour_epoch >= $start AND hour_epoch < $end GROUP BY ALL)
     SELECT a.account_id::DOUBLE AS id, (coalesce(m.n, 0) + coalesce(c.n, 0) + 1)::DOUBLE AS n
     FROM (SELECT DISTINCT account_id FROM held) a LEFT JOIN m USING (account_id) LEFT JOIN c USING (account_id)`,
    { start: BigInt(start), end: BigInt(end) },
  );
  return new Map(reader.getRowObjectsJS().map((r) => [Number(r.id), Number(r.n)]));
}

/** The accounts in groups whose anomalies keep at most `max` entity-hours each (an account over it alone), by id. */
function accountGroups(entities: Map<number, number>, hours: number, max: number): number[][] {
  const groups: number[][] = [];
  let held = Number.POSITIVE_INFINITY;
  for (const [id, n] of [...entities].sort((a, b) => a[0] - b[0])) {
    if (held + n * hours > max) {
      groups.push([]);
      held = 0;
    }
    groups.at(-1)!.push(id);
    held += n * hours;
  }
  return groups;
}

/**
 * The accounts held in `[start, end)` in groups whose anomalies keep at most `max` entity-hours
 * each (an account over it alone), by id: one group when they all fit.
 */
export async function alertGroups(
  connection: DuckDBConnection,
  start: number,
  end: number,
  max: number,
  options: ResolvedBillingOptions,
): Promise<number[][]> {
  return accountGroups(await entitiesOf(connection, start, end, options), (end - start) / HOUR, max);
}
