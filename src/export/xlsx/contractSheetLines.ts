import { periodWords } from "../../base/readableTime.js";
import type { Exact } from "../../billing/exact.js";
import type { DraftDocument, InvoiceDocument } from "../../invoices/document/invoiceDocument.js";

/**
 * A contract's lines on the invoice sheet, after the document's lines: each discount (one, at
 * minus its amount) and the commitment's shortfall (one, at its amount), so the lines add up
 * to the net printed under them.
 */
export function contractSheetLines(document: InvoiceDocument | DraftDocument) {
  const minus = (amount: Exact) => -amount.toNumber();
  return [
    ...(document.allowances ?? []).map((a) => ({
      unit: a.unit,
      description: a.reason,
      period: periodWords(a.start, a.end),
      quantity: 1,
      quantityUnit: "",
      unitPrice: minus(a.amount),
      priceUnit: "",
      net: minus(a.amount),
    })),
    ...(document.commitment
      ? [
          {
            unit: "",
            description: document.commitment.description,
            period: periodWords(document.commitment.start, document.commitment.end),
            quantity: 1,
            quantityUnit: "",
            unitPrice: Number(document.commitment.amount),
            priceUnit: "",
            net: Number(document.commitment.amount),
          },
        ]
      : []),
  ];
}
