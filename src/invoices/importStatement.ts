import type { DuckDBConnection } from "@duckdb/node-api";
import { intactRegister } from "./register/registerChain.js";
import { clockNow } from "../base/clock.js";
import { readFile } from "node:fs/promises";
import { Exact } from "../billing/exact.js";
import { structuredReferenceIn } from "./document/paymentReference.js";
import { appendPayments, type PaymentRecord } from "./register/appendReceivables.js";
import { readDocumentHeads, readPayments, type DocumentHead } from "./register/readReceivables.js";
import { readCamt053, type StatementEntry } from "./camtStatement.js";
import { readReceivableFacts, receivableOf } from "./receivables.js";
import { paymentFit, type PaymentOutcome } from "./recordPayment.js";

/** A statement credit recorded as a payment: which entry, how it was matched, how it fits. */
export interface MatchedPayment extends PaymentOutcome {
  bankReference: string;
  date: string;
  matchedBy: "reference" | "number";
}

/** A statement credit not recorded: not ours (no invoice named), or ours but not payable as it stands. */
export interface UnmatchedEntry {
  bankReference: string | undefined;
  /** The amount as the statement writes it: a text, as it may be no decimal at all (then it is why the entry is unmatched). */
  amount: string;
  currency: string;
  date: string;
  /** Its remittance information, as written. */
  remittance: string;
  reason: string;
}

/** What importing a statement did. */
export interface StatementImport {
  /** Credits recorded now, in the statement's order. */
  recorded: MatchedPayment[];
  /** Credits recorded by an earlier import (their bank reference is in the register). */
  alreadyRecorded: number;
  unmatched: UnmatchedEntry[];
  /** Debits, reversals and pending entries: not payments received, left alone. */
  ignored: number;
}

/** The invoices a credit may name: by structured reference (those named twice by none) and by number, upper case. */
function invoiceIndex(documents: readonly DocumentHead[]): {
  byReference: Map<string, DocumentHead>;
  byNumber: Map<string, DocumentHead>;
} {
  const invoices = documents.filter((d) => d.kind === "invoice");
  const byReference = new Map<string, DocumentHead>();
  const twice = new Set<string>();
  for (const d of invoices) {
    if (d.paymentReference === undefined) continue;
    if (byReference.has(d.paymentReference)) twice.add(d.paymentReference);
    byReference.set(d.paymentReference, d);
  }
  for (const r of twice) byReference.delete(r);
  return { byReference, byNumber: new Map(invoices.map((d) => [d.number.toUpperCase(), d])) };
}

/** The invoice a credit pays: by its structured reference first, then by an invoice number in its remittance text. */
function matchOf(
  entry: StatementEntry,
  index: ReturnType<typeof invoiceIndex>,
): { document: DocumentHead; by: "reference" | "number" } | undefined {
  for (const candidate of [...entry.references, ...entry.texts]) {
    const reference = structuredReferenceIn(candidate);
    const document = reference === undefined ? undefined : index.byReference.get(reference);
    if (document) return { document, by: "reference" };
  }
  for (const text of entry.texts) {
    for (const token of text.toUpperCase().match(/[A-Z0-9][A-Z0-9\-/_.]*[A-Z0-9]/g) ?? []) {
      const document = index.byNumber.get(token);
      if (document) return { document, by: "number" };
    }
  }
  return undefined;
}

const remittanceOf = (entry: StatementEntry) => [...entry.references, ...entry.texts].join(" | ");

/**
 * Records the payments of a camt.053 bank statement (`invoices payments --camt`): each booked
 * credit that names an invoice, by its structured payment reference first and by its number in
 * the remittance text second, once: an entry whose bank reference the register holds is not
 * recorded again, so importing the same statement twice records nothing new. A credit that
 * names no invoice, or one in another currency, is listed as unmatched, never recorded. An
 * amount that is not what was outstanding is recorded all the same, as a partial or an
 * over-payment (`fit`). All the statement's payments are recorded together, or none. Refused
 * (RegisterBrokenError) while the register disagrees with its chain.
 */
export async function importStatement(
  connection: DuckDBConnection,
  camtFile: string,
  nowEpoch = clockNow(),
): Promise<StatementImport> {
  const entries = readCamt053(await readFile(camtFile), camtFile);
  // which entries were recorded, and what is outstanding, are read from the register: not from one that disagrees with its chain
  await intactRegister(connection);
  const documents = await readDocumentHeads(connection);
  const index = invoiceIndex(documents);
  const known = new Set((await readPayments(connection)).map((p) => p.bankReference).filter((r) => r !== undefined));
  const facts = await readReceivableFacts(connection);
  const outstanding = new Map<string, Exact>();
  const result: StatementImport = { recorded: [], alreadyRecorded: 0, unmatched: [], ignored: 0 };
  const records: PaymentRecord[] = [];
  for (const entry of entries) {
    if (!entry.credit || entry.reversal || !entry.booked) {
      result.ignored++;
      continue;
    }
    const unmatched = (reason: string) =>
      result.unmatched.push({
        bankReference: entry.bankReference,
        amount: entry.amount,
        currency: entry.currency,
        date: entry.date,
        remittance: remittanceOf(entry),
        reason,
      });
    if (entry.bankReference === undefined) {
      unmatched("no bank reference (AcctSvcrRef or NtryRef) to record it once by: record it with recordPayment()");
      continue;
    }
    if (known.has(entry.bankReference)) {
      result.alreadyRecorded++;
      continue;
    }
    const match = matchOf(entry, index);
    if (match === undefined) {
      unmatched("names no invoice of the register (neither its payment reference nor its number)");
      continue;
    }
    const { document } = match;
    const amount = Exact.parse(entry.amount);
    if (entry.currency !== document.currency || amount === undefined || amount.compare(Exact.ZERO) <= 0) {
      unmatched(
        `pays ${document.number} in ${entry.currency || "no currency"} (${entry.amount}): the invoice is in ${document.currency}; record it with recordPayment()`,
      );
      continue;
    }
    known.add(entry.bankReference);
    const before = outstanding.get(document.number) ?? receivableOf(document, facts, nowEpoch).outstanding;
    outstanding.set(document.number, before.sub(amount));
    const paid = amount.fixed(document.decimals);
    records.push({
      number: document.number,
      amount: paid,
      currency: document.currency,
      paidOn: entry.date,
      reference: remittanceOf(entry) || undefined,
      source: "camt.053",
      bankReference: entry.bankReference,
      matchedBy: match.by,
    });
    result.recorded.push({
      number: document.number,
      amount: paid,
      currency: document.currency,
      fit: paymentFit(amount, before),
      outstanding: before.sub(amount).fixed(document.decimals),
      bankReference: entry.bankReference,
      date: entry.date,
      matchedBy: match.by,
    });
  }
  await appendPayments(connection, records);
  return result;
}
