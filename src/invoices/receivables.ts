import type { DuckDBConnection } from "@duckdb/node-api";
import { Exact } from "../billing/exact.js";
import type { InvoiceDocument } from "./document/invoiceDocument.js";
import type { RegisterEntry, RegisterFilter } from "./register/readRegister.js";
import { verifiedRegister } from "./verifiedRegister.js";
import {
  readCredits,
  readDeliveries,
  readPayments,
  type RecordedCredit,
  type RecordedDelivery,
  type RecordedPayment,
} from "./register/readReceivables.js";

/** Where a document stands: `open` (not yet due), `paid`, `overdue` (past its due date and something outstanding), `credited` (cancelled by credit notes; a credit note itself). */
export type DocumentStatus = "open" | "paid" | "overdue" | "credited";

/** What is owed on a document, today. */
export interface Receivable {
  /** `YYYY-MM-DD`: the document's due date. */
  dueDate: string;
  /** Σ of its payments (reversals deducted), at the currency's decimals (`"119.00"` in JSON). */
  paid: Exact;
  /** gross − prepaid − its credit notes − payments; 0 on a credit note (its amount is deducted from its invoice). Negative: paid too much. */
  outstanding: Exact;
  status: DocumentStatus;
  /** On an invoice: Σ of its credit notes' gross, positive (partial credit notes and a correction's); null on a credit note. */
  credited: Exact | null;
  /** On an invoice: its gross − credited, what of it remains in force (0 once cancelled in full); null on a credit note. */
  remaining: Exact | null;
  /** Whole days since the due date (0 on the due date, negative before it). */
  daysPastDue: number;
  /** Whether an access point accepted its e-invoice (`invoices send`). */
  delivered: boolean;
}

/** A register entry with what is owed on it. */
export type ReceivableEntry = RegisterEntry & { receivable: Receivable };

/** What the receivables of documents are computed from (the register's other records), by document number. */
export interface ReceivableFacts {
  /** The amounts paid on each document. */
  payments: ReadonlyMap<string, readonly string[]>;
  /**
   * The credit notes crediting each invoice, each by what it takes off the invoice, tax included
   * (`gross`, negative), and what of that it credits in money (`cash`: its gross less the prepaid
   * credit it gave back).
   */
  credits: ReadonlyMap<string, readonly { gross: string; cash: string }[]>;
  delivered: ReadonlySet<string>;
}

function grouped<T, V>(items: readonly T[], key: (item: T) => string, value: (item: T) => V): Map<string, V[]> {
  const map = new Map<string, V[]>();
  for (const item of items) {
    const k = key(item);
    const list = map.get(k);
    if (list === undefined) map.set(k, [value(item)]);
    else list.push(value(item));
  }
  return map;
}

/** The facts of receivables from the register's payments, credit notes and delivery attempts. */
export function receivableFacts(
  payments: readonly RecordedPayment[],
  credits: readonly RecordedCredit[],
  deliveries: readonly RecordedDelivery[],
): ReceivableFacts {
  return {
    payments: grouped(
      payments,
      (p) => p.number,
      (p) => p.amount.toJSON(),
    ),
    credits: grouped(
      credits,
      (c) => c.corrects,
      (c) => ({
        gross: c.gross,
        cash: c.prepaid === undefined ? c.gross : Exact.parse(c.gross)!.sub(Exact.parse(c.prepaid)!).toDecimalString()!,
      }),
    ),
    delivered: new Set(deliveries.filter((d) => d.delivered).map((d) => d.number)),
  };
}

const DAY_SECONDS = 86_400;
const dayOf = (date: string) => Date.parse(`${date}T00:00:00Z`) / 1000;

/** Σ of decimal texts. */
const sum = (texts: readonly string[]) => texts.reduce((s, t) => s.add(Exact.parse(t)!), Exact.ZERO);

/**
 * What is owed on a document at `nowEpoch`: its payments, what its credit notes take off, its
 * status (overdue from the day after its due date, UTC, while something is outstanding), its days
 * past due, and whether it was delivered.
 */
export function receivableOf(
  document: Pick<InvoiceDocument, "number" | "kind" | "gross" | "decimals" | "dueDate"> & {
    prepaid?: { amount: Exact };
  },
  facts: ReceivableFacts,
  nowEpoch: number,
): Receivable {
  const paid = sum(facts.payments.get(document.number) ?? []);
  const delivered = facts.delivered.has(document.number);
  const daysPastDue = Math.floor((nowEpoch - dayOf(document.dueDate)) / DAY_SECONDS);
  const base = { dueDate: document.dueDate, paid: paid.fixed(document.decimals), daysPastDue, delivered };
  if (document.kind === "creditNote")
    return {
      ...base,
      outstanding: Exact.ZERO.fixed(document.decimals),
      status: "credited",
      credited: null,
      remaining: null,
    };
  const credits = facts.credits.get(document.number) ?? [];
  const creditedCash = credits.map((c) => c.cash);
  const creditedGross = credits.map((c) => c.gross);
  // what of the invoice remains in force: its gross − the gross of its credit notes (a credit note
  // that gives prepaid credit back credits the invoice as much as one that gives money back)
  const remaining = document.gross.add(sum(creditedGross));
  // what is owed: gross − prepaid credit consumed (EN 16931 BT-113) − what credit notes give back in money − payments
  const prepaid = document.prepaid === undefined ? Exact.ZERO : document.prepaid.amount;
  const outstanding = document.gross.sub(prepaid).add(sum(creditedCash)).sub(paid);
  const status: DocumentStatus =
    creditedGross.length > 0 && remaining.compare(Exact.ZERO) <= 0
      ? "credited"
      : outstanding.compare(Exact.ZERO) <= 0
        ? "paid"
        : daysPastDue > 0
          ? "overdue"
          : "open";
  return {
    ...base,
    outstanding: outstanding.fixed(document.decimals),
    status,
    credited: sum(creditedGross).mul(Exact.of(-1n)).fixed(document.decimals),
    remaining: remaining.fixed(document.decimals),
  };
}

/** The register's other records that receivables are computed from. */
export async function readReceivableFacts(connection: DuckDBConnection): Promise<ReceivableFacts> {
  return receivableFacts(
    await readPayments(connection),
    await readCredits(connection),
    await readDeliveries(connection),
  );
}

/**
 * The register's documents the filter selects, oldest first, each with what is owed on it at
 * `nowEpoch`, once the register is verified against its chain (RegisterBrokenError when it
 * disagrees), and the register's head.
 */
export async function verifiedReceivables(
  connection: DuckDBConnection,
  filter: RegisterFilter,
  nowEpoch: number,
): Promise<{ entries: ReceivableEntry[]; head: string | undefined }> {
  const { entries, head } = await verifiedRegister(connection, filter);
  const facts = await readReceivableFacts(connection);
  return { entries: entries.map((e) => ({ ...e, receivable: receivableOf(e.document, facts, nowEpoch) })), head };
}

/** The register's documents the filter selects, oldest first, each with what is owed on it at `nowEpoch` (verified, as `verifiedReceivables`). */
export async function readReceivables(
  connection: DuckDBConnection,
  filter: RegisterFilter,
  nowEpoch: number,
): Promise<ReceivableEntry[]> {
  return (await verifiedReceivables(connection, filter, nowEpoch)).entries;
}

/** The overdue documents at `nowEpoch` (past their due date with something outstanding), longest overdue first. */
export async function overdueDocuments(connection: DuckDBConnection, nowEpoch: number): Promise<ReceivableEntry[]> {
  const all = await readReceivables(connection, {}, nowEpoch);
  return all
    .filter((e) => e.receivable.status === "overdue")
    .sort((a, b) => b.receivable.daysPastDue - a.receivable.daysPastDue || a.entry - b.entry);
}
