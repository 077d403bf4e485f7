import type { DuckDBConnection } from "@duckdb/node-api";
import { intactRegister } from "./register/registerChain.js";
import { clockNow } from "../base/clock.js";
import { UsageError } from "../base/errors.js";
import { isoUtc } from "../base/time.js";
import { Exact } from "../billing/exact.js";
import type { InvoiceDocument } from "./document/invoiceDocument.js";
import { appendPayments, type PaymentRecord } from "./register/appendReceivables.js";
import { readRegister } from "./register/readRegister.js";
import { readReceivableFacts, receivableOf } from "./receivables.js";

/** A payment to record by hand (`invoices pay`). */
export interface PaymentRequest {
  /** The invoice paid. */
  number: string;
  /** The amount, a decimal in the invoice's currency with at most its decimals (an `Exact` or its text); negative reverses an earlier payment. */
  amount: string | Exact;
  /** The day it was paid, `YYYY-MM-DD` (UTC): not after today. */
  date: string;
  /** What the payer quoted, or a note. */
  reference?: string;
  /** Now, epoch seconds (whether `date` is in the future). Default: the clock. */
  nowEpoch?: number;
}

/** How a payment compares with what was outstanding: all of it, part of it, more than it, or a reversal. */
export type PaymentFit = "exact" | "partial" | "over" | "reversal";

/** A payment recorded, with what it left outstanding. */
export interface PaymentOutcome {
  number: string;
  /** The amount recorded, at the currency's decimals. */
  amount: Exact;
  currency: string;
  fit: PaymentFit;
  /** What is outstanding after it, at the currency's decimals (negative: paid too much). */
  outstanding: Exact;
}

/** How `amount` compares with `outstanding` (before it). */
export function paymentFit(amount: Exact, outstanding: Exact): PaymentFit {
  if (amount.compare(Exact.ZERO) < 0) return "reversal";
  const c = amount.compare(outstanding);
  return c === 0 ? "exact" : c < 0 ? "partial" : "over";
}

/** The amount as a decimal text at the currency's decimals; a UsageError for anything else or zero. */
export function paymentAmount(given: string | Exact, document: InvoiceDocument): Exact {
  const text = String(given);
  const match = /^-?\d+(?:\.(\d+))?$/.exec(text.trim());
  const amount = match ? Exact.parse(text.trim()) : undefined;
  if (!match || amount === undefined || (match[1]?.length ?? 0) > document.decimals || amount.isZero()) {
    throw new UsageError(
      `bad amount: ${JSON.stringify(text)}: give the amount paid in ${document.currency} as a decimal with at most ${document.decimals} decimals, not 0 (e.g. ${document.gross.toJSON().replace(/^-/, "")}; negative reverses a payment)`,
      { code: "BAD_AMOUNT" },
    );
  }
  return amount;
}

/** The invoice of a number in the register; a UsageError for an unknown number or a credit note. */
export async function invoiceOf(connection: DuckDBConnection, number: string): Promise<InvoiceDocument> {
  const [entry] = await readRegister(connection, { number });
  if (entry === undefined)
    throw new UsageError(`no document ${number} in the register (invoiceRegister() lists them)`, {
      code: "UNKNOWN_NUMBER",
    });
  if (entry.document.kind !== "invoice")
    throw new UsageError(`${number} is a credit note: nothing is paid on it (payments go to invoices)`, {
      code: "NOT_AN_INVOICE",
    });
  return entry.document;
}

function checkDate(date: string, nowEpoch: number): void {
  if (
    !/^\d{4}-\d{2}-\d{2}$/.test(date) ||
    Number.isNaN(Date.parse(`${date}T00:00:00Z`)) ||
    isoUtc(Date.parse(`${date}T00:00:00Z`) / 1000).slice(0, 10) !== date
  ) {
    throw new UsageError(`bad date: ${JSON.stringify(date)}: give the day it was paid as YYYY-MM-DD`, {
      code: "BAD_DATE",
    });
  }
  const today = isoUtc(Math.floor(nowEpoch)).slice(0, 10);
  if (date > today)
    throw new UsageError(`bad date: ${date}: it is after today (${today}, UTC): record a payment once it is received`, {
      code: "BAD_DATE",
    });
}

/**
 * Records a payment of an invoice (`invoices pay`), in the register: never an edit, a payment
 * reversed is a new one of the opposite amount. Says how it compares with what was outstanding.
 * Refused (UsageError): an unknown number, a credit note, an amount that is not a decimal of the
 * invoice's currency, a date that is not a day or is after today; RegisterBrokenError: a register
 * that disagrees with its chain.
 */
export async function recordPayment(connection: DuckDBConnection, request: PaymentRequest): Promise<PaymentOutcome> {
  const nowEpoch = request.nowEpoch ?? clockNow();
  // what is outstanding is read from the register: not from one that disagrees with its chain
  await intactRegister(connection);
  const document = await invoiceOf(connection, request.number);
  const amount = paymentAmount(request.amount, document);
  checkDate(request.date, nowEpoch);
  const before = receivableOf(document, await readReceivableFacts(connection), nowEpoch).outstanding;
  const record: PaymentRecord = {
    number: document.number,
    amount: amount.fixed(document.decimals),
    currency: document.currency,
    paidOn: request.date,
    ...(request.reference === undefined ? {} : { reference: request.reference }),
    source: "manual",
  };
  await appendPayments(connection, [record]);
  return {
    number: document.number,
    amount: record.amount,
    currency: document.currency,
    fit: paymentFit(amount, before),
    outstanding: before.sub(amount).fixed(document.decimals),
  };
}
