import type { DuckDBConnection } from "@duckdb/node-api";
import { formatStatementNumber } from "../billing/statementConfig.js";

/** A statement's registration in the warehouse (`statement_numbers`). */
export interface StatementNumber {
  /** As printed, e.g. `INV-2026-00042`. */
  number: string;
  /** Its place in the warehouse's sequence (1, 2, ...), across every account. */
  seq: number;
  /** The issue date, `YYYY-MM-DD`: the first issue's, kept when the statement is issued again. */
  issueDate: string;
  /** False when this call made the number; true when the account and period already had one. */
  reissued: boolean;
  /** The amount due and currency the statement was first issued with (decimal text). */
  firstAmountDue: string;
  currency: string;
}

/** What a statement number is asked for: an account's statement of a period. */
export interface StatementNumberRequest {
  accountId: number;
  /** The period, epoch seconds, `[start, end)`. */
  start: number;
  end: number;
  /** The issue date of a new number, `YYYY-MM-DD`. */
  issueDate: string;
  /** The numbering pattern (see `formatStatementNumber`). */
  pattern: string;
  currency: string;
  /** The amount due as printed (decimal text). */
  amountDue: string;
}

/**
 * The numbers of statements, in one transaction on a warehouse opened to write: an account's
 * statement of a period already numbered keeps its number and issue date; any other gets the
 * next number of the sequence (the largest held + 1), so no number is ever given twice, even
 * when the pattern changes between runs (the UNIQUE number refuses a pattern that would repeat one).
 */
export async function registerStatementNumbers(connection: DuckDBConnection, requests: readonly StatementNumberRequest[]): Promise<StatementNumber[]> {
  await connection.run("BEGIN TRANSACTION");
  try {
    const out: StatementNumber[] = [];
    for (const r of requests) {
      const held = await connection.runAndReadAll(
        "SELECT number, seq, issue_date, amount_due, currency FROM statement_numbers WHERE account_id = $a AND period_start_epoch = $s AND period_end_epoch = $e",
        { a: r.accountId, s: r.start, e: r.end },
      );
      const row = held.getRowsJS()[0];
      if (row !== undefined) {
        out.push({ number: String(row[0]), seq: Number(row[1]), issueDate: String(row[2]), firstAmountDue: String(row[3]), currency: String(row[4]), reissued: true });
        continue;
      }
      const next = await connection.runAndReadAll("SELECT coalesce(max(seq), 0) + 1 FROM statement_numbers");
      const seq = Number(next.getRowsJS()[0]![0]);
      const number = formatStatementNumber(r.pattern, { seq, issueDate: r.issueDate, accountId: r.accountId });
      await connection.run(
        `INSERT INTO statement_numbers (seq, number, account_id, period_start_epoch, period_end_epoch, issue_date, currency, amount_due)
         VALUES ($seq, $number, $a, $s, $e, $d, $c, $amount)`,
        { seq, number, a: r.accountId, s: r.start, e: r.end, d: r.issueDate, c: r.currency, amount: r.amountDue },
      );
      out.push({ number, seq, issueDate: r.issueDate, firstAmountDue: r.amountDue, currency: r.currency, reissued: false });
    }
    await connection.run("COMMIT");
    return out;
  } catch (error) {
    await connection.run("ROLLBACK");
    throw error;
  }
}
