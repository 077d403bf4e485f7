import type { DuckDBConnection } from "@duckdb/node-api";

/**
 * Every account-hour held, with the SHA-256 of its loaded files (hex, sorted, space-separated
 * when an hour has several, as per-cloud-space files give): what an issued document records of the
 * hours it was computed from (`register_basis_hours`), and what the warehouse holds now.
 */
export const HELD_HOUR_FILES_SQL = `
  SELECT h.account_id, h.hour_epoch, coalesce(string_agg(f.content_sha256, ' ' ORDER BY f.content_sha256), '') AS files_sha256
  FROM account_hours h LEFT JOIN files f ON f.account_id = h.account_id AND f.hour_epoch = h.hour_epoch AND f.status = 'loaded'
  GROUP BY h.account_id, h.hour_epoch`;

/** An hour held: its start (epoch seconds) and its files' SHA-256 (see {@link HELD_HOUR_FILES_SQL}). */
export interface HeldHour {
  hourEpoch: number;
  filesSha256: string;
}

/** The hours of `[start, end)` each account holds, ascending, with their files' SHA-256, by account id. */
export async function heldHourFiles(
  connection: DuckDBConnection,
  period: { start: number; end: number },
): Promise<Map<number, HeldHour[]>> {
  const rows = (
    await connection.runAndReadAll(
      `SELECT account_id, hour_epoch, files_sha256 FROM (${HELD_HOUR_FILES_SQL}) WHERE hour_epoch >= $start AND hour_epoch < $end ORDER BY 1, 2`,
      { start: period.start, end: period.end },
    )
  ).getRowsJS();
  const held = new Map<number, HeldHour[]>();
  for (const [accountId, hourEpoch, filesSha256] of rows) {
    const hours = held.get(Number(accountId)) ?? [];
    if (hours.length === 0) held.set(Number(accountId), hours);
    hours.push({ hourEpoch: Number(hourEpoch), filesSha256: String(filesSha256) });
  }
  return held;
}
