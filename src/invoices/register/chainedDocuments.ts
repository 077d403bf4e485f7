import type { DuckDBConnection } from "@duckdb/node-api";
import { hasTable } from "../../base/hasTable.js";
import type { ChainedKind, ChainedRecord } from "./registerChain.js";

/** The columns of `register_documents` a document's link covers: every one (a column added later is not part of documents linked before it). */
const COLUMNS = [
  "entry",
  "number",
  "kind",
  "issuer",
  "seq_year",
  "seq",
  "account_id",
  "period_start_epoch",
  "period_end_epoch",
  "issue_date",
  "due_date",
  "currency",
  "net",
  "tax",
  "gross",
  "corrects",
  "reason",
  "prices_sha256",
  "statement_sha256",
] as const;

/** Whose numbering sequence a document is of: the issuer's legal identity, its `peppolId`, else its legal name. */
export function issuerIdentity(issuer: { legalName: string; peppolId?: string }): string {
  return issuer.peppolId ?? issuer.legalName;
}

/** A document's sequence, in words: "invoices of 9930:DE123456789 in 2026". */
export function sequenceName(identity: string, kind: string, year: number): string {
  return `${kind === "invoice" ? "invoices" : "credit notes"} of ${identity} in ${year}`;
}

/**
 * The documents of the register as the chain sees them (every or those of `keys`, in the order
 * issued): each field of its row, each part of its JSON (a line, a tax line by its index), its
 * basis hours, each file's recorded SHA-256 and the SHA-256 of its bytes as held, and the
 * correction it is part of. Its chain is its numbering sequence, its place there its seq.
 */
async function readDocuments(connection: DuckDBConnection, keys?: readonly string[]): Promise<ChainedRecord[]> {
  if (!(await hasTable(connection, "register_documents"))) return [];
  const rows = (
    await connection.runAndReadAll(
      `SELECT ${COLUMNS.map((c) => `d.${c}`).join(", ")}, d.document::VARCHAR AS document, epoch_us(d.issued_at) AS issued_at_us,
       (SELECT list([b.hour_epoch::VARCHAR, b.files_sha256] ORDER BY b.hour_epoch) FROM register_basis_hours b WHERE b.number = d.number) AS basis,
       (SELECT list([f.name, f.sha256, sha256(f.content)] ORDER BY f.name) FROM register_files f WHERE f.number = d.number) AS files,
       (SELECT list([c.corrected, c.credit_note, c.replacement, c.reason, strftime(c.corrected_at AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.%fZ')] ORDER BY c.corrected)
          FROM register_corrections c WHERE c.credit_note = d.number OR c.replacement = d.number) AS corrections
     FROM register_documents d ${keys === undefined ? "" : "WHERE list_contains($keys::VARCHAR[], d.number)"}
     ORDER BY d.entry`,
      keys === undefined ? {} : { keys: JSON.stringify(keys) },
    )
  ).getRowObjectsJS();
  return rows.map((r) => {
    const fields: Record<string, unknown> = {};
    for (const column of COLUMNS) fields[column] = r[column];
    fields.issued_at = r.issued_at_us;
    const document = JSON.parse(String(r.document)) as Record<string, unknown>;
    for (const [name, value] of Object.entries(document)) {
      if (!Array.isArray(value)) fields[`document ${name}`] = value;
      else value.forEach((item, i) => (fields[`document ${name}[${i}]`] = item));
    }
    fields["basis hours"] = r.basis ?? [];
    for (const [name, sha256, bytes] of (r.files as string[][] | null) ?? []) {
      fields[`recorded SHA-256 of ${name}`] = sha256;
      fields[`bytes of ${name}`] = bytes;
    }
    if (r.corrections !== null) fields.correction = r.corrections;
    const issuer = (document.issuer ?? {}) as { legalName: string; peppolId?: string };
    return {
      key: String(r.number),
      chain: sequenceName(issuerIdentity(issuer), String(r.kind), Number(r.seq_year)),
      place: Number(r.seq),
      fields,
    };
  });
}

/** Documents, as the register chains them. */
export const chainedDocuments: ChainedKind = { noun: "document", read: readDocuments };
