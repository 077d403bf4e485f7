import { Exact } from "../../billing/exact.js";
import { lastDayOf, type ContractCredit } from "../document/contractTerms.js";
import type { InvoiceDocument } from "../document/invoiceDocument.js";
import type { StatementConfig } from "../document/statementConfig.js";
import type { CreditMovement } from "../register/creditMovements.js";

/**
 * Prepaid credit (docs/billing.md#prepaid-credit): a customer's balances are the sums of their
 * movements in the register. When an invoice is recorded, in its transaction: each credit of the
 * contract not yet granted is granted; a credit whose validity ended before the invoice's period's
 * last day expires with what is left; then the credits valid on that day are consumed, oldest
 * first (by validFrom, then as the contract lists them), up to the invoice's gross. A credit note
 * cancelling an invoice that consumed credit gives it back. A balance never goes below zero.
 */

/** The customer a document is of: its `customerId` when it has one, else its account (an account is its own customer). */
export function customerIdOf(document: Pick<InvoiceDocument, "accountId"> & { customerId?: string }): string {
  return document.customerId ?? String(document.accountId);
}

/** A customer's contract credits in the config, for a document of it. */
function creditsOf(config: StatementConfig, document: InvoiceDocument): readonly ContractCredit[] {
  return config.customers.get(document.accountId)?.contract?.credits ?? [];
}

/** A credit's balance, by customer and credit id. */
interface Balance {
  credit: ContractCredit;
  order: number;
  balance: Exact;
}

const keyOf = (customerId: string, creditId: string) => JSON.stringify([customerId, creditId]);

/** Balances from movements, kept as documents are recorded one after the other in a transaction. */
export class CreditLedger {
  private readonly balances = new Map<string, Balance>();
  /** The movements made by this ledger, in order: what the transaction appends. */
  readonly made: CreditMovement[] = [];

  constructor(recorded: readonly CreditMovement[]) {
    for (const m of recorded) this.apply(m);
  }

  private apply(m: CreditMovement): void {
    const key = keyOf(m.customerId, m.creditId);
    const held = this.balances.get(key);
    const credit = { id: m.creditId, amount: m.amount.toJSON(), validFrom: m.validFrom, validTo: m.validTo };
    const balance = held ?? { credit, order: this.balances.size, balance: Exact.ZERO };
    balance.balance = balance.balance.add(m.amount);
    if (balance.balance.compare(Exact.ZERO) < 0)
      throw new RangeError(`prepaid credit ${m.creditId} of customer ${m.customerId} would go below zero`);
    this.balances.set(key, balance);
  }

  private make(m: CreditMovement): void {
    this.apply(m);
    this.made.push(m);
  }

  /**
   * Records what the document does to its customer's credits and returns it as the register
   * keeps it: an invoice with `prepaid` when it consumed credit, any other document as it was
   * (a credit note's giving back is recorded here too).
   */
  record(document: InvoiceDocument, config: StatementConfig): InvoiceDocument {
    const customerId = customerIdOf(document);
    if (document.kind === "creditNote") {
      for (const c of document.prepaid?.credits ?? []) {
        const held = this.balances.get(keyOf(customerId, c.id));
        if (held === undefined) throw new RangeError(`prepaid credit ${c.id} given back was never granted`);
        this.make({
          customerId,
          creditId: c.id,
          movement: "givenBack",
          amount: Exact.amount(c.amount.toJSON().replace(/^-/, "")),
          number: document.number,
          day: document.issueDate,
          validFrom: held.credit.validFrom,
          validTo: held.credit.validTo,
        });
      }
      return document;
    }
    const credits = creditsOf(config, document);
    if (credits.length === 0) return document;
    const lastDay = lastDayOf(document);
    for (const credit of credits) {
      if (this.balances.has(keyOf(customerId, credit.id))) continue;
      this.make({
        customerId,
        creditId: credit.id,
        movement: "granted",
        amount: Exact.amount(credit.amount),
        number: null,
        day: credit.validFrom,
        validFrom: credit.validFrom,
        validTo: credit.validTo,
      });
    }
    const mine = [...this.balances.entries()]
      .filter(([key]) => JSON.parse(key)[0] === customerId)
      .map(([, b]) => b)
      .sort((a, b) =>
        a.credit.validFrom < b.credit.validFrom ? -1 : a.credit.validFrom > b.credit.validFrom ? 1 : a.order - b.order,
      );
    for (const b of mine) {
      if (b.credit.validTo < lastDay && b.balance.compare(Exact.ZERO) > 0)
        this.make({
          ...this.movementOf(customerId, b),
          movement: "expired",
          amount: Exact.amount(`-${b.balance.toDecimalString()}`),
          number: null,
          day: b.credit.validTo,
        });
    }
    let left = document.gross;
    const consumed: { id: string; amount: Exact }[] = [];
    for (const b of mine) {
      if (left.compare(Exact.ZERO) <= 0) break;
      if (b.credit.validFrom > lastDay || b.credit.validTo < lastDay || b.balance.compare(Exact.ZERO) <= 0) continue;
      const take = b.balance.compare(left) < 0 ? b.balance : left;
      const amount = take.fixed(document.decimals);
      if (amount.isZero()) continue;
      this.make({
        ...this.movementOf(customerId, b),
        movement: "consumed",
        amount: Exact.amount(`-${amount}`),
        number: document.number,
        day: document.issueDate,
      });
      consumed.push({ id: b.credit.id, amount });
      left = left.sub(amount);
    }
    if (consumed.length === 0) return document;
    const total = consumed.reduce((s, c) => s.add(c.amount), Exact.ZERO).fixed(document.decimals);
    return { ...document, prepaid: { amount: total, credits: consumed } };
  }

  private movementOf(
    customerId: string,
    b: Balance,
  ): Pick<CreditMovement, "customerId" | "creditId" | "validFrom" | "validTo"> {
    return { customerId, creditId: b.credit.id, validFrom: b.credit.validFrom, validTo: b.credit.validTo };
  }
}
