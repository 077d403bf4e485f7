import type { DuckDBConnection } from "@duckdb/node-api";
import { Exact } from "../../billing/exact.js";
import { readCreditMovements, type RecordedCreditMovement } from "../register/creditMovements.js";
import { intactRegister } from "../register/registerChain.js";

/** A movement of prepaid credit with the credit's balance after it. */
export interface CreditStatementLine extends RecordedCreditMovement {
  /** The credit's balance after this movement (never below zero; its exact decimal in JSON, `"80"`). */
  balance: Exact;
}

/**
 * The prepaid credit movements of the register (all customers, or one), oldest first, each with
 * its credit's balance after it, once the register is verified against its chain
 * (RegisterBrokenError when it disagrees). What `invoices credits` prints.
 */
export async function creditStatement(
  connection: DuckDBConnection,
  options: { customerId?: string } = {},
): Promise<CreditStatementLine[]> {
  await intactRegister(connection);
  const balances = new Map<string, Exact>();
  return (await readCreditMovements(connection, options)).map((m) => {
    const key = JSON.stringify([m.customerId, m.creditId]);
    const balance = (balances.get(key) ?? Exact.ZERO).add(m.amount);
    balances.set(key, balance);
    return { ...m, balance };
  });
}

const WORDS: Record<RecordedCreditMovement["movement"], string> = {
  granted: "granted",
  consumed: "consumed by",
  givenBack: "given back by",
  expired: "expired",
};

/** The movements as text, one a line: day, customer, credit, what happened (and by which document), amount, balance after. */
export function creditStatementText(lines: readonly CreditStatementLine[]): string {
  if (lines.length === 0) return "no prepaid credit recorded\n";
  return lines
    .map(
      (l) =>
        `${l.day}  customer ${l.customerId}  credit ${l.creditId}  ${WORDS[l.movement]}${l.number ? ` ${l.number}` : ""}  ${l.amount}  balance ${l.balance}`,
    )
    .join("\n")
    .concat("\n");
}
