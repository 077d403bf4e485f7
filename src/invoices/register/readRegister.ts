import type { DuckDBConnection } from "@duckdb/node-api";
import type { InvoiceDocument } from "../document/invoiceDocument.js";
import { withAmounts, type Recorded } from "../document/documentAmounts.js";
import type { IssuedFile } from "./appendToRegister.js";
import { hasTable } from "../../base/hasTable.js";

/** A document of the register, as issued, with what later rows say of it. */
export interface RegisterEntry {
  /** Its place in the order of issue: 1, 2, 3... across the warehouse. */
  entry: number;
  /** The document as issued, its basis hours included. */
  document: InvoiceDocument;
  /** The files issued for it (names and SHA-256; `readRegisterFiles` gives their bytes). */
  files: { name: string; sha256: string }[];
  /** On a corrected invoice: the credit note that cancels it, and the invoice that replaces it; else null. */
  correctedBy: string | null;
  replacedBy: string | null;
  /** When it was recorded, ISO 8601 UTC. */
  issuedAt: string;
}

/** Which documents to read: by number, by account, by billed period (exactly it, or those whose period starts in `[start, end)`). */
export interface RegisterFilter {
  number?: string;
  accountIds?: readonly number[];
  period?: { start: number; end: number };
  periodStartsIn?: { start: number; end: number };
}

/** True when the warehouse has a register (a warehouse made before it, opened read-only, has none: it issued nothing). */
export async function hasRegister(connection: DuckDBConnection): Promise<boolean> {
  return hasTable(connection, "register_documents");
}

/** The register's documents that the filter selects, in the order they were issued. */
export async function readRegister(
  connection: DuckDBConnection,
  filter: RegisterFilter = {},
): Promise<RegisterEntry[]> {
  if (!(await hasRegister(connection))) return [];
  const where: string[] = [];
  const params: Record<string, string | number> = {};
  if (filter.number !== undefined) {
    where.push("d.number = $number");
    params.number = filter.number;
  }
  if (filter.accountIds !== undefined) {
    // a document of several accounts is of each (its JSON lists them: a warehouse made before has no account_ids column)
    where.push(
      `list_has_any($accounts::BIGINT[], coalesce(from_json(d.document->'accountIds', '["BIGINT"]'), [d.account_id]))`,
    );
    params.accounts = JSON.stringify(filter.accountIds);
  }
  if (filter.period !== undefined) {
    where.push("d.period_start_epoch = $periodStart AND d.period_end_epoch = $periodEnd");
    Object.assign(params, { periodStart: filter.period.start, periodEnd: filter.period.end });
  }
  if (filter.periodStartsIn !== undefined) {
    where.push("d.period_start_epoch >= $start AND d.period_start_epoch < $end");
    Object.assign(params, filter.periodStartsIn);
  }
  const accountHours = (await hasTable(connection, "register_basis_account_hours"))
    ? `(SELECT list({'accountId': a.account_id, 'hour': a.hour_epoch, 'sha256': a.files_sha256} ORDER BY a.account_id, a.hour_epoch)
          FROM register_basis_account_hours a WHERE a.number = d.number)`
    : "NULL";
  const rows = (
    await connection.runAndReadAll(
      `SELECT ${accountHours} AS account_hours, d.entry, d.number, d.document::VARCHAR AS document, strftime(d.issued_at AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%SZ') AS issued_at,
       c.credit_note, c.replacement,
       (SELECT list({'name': f.name, 'sha256': f.sha256} ORDER BY f.name) FROM register_files f WHERE f.number = d.number) AS files,
       (SELECT list(b.hour_epoch ORDER BY b.hour_epoch) FROM register_basis_hours b WHERE b.number = d.number) AS hours,
       (SELECT list(b.files_sha256 ORDER BY b.hour_epoch) FROM register_basis_hours b WHERE b.number = d.number) AS hour_sha256
     FROM register_documents d LEFT JOIN register_corrections c ON c.corrected = d.number
     ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""}
     ORDER BY d.entry`,
      params,
    )
  ).getRowObjectsJS();
  return rows.map((r) => {
    const stored = withAmounts(
      JSON.parse(String(r.document)) as Recorded<Omit<InvoiceDocument, "basis">> & {
        basis: Omit<InvoiceDocument["basis"], "hours" | "hourSha256">;
      },
    ) as Omit<InvoiceDocument, "basis"> & { basis: Omit<InvoiceDocument["basis"], "hours" | "hourSha256"> };
    const hours = ((r.hours as bigint[] | null) ?? []).map(Number);
    const hourSha256 = ((r.hour_sha256 as string[] | null) ?? []).map(String);
    const accounts = accountsBasis(r.account_hours as { accountId: bigint; hour: bigint; sha256: string }[] | null);
    return {
      entry: Number(r.entry),
      document: { ...stored, basis: { ...stored.basis, hours, hourSha256, ...(accounts ? { accounts } : {}) } },
      files: ((r.files as { name: string; sha256: string }[] | null) ?? []).map((f) => ({
        name: String(f.name),
        sha256: String(f.sha256),
      })),
      correctedBy: r.credit_note === null ? null : String(r.credit_note),
      replacedBy: r.replacement === null ? null : String(r.replacement),
      issuedAt: String(r.issued_at),
    };
  });
}

/** The basis hours of a document of several accounts, per account; undefined for a document of one. */
function accountsBasis(
  rows: { accountId: bigint; hour: bigint; sha256: string }[] | null,
): InvoiceDocument["basis"]["accounts"] {
  if (rows === null || rows.length === 0) return undefined;
  const out: NonNullable<InvoiceDocument["basis"]["accounts"]> = [];
  for (const row of rows) {
    const accountId = Number(row.accountId);
    if (out.at(-1)?.accountId !== accountId) out.push({ accountId, hours: [], hourSha256: [] });
    out.at(-1)!.hours.push(Number(row.hour));
    out.at(-1)!.hourSha256.push(String(row.sha256));
  }
  return out;
}

/** The files of a document as issued, byte for byte, by name. */
export async function readRegisterFiles(connection: DuckDBConnection, number: string): Promise<IssuedFile[]> {
  const rows = (
    await connection.runAndReadAll("SELECT name, content FROM register_files WHERE number = $number ORDER BY name", {
      number,
    })
  ).getRowsJS();
  return rows.map(([name, content]) => ({ name: String(name), bytes: new Uint8Array(content as Uint8Array) }));
}

/** One file of the register by its name (`<number>.xml`), byte for byte; undefined when the register has none of that name. */
export async function readRegisterFile(connection: DuckDBConnection, name: string): Promise<IssuedFile | undefined> {
  const rows = (
    await connection.runAndReadAll("SELECT content FROM register_files WHERE name = $name", { name })
  ).getRowsJS();
  return rows.length === 0 ? undefined : { name, bytes: new Uint8Array(rows[0]![0] as Uint8Array) };
}

/**
 * The invoices in force (issued, not corrected) for exactly this period, of these accounts (default
 * every account): what the period's statements show as issued instead of a draft.
 */
export async function invoicesInForce(
  connection: DuckDBConnection,
  period: { start: number; end: number },
  accountIds?: readonly number[],
): Promise<InvoiceDocument[]> {
  const entries = await readRegister(connection, { period, ...(accountIds === undefined ? {} : { accountIds }) });
  return entries.filter((e) => e.document.kind === "invoice" && e.correctedBy === null).map((e) => e.document);
}
