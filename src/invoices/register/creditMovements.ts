import type { DuckDBConnection } from "@duckdb/node-api";
import { hasTable } from "../../base/hasTable.js";
import { Exact } from "../../billing/exact.js";
import { appendLinks } from "./registerChain.js";
import { CREDIT_COLUMNS as COLUMNS } from "./chainedCredits.js";

/**
 * Prepaid credit's movements (`register_credit_movements`, docs/billing.md#prepaid-credit): a
 * balance is the sum of its movements, never a figure kept and changed. Append-only as the rest of
 * the register, each movement a link of its chain (one numbered chain, "prepaid credit", its place
 * the entry), made in the transaction that inserts it.
 */

/** What a movement does to a balance. */
export type CreditMovementKind = "granted" | "consumed" | "givenBack" | "expired";

/** A movement of a customer's prepaid credit. */
export interface CreditMovement {
  customerId: string;
  creditId: string;
  movement: CreditMovementKind;
  /** Tax included, as recorded (`"-119.00"` in JSON): positive for granted and givenBack, negative for consumed and expired. */
  amount: Exact;
  /** The invoice consuming, the credit note giving back; null for granted and expired. */
  number: string | null;
  /** `YYYY-MM-DD`: validFrom of a grant, the document's issue date, validTo of an expiry. */
  day: string;
  validFrom: string;
  validTo: string;
}

/** A movement as recorded, with its entry (1, 2, 3... in the order recorded). */
export interface RecordedCreditMovement extends CreditMovement {
  entry: number;
}

/** The movements recorded, oldest first; of one customer when `customerId` is given. */
export async function readCreditMovements(
  connection: DuckDBConnection,
  options: { customerId?: string } = {},
): Promise<RecordedCreditMovement[]> {
  if (!(await hasTable(connection, "register_credit_movements"))) return [];
  const rows = (
    await connection.runAndReadAll(
      `SELECT ${COLUMNS.join(", ")} FROM register_credit_movements ${options.customerId === undefined ? "" : "WHERE customer_id = $customer"} ORDER BY entry`,
      options.customerId === undefined ? {} : { customer: options.customerId },
    )
  ).getRowObjectsJS();
  return rows.map((r) => ({
    entry: Number(r.entry),
    customerId: String(r.customer_id),
    creditId: String(r.credit_id),
    movement: String(r.movement) as CreditMovementKind,
    amount: Exact.amount(String(r.amount)),
    number: r.number === null ? null : String(r.number),
    day: String(r.day),
    validFrom: String(r.valid_from),
    validTo: String(r.valid_to),
  }));
}

/** Appends movements in the caller's transaction (the one recording the documents they belong to), and chains them. */
export async function appendCreditMovements(
  connection: DuckDBConnection,
  movements: readonly CreditMovement[],
): Promise<void> {
  if (movements.length === 0) return;
  let entry = Number(
    (
      await connection.runAndReadAll("SELECT coalesce(max(entry), 0) FROM register_credit_movements")
    ).getRowsJS()[0]![0],
  );
  const keys: string[] = [];
  for (const m of movements) {
    await connection.run(
      `INSERT INTO register_credit_movements (entry, customer_id, credit_id, movement, amount, number, day, valid_from, valid_to)
       VALUES ($entry, $customer, $credit, $movement, $amount, $number, $day, $from, $to)`,
      {
        entry: ++entry,
        customer: m.customerId,
        credit: m.creditId,
        movement: m.movement,
        amount: m.amount.toJSON(),
        number: m.number,
        day: m.day,
        from: m.validFrom,
        to: m.validTo,
      },
    );
    keys.push(String(entry));
  }
  await appendLinks(connection, "credit", keys);
}
