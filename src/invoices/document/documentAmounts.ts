import { Exact } from "../../billing/exact.js";
import type { InvoiceDocument } from "./invoiceDocument.js";

/** A value as JSON holds it: every `Exact` amount its decimal text. */
export type Recorded<T> = T extends Exact
  ? string
  : T extends readonly (infer U)[]
    ? Recorded<U>[]
    : T extends object
      ? { [K in keyof T]: Recorded<T[K]> }
      : T;

const amount = (text: string): Exact => Exact.amount(text);

/**
 * A document as the register's JSON holds it, its amounts made `Exact`s that print the text they
 * were recorded with (`Exact.amount`): the same keys in the same order, so that it serializes to
 * the same bytes and renders the same files.
 */
export function withAmounts<D extends Omit<InvoiceDocument, "basis">>(stored: Recorded<D>): D {
  const d = stored as Recorded<Omit<InvoiceDocument, "basis">>;
  const doc = {
    ...d,
    lines: d.lines.map((l) => ({ ...l, net: amount(l.net) })),
    ...(d.sections ? { sections: d.sections.map((x) => ({ ...x, net: amount(x.net) })) } : {}),
    taxes: d.taxes.map((t) => ({ ...t, base: amount(t.base), amount: amount(t.amount) })),
    ...(d.allowances
      ? { allowances: d.allowances.map((x) => ({ ...x, base: amount(x.base), amount: amount(x.amount) })) }
      : {}),
    ...(d.commitment
      ? {
          commitment: {
            ...d.commitment,
            committed: amount(d.commitment.committed),
            amount: amount(d.commitment.amount),
          },
        }
      : {}),
    net: amount(d.net),
    tax: amount(d.tax),
    gross: amount(d.gross),
    ...(d.prepaid
      ? {
          prepaid: {
            amount: amount(d.prepaid.amount),
            credits: d.prepaid.credits.map((c) => ({ id: c.id, amount: amount(c.amount) })),
          },
        }
      : {}),
    ...(d.taxInAccountingCurrency
      ? { taxInAccountingCurrency: { ...d.taxInAccountingCurrency, amount: amount(d.taxInAccountingCurrency.amount) } }
      : {}),
  };
  return doc as unknown as D;
}

/** A decimal text negated (`"12.30"` → `"-12.30"`, `"0.00"` stays, never `"-0.00"`). */
export function negatedText(text: string): string {
  if (/^-?0*\.?0*$/.test(text)) return text.replace(/^-/, "");
  return text.startsWith("-") ? text.slice(1) : `-${text}`;
}

/** An amount negated, written at the decimals of its text (`12.30` → `-12.30`): a credit note's figures. */
export function negatedAmount(amount: Exact): Exact {
  return Exact.amount(negatedText(amount.toJSON()));
}
