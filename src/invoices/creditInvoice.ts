import type { DuckDBConnection } from "@duckdb/node-api";
import { clockNow } from "../base/clock.js";
import { UsageError } from "../base/errors.js";
import { wellFormed } from "../base/wellFormed.js";
import type { Exact } from "../billing/exact.js";
import { loadStatementConfig } from "./document/statementConfig.js";
import { issuerIdentity } from "./register/chainedDocuments.js";
import { readRegister, type RegisterEntry } from "./register/readRegister.js";
import { intactRegister } from "./register/registerChain.js";
import { invoiceInForce, refuseOtherIssuer } from "./correctInvoice.js";
import { creditNotesOf } from "./creditNotesOf.js";
import { issueDateFor } from "./issueDate.js";
import { partialCreditNoteOf, remainderOf, type CreditAsked } from "./document/partialCreditNote.js";
import { preflight } from "./preflight.js";
import { checkNumbering, recordDocuments, type IssueStep } from "./recordDocuments.js";
import { writeDocuments, type DocumentWritten } from "./writeIssuedFiles.js";

/** What `creditNote` is asked: the invoice, what of it to credit, why, and where the credit note goes. */
export interface CreditRequest {
  /** The number of the invoice to credit in part (in force: not corrected). */
  number: string;
  /**
   * `{ amount }`: an amount before tax (net, a decimal of the invoice's currency), spread over the
   * invoice's tax categories in proportion to their net, tax added per category; or `{ lines }`:
   * whole lines by name, `CU` or `CU@2026-10-16` (the first day of the line's price period, when
   * the unit has a line per price period), then `@account:7101` on an invoice of several accounts
   * when the unit has a line in more than one.
   */
  credit: CreditAsked;
  /** Why: printed on the credit note. */
  reason: string;
  /** The statement config (YAML or JSON): its credit note numbering pattern and issuer. */
  statement: string;
  /** The folder the credit note's files are written to (made when missing). */
  out: string;
  /** The credit note's issue date, `YYYY-MM-DD`: not before the invoice's, not after today. Default: today (UTC). */
  issueDate?: string;
  /** The current time, epoch seconds (today). Default: the clock. */
  nowEpoch?: number;
  onStep?: (step: IssueStep) => void;
}

/** What `creditNote` did: the invoice (still in force), the credit note written, and what remains of the invoice. */
export interface CreditResult {
  /** Older keys of the statement config, each with what to write instead. */
  notes: string[];
  /** What a file could not hold as written (a character no font of the PDF has). */
  warnings: string[];
  invoice: RegisterEntry;
  creditNote: DocumentWritten;
  /** Σ of the gross of the invoice's credit notes, this one included (positive), at the currency's decimals. */
  credited: Exact;
  /** The invoice's gross − credited, at the currency's decimals: what remains of it in force. */
  remaining: Exact;
}

/**
 * Credits part of an issued invoice (docs/billing.md, `cloudunits invoices credit`): a credit note
 * of an amount before tax or of whole lines (`partialCreditNoteOf`), numbered in the credit notes'
 * sequence and recorded in one transaction, then its files written into `out`. The invoice stays in
 * force (not marked corrected); its credit notes never add up to more than it. Refused before any
 * number is given: a register that disagrees with its chain (RegisterBrokenError); an unknown
 * number, a credit note, a corrected invoice, a config of another issuer, no reason, an issue date
 * before the invoice's, a bad amount, an unknown line, a name of several lines or a line credited before, a credit of more than
 * remains (UsageError: UNKNOWN_NUMBER, NOT_CORRECTABLE, ISSUER_DIFFERS, BAD_AMOUNT, UNKNOWN_LINE,
 * AMBIGUOUS_LINE, LINE_CREDITED, CREDIT_EXCEEDS).
 *
 * `connection`: the warehouse opened to write, which keeps other writers out until it is closed, so
 * two credits of one invoice never both count on what remains.
 */
export async function creditInvoice(connection: DuckDBConnection, request: CreditRequest): Promise<CreditResult> {
  const reason = wellFormed(request.reason.trim());
  if (reason === "")
    throw new UsageError("a credit note needs a reason (reason: TEXT): it is printed on the credit note");
  await intactRegister(connection);
  const [asked] = await readRegister(connection, { number: request.number });
  if (asked?.document.kind === "creditNote")
    throw new UsageError(
      `${request.number} is a credit note: a credit note credits an invoice; credit ${asked.document.corrects?.number ?? "the invoice"} instead`,
      { code: "NOT_CORRECTABLE" },
    );
  const invoice = await invoiceInForce(connection, request.number);
  const o = invoice.document;
  const nowEpoch = request.nowEpoch ?? clockNow();
  const config = await loadStatementConfig(request.statement);
  checkNumbering(config);
  refuseOtherIssuer(o, config.issuer, config.source);
  const issueDate = issueDateFor(request.issueDate, o, nowEpoch);
  if (issueDate < o.issueDate)
    throw new UsageError(
      `issueDate: ${issueDate} is before ${o.issueDate}, the issue date of ${o.number}: a credit note is dated on or after its invoice`,
      { code: "BAD_TIME" },
    );
  const before = await creditNotesOf(connection, o.number);
  // checked before a number is given: the same call makes the document once numbered
  const make = (number: string) =>
    partialCreditNoteOf(o, before, { number, issueDate, reason, credit: request.credit });
  make("CN-CHECK");
  request.onStep?.("computed");
  await preflight({ config, accountIds: [o.accountId], out: request.out });
  const warnings: string[] = [];
  const [recorded] = await recordDocuments(
    connection,
    [{ kind: "creditNote", accountId: o.accountId, issuer: issuerIdentity(o.issuer), make }],
    {
      config,
      issueDate,
      out: request.out,
      onStep: request.onStep,
      onWarning: (message) => warnings.push(message),
    },
  );
  const [entry] = await readRegister(connection, { number: recorded!.document.number });
  const [creditNote] = await writeDocuments(connection, [entry!], request.out, request.onStep);
  const remainder = remainderOf(o, [...before, recorded!.document]);
  return {
    notes: config.deprecations,
    warnings,
    invoice: (await readRegister(connection, { number: o.number }))[0]!,
    creditNote: creditNote!,
    credited: remainder.credited.fixed(o.decimals),
    remaining: remainder.gross.fixed(o.decimals),
  };
}
