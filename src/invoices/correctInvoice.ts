import type { DuckDBConnection } from "@duckdb/node-api";
import { MissingHoursError, UsageError } from "../base/errors.js";
import { wellFormed } from "../base/wellFormed.js";
import { issuerIdentity } from "./register/chainedDocuments.js";
import { readRegister, type RegisterEntry } from "./register/readRegister.js";
import { intactRegister } from "./register/registerChain.js";
import { formatHours } from "../sync/formatHours.js";
import { accountDrafts } from "./accountDrafts.js";
import { customerDocument, type CustomerDraft } from "./customerDrafts.js";
import { documentAccountIds, documentCustomerId } from "./document/customers.js";
import { issueDateFor } from "./issueDate.js";
import { preflight } from "./preflight.js";
import { refuseCurrencyChange } from "./currencyChange.js";
import { readIssueInputs, type IssueFiles } from "./issueInputs.js";
import { creditNoteOf } from "./document/buildInvoiceDocument.js";
import { checkNumbering, recordDocuments, type IssueStep } from "./recordDocuments.js";
import { writeDocuments, type DocumentWritten } from "./writeIssuedFiles.js";
import { clockNow } from "../base/clock.js";
import { creditNotesOf } from "./creditNotesOf.js";
import { remainderCreditNoteOf } from "./document/partialCreditNote.js";

/** What `correctInvoice` is asked: the invoice, why, the files to compute today's figures with, and where the documents go. */
export interface CorrectRequest extends IssueFiles {
  /** The number of the invoice to correct (in force: not corrected already). */
  number: string;
  /** Why: printed on the credit note and on the new invoice. */
  reason: string;
  /** The folder the two documents' files are written to (made when missing). */
  out: string;
  /** Hours of the period not held that the original did not accept either: issue without them. Default false (refused, exit 3). */
  acceptMissing?: boolean;
  /** The issue date of the credit note and the new invoice, `YYYY-MM-DD`. Default: today (UTC). */
  issueDate?: string;
  /** The current time, epoch seconds (today). Default: the clock. */
  nowEpoch?: number;
  onStep?: (step: IssueStep) => void;
}

/** What `correctInvoice` did: the invoice corrected (as issued), the credit note cancelling it and the invoice replacing it, with their files in `out`. */
export interface CorrectResult {
  /** Older keys of the statement config, each with what to write instead. */
  notes: string[];
  /** What a file could not hold as written (a character no font of the PDF has). */
  warnings: string[];
  corrected: RegisterEntry;
  creditNote: DocumentWritten;
  replacement: DocumentWritten;
}

/** The invoice of `number` in force, or a UsageError saying why it cannot be corrected. */
export async function invoiceInForce(connection: DuckDBConnection, number: string): Promise<RegisterEntry> {
  const [entry] = await readRegister(connection, { number });
  if (entry === undefined) {
    const last = (await readRegister(connection)).slice(-5).map((e) => e.document.number);
    throw new UsageError(
      `no document ${number} in the register${last.length > 0 ? ` (the last issued: ${last.join(", ")}; all: invoiceRegister())` : " (it holds none yet)"}`,
      { code: "UNKNOWN_NUMBER" },
    );
  }
  if (entry.document.kind !== "invoice")
    throw new UsageError(
      `${number} is a credit note: a credit note is not corrected; correct the invoice in force instead`,
      { code: "NOT_CORRECTABLE" },
    );
  if (entry.correctedBy !== null) {
    throw new UsageError(
      `${number} was corrected already, by ${entry.correctedBy} and ${entry.replacedBy}: correct ${entry.replacedBy} instead`,
      { code: "NOT_CORRECTABLE" },
    );
  }
  return entry;
}

/**
 * Throws a UsageError when the invoice was issued by another issuer (another legal identity) than
 * the config's: its new invoice would go into that other issuer's sequence, its credit note stay
 * in the first's.
 */
export function refuseOtherIssuer(
  original: RegisterEntry["document"],
  issuer: { legalName: string; peppolId?: string },
  source: string,
): void {
  const identity = issuerIdentity(issuer);
  const theirs = issuerIdentity(original.issuer);
  if (theirs === identity) return;
  throw new UsageError(
    `${original.number} was issued by ${original.issuer.legalName} (${theirs}); ${source} is of ${issuer.legalName} (${identity}): ` +
      "correct an invoice with the statement config of the issuer who issued it",
    { code: "ISSUER_DIFFERS" },
  );
}

/**
 * Corrects an issued invoice (docs/billing.md): a credit note cancelling it in full (its lines
 * negated, referring to its number and issue date) and a new invoice of today's figures, both
 * numbered in their sequences and carrying the reason, recorded with the link between the three
 * in one transaction; the original's rows stay as they were. Then both documents' files are
 * written into `out`. Refused: a register that disagrees with its chain (RegisterBrokenError); a
 * number not in the register, a credit note, an invoice corrected already, a config of another
 * issuer than the invoice's (UsageError ISSUER_DIFFERS); hours of the period not held that the original did not accept either,
 * unless `acceptMissing` (MissingHoursError).
 */
export async function correctInvoice(connection: DuckDBConnection, request: CorrectRequest): Promise<CorrectResult> {
  const reason = wellFormed(request.reason.trim()); // a lone surrogate of a library caller's text is no text the register's JSON holds
  if (reason === "")
    throw new UsageError(
      "a correction needs a reason (reason: TEXT): it is printed on the credit note and the new invoice",
    );
  // nothing is numbered from a register that disagrees with its chain
  await intactRegister(connection);
  const original = await invoiceInForce(connection, request.number);
  const o = original.document;
  const nowEpoch = request.nowEpoch ?? clockNow();
  const inputs = await readIssueInputs(request);
  checkNumbering(inputs.config);
  refuseOtherIssuer(o, inputs.config.issuer, inputs.config.source);
  const issueDate = issueDateFor(request.issueDate, o, nowEpoch);
  // the invoice's accounts, today's figures of each (a customer's invoice is corrected whole)
  const accountIds = documentAccountIds(o);
  const accounts = await accountDrafts(connection, o, inputs, { accountIds, alsoAccounts: accountIds });
  const draft: CustomerDraft = {
    customer: { id: documentCustomerId(o), accountIds, grouped: o.accountIds !== undefined },
    accounts,
    accountId: o.accountId,
    missingHours: [...new Set(accounts.flatMap((d) => d.missingHours))].sort((a, b) => a - b),
  };
  request.onStep?.("computed");
  // the credit note is in the invoice's currency, and so must the invoice replacing it be (exit 2)
  for (const account of accounts)
    if (account.invoice.currency !== o.currency)
      refuseCurrencyChange(
        [
          {
            issued: o,
            currency: account.invoice.currency,
            net: account.invoice.amountDue.toFixed(account.invoice.decimals),
          },
        ],
        inputs.prices.source ?? "the price list",
      );
  const newly = accounts
    .map((d) => ({ accountId: d.accountId, hours: d.missingHours.filter((h) => !o.missingHours.includes(h)) }))
    .filter((d) => d.hours.length > 0);
  if (newly.length > 0 && !request.acceptMissing) {
    throw new MissingHoursError(
      newly,
      o.number,
      newly.map(
        ({ accountId, hours }) =>
          `account ${accountId}: ${hours.length} hour${hours.length === 1 ? "" : "s"} not held that ${o.number} did not accept either: ${formatHours(hours)}`,
      ),
    );
  }
  await preflight({
    config: inputs.config,
    accountIds,
    out: request.out,
    invoices: accounts.map((d) => ({ invoice: d.invoice, issueDate })),
  });
  const corrects = { number: o.number, issueDate: o.issueDate };
  // an invoice credited in part: its credit note cancels what remains (docs/billing.md)
  const credited = await creditNotesOf(connection, o.number);
  if (credited.length > 0) remainderCreditNoteOf(o, credited, { number: o.number, issueDate, reason }); // nothing left: refused before numbering
  const warnings: string[] = [];
  const recorded = await recordDocuments(
    connection,
    [
      {
        kind: "creditNote",
        accountId: o.accountId,
        issuer: issuerIdentity(o.issuer),
        make: (number) =>
          credited.length === 0
            ? creditNoteOf(o, { number, issueDate, reason })
            : remainderCreditNoteOf(o, credited, { number, issueDate, reason }),
      },
      {
        kind: "invoice",
        accountId: o.accountId,
        issuer: issuerIdentity(inputs.config.issuer),
        make: (number) => customerDocument(draft, inputs, { number, issueDate, corrects, reason }),
      },
    ],
    {
      config: inputs.config,
      issueDate,
      out: request.out,
      onStep: request.onStep,
      onWarning: (message) => warnings.push(message),
      correction: ([creditNote, replacement]) => ({
        corrected: o.number,
        creditNote: creditNote!,
        replacement: replacement!,
        reason,
      }),
    },
  );
  const entry = async (number: string) => (await readRegister(connection, { number }))[0]!;
  const [creditNote, replacement] = await writeDocuments(
    connection,
    [await entry(recorded[0]!.document.number), await entry(recorded[1]!.document.number)],
    request.out,
    request.onStep,
  );
  return {
    notes: inputs.config.deprecations,
    warnings,
    corrected: await entry(o.number),
    creditNote: creditNote!,
    replacement: replacement!,
  };
}
