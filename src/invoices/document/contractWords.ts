import { groupThousands } from "../../base/groupThousands.js";
import type { Exact } from "../../billing/exact.js";
import { periodWords } from "../../base/readableTime.js";
import { amountDue } from "./contractLines.js";
import type { DraftDocument, InvoiceDocument } from "./invoiceDocument.js";

/** A printed line (as documentWords' LineWords). */
interface ContractLineWords {
  description: string;
  period?: string;
  quantity: string;
  unitPrice: string;
  net: string;
}

const minus = (amount: Exact) => {
  const text = amount.toJSON();
  return text.startsWith("-") ? text.slice(1) : `-${text}`;
};

/**
 * A contract's lines as a customer reads them, after the document's own lines: each discount
 * ("Contract discount 10 % on CU", 10 % of the net it was taken of, the amount off) and the
 * commitment's shortfall ("Minimum commitment: shortfall", the commitment of the period).
 */
export function contractLineWords(doc: InvoiceDocument | DraftDocument, dated: boolean): ContractLineWords[] {
  const period = (start: number, end: number) => (dated ? { period: periodWords(start, end) } : {});
  return [
    ...(doc.allowances ?? []).map((a) => ({
      description: a.reason,
      ...period(a.start, a.end),
      quantity: "",
      unitPrice: `${a.percent} % of ${groupThousands(a.base)}`,
      net: groupThousands(minus(a.amount)),
    })),
    ...(doc.commitment
      ? [
          {
            description: doc.commitment.description,
            ...period(doc.commitment.start, doc.commitment.end),
            quantity: "",
            unitPrice: `committed ${groupThousands(doc.commitment.committed)}`,
            net: groupThousands(doc.commitment.amount),
          },
        ]
      : []),
  ];
}

/**
 * The totals after the tax of a document that consumed prepaid credit: the total including VAT,
 * what was paid in advance (which credits), and the amount due, gross − prepaid (bold). On a
 * credit note: the credit given back. Undefined without prepaid credit (the gross is the amount due).
 */
export function prepaidTotals(
  doc: InvoiceDocument | DraftDocument,
  grossLabel: string,
): { label: string; amount: string; bold?: boolean }[] | undefined {
  const p = doc.prepaid;
  if (p === undefined) return undefined;
  const ids = p.credits.map((c) => c.id).join(", ");
  if (doc.kind === "creditNote")
    return [
      { label: `Credit note total, including VAT (${doc.currency})`, amount: groupThousands(doc.gross) },
      { label: `Prepaid credit given back (${ids})`, amount: groupThousands(minus(p.amount)) },
      { label: grossLabel, amount: groupThousands(amountDue(doc)), bold: true },
    ];
  return [
    { label: `Total, including VAT (${doc.currency})`, amount: groupThousands(doc.gross) },
    { label: `Paid in advance (prepaid credit ${ids})`, amount: groupThousands(minus(p.amount)) },
    { label: grossLabel, amount: groupThousands(amountDue(doc)), bold: true },
  ];
}
