import { withAmounts, type Recorded } from "../../src/invoices/document/documentAmounts.js";
import type { InvoiceDocument } from "../../src/invoices/document/invoiceDocument.js";

/** What `JSON.stringify` makes of a type: every `Exact` amount its decimal string (`"12.30"`), the rest as it is. */
export type JsonOf<T> = Recorded<T>;

/** A value as a JSON output prints it and a reader parses it back: amounts as decimal strings. */
export function jsonOf<T>(value: T): JsonOf<T> {
  return JSON.parse(JSON.stringify(value)) as JsonOf<T>;
}

/** A document as the register records it (its JSON) and reads it back: a copy whose amounts print the same texts. */
export function readBack<D extends Omit<InvoiceDocument, "basis">>(document: D): D {
  return withAmounts<D>(jsonOf(document) as Recorded<D>);
}
