import type { DuckDBConnection } from "@duckdb/node-api";
import type { InvoiceDocument } from "./document/invoiceDocument.js";
import { readRegister } from "./register/readRegister.js";

/** The credit notes of the register that refer to an invoice. */
export async function creditNotesOf(connection: DuckDBConnection, number: string): Promise<InvoiceDocument[]> {
  const rows = (
    await connection.runAndReadAll(
      "SELECT number FROM register_documents WHERE kind = 'creditNote' AND corrects = $number ORDER BY entry",
      { number },
    )
  ).getRowsJS();
  const notes: InvoiceDocument[] = [];
  for (const [n] of rows) notes.push((await readRegister(connection, { number: String(n) }))[0]!.document);
  return notes;
}
