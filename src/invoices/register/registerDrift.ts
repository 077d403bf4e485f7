import type { DuckDBConnection } from "@duckdb/node-api";
import { HELD_HOUR_FILES_SQL } from "./heldHourFiles.js";
import { hasRegister } from "./readRegister.js";
import { hasTable } from "../../base/hasTable.js";

/**
 * An issued invoice the warehouse now disagrees with: hours of its period held now that it was
 * not computed from (arrived late), hours whose files changed since (rewritten), hours it was
 * computed from that are no longer held. Someone looks and runs `invoices correct`.
 */
export interface RegisterDrift {
  number: string;
  accountId: number;
  /** On an invoice of a customer of several accounts: the customer and its accounts (absent on an invoice of one account). */
  customerId?: string;
  accountIds?: number[];
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
  // no invoice in force: nothing to compare (the hours held are not read: a month of 20,000 machines holds 74,400)
  const inForce = await connection.runAndReadAll(
    "SELECT count(*) FROM register_documents WHERE kind = 'invoice' AND number NOT IN (SELECT corrected FROM register_corrections)",
  );
  if (Number(inForce.getRowsJS()[0]![0]) === 0) return [];
  const accountHours = (await hasTable(connection, "register_basis_account_hours"))
    ? "UNION ALL SELECT a.number, a.account_id, a.hour_epoch, a.files_sha256 FROM register_basis_account_hours a JOIN current USING (number)"
    : "";
  const rows = (
    await connection.runAndReadAll(
      `WITH current AS (
       SELECT number, account_id, document, period_start_epoch, period_end_epoch, issue_date, entry FROM register_documents
       WHERE kind = 'invoice' AND number NOT IN (SELECT corrected FROM register_corrections)
     ),
     -- each account a document bills (a customer's invoice bills several: its JSON lists them)
     accounts AS (
       SELECT number, unnest(coalesce(from_json(document->'accountIds', '["BIGINT"]'), [account_id])) AS account_id,
         period_start_epoch, period_end_epoch FROM current
     ),
     basis AS (
       SELECT b.number, c.account_id, b.hour_epoch, b.files_sha256 FROM register_basis_hours b JOIN current c USING (number)
       ${accountHours}
     ),
     -- the hours held of the accounts the invoices bill (all that is compared), not of every account
     held AS (SELECT * FROM (${HELD_HOUR_FILES_SQL}) WHERE account_id IN (SELECT account_id FROM accounts UNION ALL SELECT account_id FROM basis)),
     changes AS (
       SELECT b.number, b.hour_epoch, CASE WHEN h.hour_epoch IS NULL THEN 'gone' ELSE 'rewritten' END AS change
       FROM basis b LEFT JOIN held h ON h.account_id = b.account_id AND h.hour_epoch = b.hour_epoch
       WHERE h.hour_epoch IS NULL OR h.files_sha256 <> b.files_sha256
       UNION ALL
       SELECT a.number, h.hour_epoch, 'late' FROM accounts a JOIN held h
         ON h.account_id = a.account_id AND h.hour_epoch >= a.period_start_epoch AND h.hour_epoch < a.period_end_epoch
       WHERE NOT EXISTS (SELECT 1 FROM basis b WHERE b.number = a.number AND b.account_id = a.account_id AND b.hour_epoch = h.hour_epoch)
     )
     SELECT c.number, c.account_id, c.period_start_epoch, c.period_end_epoch, c.issue_date,
       any_value(c.document->>'customerId') AS customer_id, any_value((c.document->'accountIds')::VARCHAR) AS account_ids,
       list(DISTINCT x.hour_epoch ORDER BY x.hour_epoch) FILTER (WHERE x.change = 'late') AS late,
       list(DISTINCT x.hour_epoch ORDER BY x.hour_epoch) FILTER (WHERE x.change = 'rewritten') AS rewritten,
       list(DISTINCT x.hour_epoch ORDER BY x.hour_epoch) FILTER (WHERE x.change = 'gone') AS gone
     FROM changes x JOIN current c USING (number)
     GROUP BY c.number, c.account_id, c.period_start_epoch, c.period_end_epoch, c.issue_date ORDER BY min(c.entry)`,
    )
  ).getRowObjectsJS();
  const hours = (v: unknown) => ((v as bigint[] | null) ?? []).map(Number);
  return rows.map((r) => ({
    number: String(r.number),
    accountId: Number(r.account_id),
    ...(r.customer_id === null || r.account_ids === null
      ? {}
      : { customerId: String(r.customer_id), accountIds: (JSON.parse(String(r.account_ids)) as number[]).map(Number) }),
    start: Number(r.period_start_epoch),
    end: Number(r.period_end_epoch),
    issueDate: String(r.issue_date),
    late: hours(r.late),
    rewritten: hours(r.rewritten),
    gone: hours(r.gone),
  }));
}
