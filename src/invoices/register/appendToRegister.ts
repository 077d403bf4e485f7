import type { DuckDBConnection } from "@duckdb/node-api";
import { createHash } from "node:crypto";
import { duckdbApi } from "../../base/duckdb.js";
import type { InvoiceDocument } from "../document/invoiceDocument.js";
import { appendPaymentReferences } from "./appendReceivables.js";
import { appendLinks } from "./registerChain.js";
import { documentAccountIds, documentCustomerId } from "../document/customers.js";

/** A file of an issued document: its name (`<number>.pdf`, `<number>.xml`) and its bytes. */
export interface IssuedFile {
  name: string;
  bytes: Uint8Array;
}

/** A document to record in the register, with its place in its sequence and its files. */
export interface RegisterRecord {
  document: InvoiceDocument;
  /** Whose sequence the number is of: the issuer's `peppolId`, else its legal name (see `issuerIdentity`). */
  issuer: string;
  /** Its place in the sequence of (issuer, kind, year of the issue date): 1, 2, 3... */
  seq: number;
  files: IssuedFile[];
}

/** A correction: the invoice corrected, the credit note that cancels it and the invoice that replaces it, and why. */
export interface CorrectionRecord {
  corrected: string;
  creditNote: string;
  replacement: string;
  reason: string;
}

/** Hex SHA-256 of bytes. */
export function sha256Hex(bytes: Uint8Array | string): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** The document as `register_documents.document` keeps it: its basis hours are rows of `register_basis_hours`. */
function storedDocument(document: InvoiceDocument): string {
  const { hours: _hours, hourSha256: _hourSha256, accounts: _accounts, ...basis } = document.basis;
  return JSON.stringify({ ...document, basis });
}

/**
 * Appends documents (and a correction) to the register, in the caller's transaction, so the
 * numbers, the rows and the files of one run are committed together or not at all. The
 * register is append-only: this inserts, nothing here or elsewhere updates or deletes its rows.
 * A number, a file name or a place in a sequence already held fails the insert (and so the
 * caller's transaction). Each document is chained (`appendLinks`) once its rows are in.
 */
export async function appendToRegister(
  connection: DuckDBConnection,
  records: readonly RegisterRecord[],
  correction?: CorrectionRecord,
): Promise<void> {
  const last = (
    await connection.runAndReadAll("SELECT coalesce(max(entry), 0) FROM register_documents")
  ).getRowsJS()[0]![0];
  let entry = Number(last);
  for (const { document: d, issuer, seq, files } of records) {
    await connection.run(
      `INSERT INTO register_documents (entry, number, kind, issuer, seq_year, seq, account_id, period_start_epoch, period_end_epoch,
         issue_date, due_date, currency, net, tax, gross, corrects, reason, prices_sha256, statement_sha256, document, customer_id, account_ids)
       VALUES ($entry, $number, $kind, $issuer, $year, $seq, $account, $start, $end, $issueDate, $dueDate, $currency, $net, $tax, $gross,
         $corrects, $reason, $prices, $statement, $document, $customer, $accounts::BIGINT[])`,
      {
        entry: ++entry,
        number: d.number,
        kind: d.kind,
        issuer,
        year: Number(d.issueDate.slice(0, 4)),
        seq,
        account: d.accountId,
        start: d.start,
        end: d.end,
        issueDate: d.issueDate,
        dueDate: d.dueDate,
        currency: d.currency,
        net: d.net.toJSON(),
        tax: d.tax.toJSON(),
        gross: d.gross.toJSON(),
        corrects: d.corrects?.number ?? null,
        reason: d.reason ?? null,
        prices: d.basis.pricesSha256,
        statement: d.basis.statementSha256,
        document: storedDocument(d),
        customer: documentCustomerId(d),
        accounts: JSON.stringify(documentAccountIds(d)),
      },
    );
    await appendBasisHours(connection, d);
    for (const file of files) {
      await connection.run(
        "INSERT INTO register_files (name, number, sha256, content) VALUES ($name, $number, $sha256, $content)",
        {
          name: file.name,
          number: d.number,
          sha256: sha256Hex(file.bytes),
          content: duckdbApi().blobValue(file.bytes),
        },
      );
    }
  }
  await appendPaymentReferences(
    connection,
    records.map((r) => r.document),
  );
  if (correction !== undefined) {
    await connection.run(
      "INSERT INTO register_corrections (corrected, credit_note, replacement, reason) VALUES ($corrected, $creditNote, $replacement, $reason)",
      { ...correction },
    );
  }
  await appendLinks(
    connection,
    "document",
    records.map((r) => r.document.number),
  );
}

/** A document's basis hours, one row each (a month of an account is ~744 rows: appended, not inserted one by one). */
async function appendBasisHours(connection: DuckDBConnection, document: InvoiceDocument): Promise<void> {
  const { hours, hourSha256, accounts } = document.basis;
  if (accounts !== undefined) await appendAccountHours(connection, document.number, accounts);
  if (hours.length !== hourSha256.length)
    throw new RangeError(`${document.number}: ${hours.length} basis hours but ${hourSha256.length} SHA-256`);
  const appender = await connection.createAppender("register_basis_hours");
  try {
    hours.forEach((hour, i) => {
      appender.appendVarchar(document.number);
      appender.appendBigInt(BigInt(hour));
      appender.appendVarchar(hourSha256[i]!);
      appender.endRow();
    });
    appender.flushSync();
  } finally {
    appender.closeSync();
  }
}

/** The basis hours of a document of several accounts, one row per account-hour. */
async function appendAccountHours(
  connection: DuckDBConnection,
  number: string,
  accounts: NonNullable<InvoiceDocument["basis"]["accounts"]>,
): Promise<void> {
  const appender = await connection.createAppender("register_basis_account_hours");
  try {
    for (const { accountId, hours, hourSha256 } of accounts) {
      if (hours.length !== hourSha256.length)
        throw new RangeError(
          `${number}: account ${accountId}: ${hours.length} basis hours but ${hourSha256.length} SHA-256`,
        );
      hours.forEach((hour, i) => {
        appender.appendVarchar(number);
        appender.appendBigInt(BigInt(accountId));
        appender.appendBigInt(BigInt(hour));
        appender.appendVarchar(hourSha256[i]!);
        appender.endRow();
      });
    }
    appender.flushSync();
  } finally {
    appender.closeSync();
  }
}
