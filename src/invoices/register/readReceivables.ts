import type { DuckDBConnection } from "@duckdb/node-api";
import type { DeliveryRecord, PaymentRecord } from "./appendReceivables.js";
import { hasTable } from "../../base/hasTable.js";
import { Exact } from "../../billing/exact.js";

/** A payment of the register, with its place in the order recorded. */
export interface RecordedPayment extends PaymentRecord {
  entry: number;
}

/** A delivery attempt of the register, with its place in the order of attempts. */
export interface RecordedDelivery extends DeliveryRecord {
  entry: number;
}

/** The register's payments, in the order recorded (none in a warehouse made before them). */
export async function readPayments(connection: DuckDBConnection): Promise<RecordedPayment[]> {
  if (!(await hasTable(connection, "register_payments"))) return [];
  const rows = (
    await connection.runAndReadAll(
      "SELECT entry, number, amount, currency, paid_on, reference, source, bank_reference, matched_by FROM register_payments ORDER BY entry",
    )
  ).getRowObjectsJS();
  return rows.map((r) => ({
    entry: Number(r.entry),
    number: String(r.number),
    amount: Exact.amount(String(r.amount)),
    currency: String(r.currency),
    paidOn: String(r.paid_on),
    ...(r.reference === null ? {} : { reference: String(r.reference) }),
    source: String(r.source) as PaymentRecord["source"],
    ...(r.bank_reference === null ? {} : { bankReference: String(r.bank_reference) }),
    ...(r.matched_by === null ? {} : { matchedBy: String(r.matched_by) as "reference" | "number" }),
  }));
}

/** The register's delivery attempts, in the order made (none in a warehouse made before them). */
export async function readDeliveries(connection: DuckDBConnection): Promise<RecordedDelivery[]> {
  if (!(await hasTable(connection, "register_deliveries"))) return [];
  const rows = (
    await connection.runAndReadAll(
      "SELECT entry, number, endpoint, attempted_at, http_status, message_id, error, delivered FROM register_deliveries ORDER BY entry",
    )
  ).getRowObjectsJS();
  return rows.map((r) => ({
    entry: Number(r.entry),
    number: String(r.number),
    endpoint: String(r.endpoint),
    attemptedAt: String(r.attempted_at),
    httpStatus: r.http_status === null ? null : Number(r.http_status),
    messageId: r.message_id === null ? null : String(r.message_id),
    error: r.error === null ? null : String(r.error),
    delivered: Boolean(r.delivered),
  }));
}

/** A credit note of the register: its number, the invoice it credits and its gross (negative). */
export interface RecordedCredit {
  number: string;
  corrects: string;
  gross: string;
  /** The prepaid credit it gave back (negative), when the invoice it cancels had consumed some. */
  prepaid?: string;
}

/** The register's credit notes that credit an invoice (read without their documents' other parts). */
export async function readCredits(connection: DuckDBConnection): Promise<RecordedCredit[]> {
  if (!(await hasTable(connection, "register_documents"))) return [];
  const rows = (
    await connection.runAndReadAll(
      "SELECT number, corrects, gross, document->>'$.prepaid.amount' AS prepaid FROM register_documents WHERE kind = 'creditNote' AND corrects IS NOT NULL ORDER BY entry",
    )
  ).getRowObjectsJS();
  return rows.map((r) => ({
    number: String(r.number),
    corrects: String(r.corrects),
    gross: String(r.gross),
    ...(r.prepaid === null ? {} : { prepaid: String(r.prepaid) }),
  }));
}

/** What receivables read of a document: its number, kind, account, amounts and dates, without its lines or basis. */
export interface DocumentHead {
  entry: number;
  number: string;
  kind: "invoice" | "creditNote";
  accountId: number;
  currency: string;
  decimals: number;
  gross: Exact;
  dueDate: string;
  /** The invoice a credit note cancels (or a new invoice replaces). */
  corrects?: string;
  paymentReference?: string;
  /** Prepaid credit consumed (an invoice) or given back (a credit note, negative). */
  prepaid?: { amount: Exact };
}

/** The heads of the register's documents, in the order issued (a statement of thousands is matched against them without reading every document whole). */
export async function readDocumentHeads(connection: DuckDBConnection): Promise<DocumentHead[]> {
  if (!(await hasTable(connection, "register_documents"))) return [];
  const rows = (
    await connection.runAndReadAll(
      `SELECT entry, number, kind, account_id, currency, gross, due_date, corrects,
       CAST(document->>'decimals' AS INTEGER) AS decimals, document->>'paymentReference' AS payment_reference,
       document->>'$.prepaid.amount' AS prepaid
     FROM register_documents ORDER BY entry`,
    )
  ).getRowObjectsJS();
  return rows.map((r) => ({
    entry: Number(r.entry),
    number: String(r.number),
    kind: String(r.kind) as DocumentHead["kind"],
    accountId: Number(r.account_id),
    currency: String(r.currency),
    decimals: Number(r.decimals),
    gross: Exact.amount(String(r.gross)),
    dueDate: String(r.due_date),
    ...(r.corrects === null ? {} : { corrects: String(r.corrects) }),
    ...(r.payment_reference === null ? {} : { paymentReference: String(r.payment_reference) }),
    ...(r.prepaid === null ? {} : { prepaid: { amount: Exact.amount(String(r.prepaid)) } }),
  }));
}
