import type { DuckDBConnection } from "@duckdb/node-api";
import { UsageError } from "../base/errors.js";
import { isoUtc } from "../base/time.js";

/** An hour of an account accepted as lost at source. */
export interface AcceptedHour {
  accountId: number;
  hourEpoch: number;
}

/**
 * Accepts hours lost at source (`status --accept-lost HOUR`): each hour, for every account (or
 * those of `accountIds`) that `sync` gave it up for, is logged `accepted` in `sync_log`, so
 * `status` lists it and no longer alarms on it, while any other missing or lost hour still does.
 * Returns the hours accepted now (one accepted before is not logged again). An hour no account
 * (of those) lost is a UsageError: only a lost hour is accepted, never one still asked for.
 * `connection`: the warehouse opened to write.
 */
export async function acceptLostHours(
  connection: DuckDBConnection,
  hours: readonly number[],
  accountIds?: readonly number[],
): Promise<AcceptedHour[]> {
  const rows = (
    await connection.runAndReadAll(
      `SELECT account_id, hour_epoch, bool_or(event = 'accepted') AS accepted FROM sync_log
     WHERE event IN ('lost', 'accepted') GROUP BY 1, 2 HAVING bool_or(event = 'lost') ORDER BY 1, 2`,
    )
  )
    .getRowsJS()
    .map(([a, h, accepted]) => ({ accountId: Number(a), hourEpoch: Number(h), accepted: accepted === true }));
  const lost = rows.filter((r) => accountIds === undefined || accountIds.includes(r.accountId));
  const notLost = hours.filter((h) => !lost.some((r) => r.hourEpoch === h));
  if (notLost.length > 0) {
    throw new UsageError(
      `not lost at source${accountIds ? ` for account ${accountIds.join(", ")}` : ""}: ${notLost.map(isoUtc).join(", ")}: only an hour sync gave up is accepted (status lists them); a missing hour is still asked for`,
    );
  }
  const fresh = lost.filter((r) => hours.includes(r.hourEpoch) && !r.accepted);
  for (const r of fresh) {
    await connection.run("INSERT INTO sync_log (account_id, hour_epoch, event) VALUES ($a, $h, 'accepted')", {
      a: r.accountId,
      h: r.hourEpoch,
    });
  }
  return fresh.map(({ accountId, hourEpoch }) => ({ accountId, hourEpoch }));
}
