import type { DuckDBConnection } from "@duckdb/node-api";
import type { Exact } from "../../billing/exact.js";
import { appendLinks } from "./registerChain.js";

/**
 * Every record of receivables the register keeps, written here and nowhere else: payment
 * references (with the documents they belong to), payments and delivery attempts. Append-only,
 * as the rest of the register: this inserts, nothing updates or deletes; a payment is reversed
 * by a new record of the opposite amount. Each payment and each delivery attempt is a link of
 * the register's chain (docs/billing.md#the-chain), made in the transaction that inserts it; a
 * payment reference is part of its document's (written in the document's transaction).
 */

/** A payment to record: an invoice's, in its currency, at the currency's decimals (negative: a reversal). */
export interface PaymentRecord {
  number: string;
  /** At the currency's decimals (`Exact.amount("119.00")`, `"-119.00"` a reversal): recorded as its text. */
  amount: Exact;
  currency: string;
  /** `YYYY-MM-DD`. */
  paidOn: string;
  /** What the payer quoted, or the user's note. */
  reference?: string;
  source: "manual" | "camt.053";
  /** The bank statement entry's reference: the key that makes an entry recorded once. */
  bankReference?: string;
  /** How a statement entry was matched to the invoice. */
  matchedBy?: "reference" | "number";
}

/** An attempt to deliver a document to an access point. */
export interface DeliveryRecord {
  number: string;
  /** The URL posted to, as shown (no user info, no query). */
  endpoint: string;
  /** ISO 8601 UTC. */
  attemptedAt: string;
  httpStatus: number | null;
  messageId: string | null;
  error: string | null;
  delivered: boolean;
}

const nextEntry = async (connection: DuckDBConnection, table: string): Promise<number> =>
  Number((await connection.runAndReadAll(`SELECT coalesce(max(entry), 0) FROM ${table}`)).getRowsJS()[0]![0]) + 1;

/** The payment references of newly issued documents (those that have one), in the caller's transaction. */
export async function appendPaymentReferences(
  connection: DuckDBConnection,
  documents: readonly { number: string; paymentReference?: string }[],
): Promise<void> {
  for (const { number, paymentReference } of documents) {
    if (paymentReference === undefined) continue;
    await connection.run(
      "INSERT INTO register_payment_references (number, reference, scheme) VALUES ($number, $reference, $scheme)",
      {
        number,
        reference: paymentReference,
        scheme: paymentReference.startsWith("RF") ? "ISO11649" : "BE",
      },
    );
  }
}

/**
 * Records payments, all or none (one transaction; appended, as a statement holds thousands). A
 * statement entry already recorded (its `bankReference`) fails the append: callers leave those
 * out first (`readPayments`).
 */
export async function appendPayments(connection: DuckDBConnection, payments: readonly PaymentRecord[]): Promise<void> {
  if (payments.length === 0) return;
  await connection.run("BEGIN TRANSACTION");
  try {
    const first = await nextEntry(connection, "register_payments");
    let entry = first;
    const appender = await connection.createAppender("register_payments");
    try {
      const text = (value: string | undefined) =>
        value === undefined ? appender.appendNull() : appender.appendVarchar(value);
      for (const p of payments) {
        appender.appendBigInt(BigInt(entry++));
        for (const value of [
          p.number,
          p.amount.toJSON(),
          p.currency,
          p.paidOn,
          p.reference,
          p.source,
          p.bankReference,
          p.matchedBy,
        ])
          text(value);
        appender.appendDefault(); // recorded_at
        appender.endRow();
      }
      appender.flushSync();
    } finally {
      appender.closeSync();
    }
    await appendLinks(
      connection,
      "payment",
      payments.map((_p, i) => String(first + i)),
    );
    await connection.run("COMMIT");
  } catch (error) {
    await connection.run("ROLLBACK");
    throw error;
  }
}

/** Records one delivery attempt, with its link (committed at once: a run killed later still knows what was delivered). */
export async function appendDeliveryAttempt(connection: DuckDBConnection, attempt: DeliveryRecord): Promise<void> {
  await connection.run("BEGIN TRANSACTION");
  try {
    const entry = await nextEntry(connection, "register_deliveries");
    await connection.run(
      `INSERT INTO register_deliveries (entry, number, endpoint, attempted_at, http_status, message_id, error, delivered)
       VALUES ($entry, $number, $endpoint, $attemptedAt, $httpStatus, $messageId, $error, $delivered)`,
      { ...attempt, entry },
    );
    await appendLinks(connection, "delivery", [String(entry)]);
    await connection.run("COMMIT");
  } catch (error) {
    await connection.run("ROLLBACK");
    throw error;
  }
}
