import type { DuckDBConnection } from "@duckdb/node-api";
import type { DocumentKind } from "../document/invoiceDocument.js";
import { hasTable } from "../../base/hasTable.js";

/** A sequence of numbers: one per issuer, kind of document and year of the issue date. */
export interface SequenceKey {
  /** The issuer's legal identity: its `peppolId`, else its legal name (`issuerIdentity`). */
  issuer: string;
  kind: DocumentKind;
  year: number;
}

/** Where a sequence stands: its last place (0 when empty) and the issue date given there. */
export interface SequenceEnd {
  seq: number;
  issueDate: string | undefined;
}

/**
 * `statement_numbers`: numbers the PDF statements of versions before the register took, kept as
 * they were (never written again). An invoice sequence continues after the largest of them of its
 * year, so no number printed on a statement already sent is given again.
 */
function hasLegacyNumbers(connection: DuckDBConnection): Promise<boolean> {
  return hasTable(connection, "statement_numbers");
}

/** The identity of a document's issuer, from its JSON (a register made before kept the VAT id in `issuer`): as `issuerIdentity`. */
const ISSUER_IDENTITY_SQL =
  "coalesce(json_extract_string(document, '$.issuer.peppolId'), json_extract_string(document, '$.issuer.legalName'))";

/**
 * The end of a sequence in the register, in the caller's transaction: its largest place and the
 * latest issue date given in it. The sequence is the issuer's identity's, read from each
 * document as issued, so documents of a register whose `issuer` column holds a VAT id (made
 * before) count in the sequence of their issuer's `peppolId`. An invoice sequence starts after the legacy statement numbers of
 * its year (see `statement_numbers` in docs/warehouse.md).
 */
export async function sequenceEnd(connection: DuckDBConnection, key: SequenceKey): Promise<SequenceEnd> {
  const row = (
    await connection.runAndReadAll(
      `SELECT coalesce(max(seq), 0) AS seq, max(issue_date) AS issue_date FROM register_documents WHERE ${ISSUER_IDENTITY_SQL} = $issuer AND kind = $kind AND seq_year = $year`,
      { ...key },
    )
  ).getRowObjectsJS()[0]!;
  const end = { seq: Number(row.seq), issueDate: row.issue_date === null ? undefined : String(row.issue_date) };
  if (key.kind !== "invoice" || !(await hasLegacyNumbers(connection))) return end;
  const legacy = (
    await connection.runAndReadAll(
      "SELECT coalesce(max(seq), 0) AS seq, max(issue_date) AS issue_date FROM statement_numbers WHERE issue_date LIKE $year",
      { year: `${key.year}-%` },
    )
  ).getRowObjectsJS()[0]!;
  return {
    seq: Math.max(end.seq, Number(legacy.seq)),
    issueDate: [end.issueDate, legacy.issue_date === null ? undefined : String(legacy.issue_date)]
      .filter((d) => d !== undefined)
      .sort()
      .at(-1),
  };
}

/** The numbers of `candidates` already given: in the register, or as a legacy statement number. */
export async function numbersTaken(connection: DuckDBConnection, candidates: readonly string[]): Promise<string[]> {
  if (candidates.length === 0) return [];
  const list = JSON.stringify(candidates);
  const legacy = (await hasLegacyNumbers(connection)) ? " UNION SELECT number FROM statement_numbers" : "";
  const rows = (
    await connection.runAndReadAll(
      `SELECT number FROM (SELECT number FROM register_documents${legacy}) WHERE list_contains($list::VARCHAR[], number) ORDER BY number`,
      { list },
    )
  ).getRowsJS();
  return rows.map(([n]) => String(n));
}
