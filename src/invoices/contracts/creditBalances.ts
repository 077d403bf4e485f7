import type { DuckDBConnection } from "@duckdb/node-api";
import { Exact } from "../../billing/exact.js";
import { currencyDecimals } from "../../billing/prices.js";
import { readCreditMovements, type RecordedCreditMovement } from "../register/creditMovements.js";
import { intactRegister } from "../register/registerChain.js";

/** A movement of prepaid credit with the credit's balance after it. */
export interface CreditStatementLine extends RecordedCreditMovement {
  /** The credit's balance after this movement (never below zero; its exact decimal in JSON, `"80"`). */
  balance: Exact;
  /**
   * The customer's currency, the credit's (ISO 4217): that of the document of the movement, else
   * that of the customer's latest document in the register (a grant and an expiry are recorded
   * with one of its invoices).
   */
  currency: string;
  /** The decimals of that document's amounts (2 for EUR, 0 for JPY, unless the price list set others). */
  decimals: number;
}

/** The currency of a document of the register and its amounts' decimals. */
type Money = Pick<CreditStatementLine, "currency" | "decimals">;

/** The currency and decimals of each document of the register by number, and of each customer's latest document. */
async function registerMoney(
  connection: DuckDBConnection,
): Promise<{ ofDocument: Map<string, Money>; ofCustomer: Map<string, Money> }> {
  const rows = (
    await connection.runAndReadAll(
      "SELECT d.number, c.customer_id, d.currency, d.document->>'decimals' AS decimals " +
        "FROM register_documents d JOIN register_customers c USING (number) ORDER BY d.entry",
    )
  ).getRowObjectsJS();
  const ofDocument = new Map<string, Money>();
  const ofCustomer = new Map<string, Money>();
  for (const r of rows) {
    const currency = String(r.currency);
    const money = { currency, decimals: r.decimals === null ? currencyDecimals(currency) : Number(r.decimals) };
    ofDocument.set(String(r.number), money);
    ofCustomer.set(String(r.customer_id), money);
  }
  return { ofDocument, ofCustomer };
}

/**
 * The prepaid credit movements of the register (all customers, or one), oldest first, each with
 * its credit's balance after it, its currency and decimals, once the register is verified against its chain
 * (RegisterBrokenError when it disagrees). What `invoices credits` prints.
 */
export async function creditStatement(
  connection: DuckDBConnection,
  options: { customerId?: string } = {},
): Promise<CreditStatementLine[]> {
  await intactRegister(connection);
  const movements = await readCreditMovements(connection, options);
  if (movements.length === 0) return [];
  const { ofDocument, ofCustomer } = await registerMoney(connection);
  const balances = new Map<string, Exact>();
  return movements.map((m) => {
    const key = JSON.stringify([m.customerId, m.creditId]);
    const balance = (balances.get(key) ?? Exact.ZERO).add(m.amount);
    balances.set(key, balance);
    const inCurrency = (m.number === null ? undefined : ofDocument.get(m.number)) ?? ofCustomer.get(m.customerId)!;
    return { ...m, balance, ...inCurrency };
  });
}

const WORDS: Record<RecordedCreditMovement["movement"], string> = {
  granted: "granted",
  consumed: "consumed by",
  givenBack: "given back by",
  expired: "expired",
};

/** An amount of a line as money: at its decimals (rounded half-even), then its currency's code (`3000.00 EUR`, `20000 JPY`). */
const money = (amount: Exact, { currency, decimals }: Money) => `${amount.toFixed(decimals)} ${currency}`;

/** The movements as text, one a line: day, customer, credit, what happened (and by which document), amount, balance after, as money. */
export function creditStatementText(lines: readonly CreditStatementLine[]): string {
  if (lines.length === 0) return "no prepaid credit recorded\n";
  return lines
    .map(
      (l) =>
        `${l.day}  customer ${l.customerId}  credit ${l.creditId}  ${WORDS[l.movement]}${l.number ? ` ${l.number}` : ""}  ${money(l.amount, l)}  balance ${money(l.balance, l)}`,
    )
    .join("\n")
    .concat("\n");
}
