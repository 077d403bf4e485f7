import type { DuckDBConnection } from "@duckdb/node-api";
import { hasTable } from "../../base/hasTable.js";
import type { ChainedKind, ChainedRecord } from "./registerChain.js";

/**
 * Payments and delivery attempts as the register's chain sees them (docs/billing.md#the-chain):
 * each row is a record, keyed by its entry (1, 2, 3... in the order recorded), every column a
 * field. Each kind is one numbered chain ("payments", "delivery attempts"), its place the entry:
 * a row removed leaves an empty place. A payment reversed is a new row (a negative amount), never
 * an edit. Payment references are not a kind of their own: written with their document, in its
 * transaction, they are part of nothing else and need no link (the reference is in the document's
 * JSON, which its link covers).
 */

/** The columns a link covers, by table: every one (a column added later is not part of rows linked before it). */
const PAYMENT_COLUMNS = [
  "entry",
  "number",
  "amount",
  "currency",
  "paid_on",
  "reference",
  "source",
  "bank_reference",
  "matched_by",
] as const;
const DELIVERY_COLUMNS = [
  "entry",
  "number",
  "endpoint",
  "attempted_at",
  "http_status",
  "message_id",
  "error",
  "delivered",
] as const;

function reader(table: string, chain: string, columns: readonly string[], extra: Record<string, string> = {}) {
  return async (connection: DuckDBConnection, keys?: readonly string[]): Promise<ChainedRecord[]> => {
    if (!(await hasTable(connection, table))) return [];
    const select = [...columns, ...Object.entries(extra).map(([name, sql]) => `${sql} AS ${name}`)].join(", ");
    const rows = (
      await connection.runAndReadAll(
        `SELECT ${select} FROM ${table} ${keys === undefined ? "" : "WHERE list_contains($keys::BIGINT[], entry)"} ORDER BY entry`,
        keys === undefined ? {} : { keys: `[${keys.map(Number).join(",")}]` },
      )
    ).getRowObjectsJS();
    return rows.map((r) => {
      const fields: Record<string, unknown> = {};
      for (const column of [...columns, ...Object.keys(extra)]) fields[column] = r[column];
      return { key: String(r.entry), chain, place: Number(r.entry), fields };
    });
  };
}

/** Payments (`register_payments`), as the register chains them: one chain, "payments", in the order recorded. */
export const chainedPayments: ChainedKind = {
  noun: "payment",
  read: reader("register_payments", "payments", PAYMENT_COLUMNS, { recorded_at: "epoch_us(recorded_at)" }),
};

/** Delivery attempts (`register_deliveries`), as the register chains them: one chain, "delivery attempts", in the order made. */
export const chainedDeliveries: ChainedKind = {
  noun: "delivery attempt",
  read: reader("register_deliveries", "delivery attempts", DELIVERY_COLUMNS),
};
