import type { DuckDBConnection } from "@duckdb/node-api";
import { HELD_HOUR_FILES_SQL } from "./heldHourFiles.js";
import { hasRegister } from "./readRegister.js";

/**
 * An issued invoice the warehouse now disagrees with: hours of its period held now that it was
 * not computed from (arrived late), hours whose files changed since (rewritten), hours it was
 * computed from that are no longer held. Someone looks and runs `invoices correct`.
 */
export interface RegisterDrift {
  number: string;
  accountId: number;
  /** The invoice's period `[start, end)`, epoch seconds. */
  start: number;
  end: number;
  issueDate: string;
  /** Hours (epoch seconds), ascending, of each kind of change. */
  late: number[];
  rewritten: number[];
  gone: number[];
}

/**
 * The issued invoices in force (not corrected) whose hours the warehouse now holds otherwise than
 * when they were issued, in the order of issue: their basis hours compared with the hours held
 * and the SHA-256 of their files. Figures are not computed (a rewritten hour may bill the same:
 * `invoices issue` says by how much); an empty list for a warehouse without a register.
 */
export async function registerDrift(connection: DuckDBConnection): Promise<RegisterDrift[]> {
  if (!(await hasRegister(connection))) return [];
  const rows = (
    await connection.runAndReadAll(
      `WITH current AS (
       SELECT number, account_id, period_start_epoch, period_end_epoch, issue_date, entry FROM register_documents
       WHERE kind = 'invoice' AND number NOT IN (SELECT corrected FROM register_corrections)
     ),
     held AS (${HELD_HOUR_FILES_SQL}),
     basis AS (SELECT b.* FROM register_basis_hours b JOIN current USING (number)),
     changes AS (
       SELECT b.number, b.hour_epoch, CASE WHEN h.hour_epoch IS NULL THEN 'gone' ELSE 'rewritten' END AS change
       FROM basis b JOIN current c USING (number) LEFT JOIN held h ON h.account_id = c.account_id AND h.hour_epoch = b.hour_epoch
       WHERE h.hour_epoch IS NULL OR h.files_sha256 <> b.files_sha256
       UNION ALL
       SELECT c.number, h.hour_epoch, 'late' FROM current c JOIN held h
         ON h.account_id = c.account_id AND h.hour_epoch >= c.period_start_epoch AND h.hour_epoch < c.period_end_epoch
       WHERE NOT EXISTS (SELECT 1 FROM basis b WHERE b.number = c.number AND b.hour_epoch = h.hour_epoch)
     )
     SELECT c.number, c.account_id, c.period_start_epoch, c.period_end_epoch, c.issue_date,
       list(x.hour_epoch ORDER BY x.hour_epoch) FILTER (WHERE x.change = 'late') AS late,
       list(x.hour_epoch ORDER BY x.hour_epoch) FILTER (WHERE x.change = 'rewritten') AS rewritten,
       list(x.hour_epoch ORDER BY x.hour_epoch) FILTER (WHERE x.change = 'gone') AS gone
     FROM changes x JOIN current c USING (number)
     GROUP BY ALL ORDER BY min(c.entry)`,
    )
  ).getRowObjectsJS();
  const hours = (v: unknown) => ((v as bigint[] | null) ?? []).map(Number);
  return rows.map((r) => ({
    number: String(r.number),
    accountId: Number(r.account_id),
    start: Number(r.period_start_epoch),
    end: Number(r.period_end_epoch),
    issueDate: String(r.issue_date),
    late: hours(r.late),
    rewritten: hours(r.rewritten),
    gone: hours(r.gone),
  }));
}
