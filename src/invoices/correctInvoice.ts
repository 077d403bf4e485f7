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
import { readIssueInputs, type IssueFiles, type IssueInputs } from "./issueInputs.js";
import { creditNoteOf } from "./document/buildInvoiceDocument.js";
import type { InvoiceDocument } from "./document/invoiceDocument.js";
import { checkNumbering, recordDocuments, type IssueStep, type PlannedDocument } from "./recordDocuments.js";
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

/** The reason of a correction, as the register keeps it; none is refused. */
function correctionReason(text: string): string {
  const reason = wellFormed(text.trim()); // a lone surrogate of a library caller's text is no text the register's JSON holds
  if (reason === "")
    throw new UsageError(
      "a correction needs a reason (reason: TEXT): it is printed on the credit note and the new invoice",
    );
  return reason;
}

/** Today's figures of the invoice's accounts, as the draft of the invoice replacing it (a customer's invoice is corrected whole). */
async function replacementDraft(
  connection: DuckDBConnection,
  o: InvoiceDocument,
  inputs: IssueInputs,
): Promise<CustomerDraft> {
  const accountIds = documentAccountIds(o);
  const accounts = await accountDrafts(connection, o, inputs, { accountIds, alsoAccounts: accountIds });
  return {
    customer: { id: documentCustomerId(o), accountIds, grouped: o.accountIds !== undefined },
    accounts,
    accountId: o.accountId,
    missingHours: [...new Set(accounts.flatMap((d) => d.missingHours))].sort((a, b) => a - b),
  };
}

/**
 * Throws when today's figures cannot replace the invoice: in another currency (the credit note is
 * in the invoice's, and so must the invoice replacing it be), or with hours not held that the
 * invoice did not accept either, unless `acceptMissing`.
 */
function refuseReplacement(o: InvoiceDocument, draft: CustomerDraft, inputs: IssueInputs, acceptMissing = false): void {
  for (const account of draft.accounts)
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
  const newly = draft.accounts
    .map((d) => ({ accountId: d.accountId, hours: d.missingHours.filter((h) => !o.missingHours.includes(h)) }))
    .filter((d) => d.hours.length > 0);
  if (newly.length === 0 || acceptMissing) return;
  throw new MissingHoursError(
    newly,
    o.number,
    newly.map(
      ({ accountId, hours }) =>
        `account ${accountId}: ${hours.length} hour${hours.length === 1 ? "" : "s"} not held that ${o.number} did not accept either: ${formatHours(hours)}`,
    ),
  );
}

/** The credit note and the new invoice of a correction, to be numbered: the credit note cancels the invoice, or what remains of it after partial credit notes. */
function correctionDocuments(
  o: InvoiceDocument,
  credited: readonly InvoiceDocument[],
  draft: CustomerDraft,
  inputs: IssueInputs,
  words: { issueDate: string; reason: string },
): PlannedDocument[] {
  const { issueDate, reason } = words;
  const corrects = { number: o.number, issueDate: o.issueDate };
  return [
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
  ];
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
  const reason = correctionReason(request.reason);
  // nothing is numbered from a register that disagrees with its chain
  await intactRegister(connection);
  const original = await invoiceInForce(connection, request.number);
  const o = original.document;
  const nowEpoch = request.nowEpoch ?? clockNow();
  const inputs = await readIssueInputs(request);
  checkNumbering(inputs.config);
  refuseOtherIssuer(o, inputs.config.issuer, inputs.config.source);
  const issueDate = issueDateFor(request.issueDate, o, nowEpoch);
  const draft = await replacementDraft(connection, o, inputs);
  request.onStep?.("computed");
  refuseReplacement(o, draft, inputs, request.acceptMissing);
  await preflight({
    config: inputs.config,
    accountIds: draft.customer.accountIds,
    out: request.out,
    invoices: draft.accounts.map((d) => ({ invoice: d.invoice, issueDate })),
  });
  // an invoice credited in part: its credit note cancels what remains (docs/billing.md)
  const credited = await creditNotesOf(connection, o.number);
  if (credited.length > 0) remainderCreditNoteOf(o, credited, { number: o.number, issueDate, reason }); // nothing left: refused before numbering
  const warnings: string[] = [];
  const recorded = await recordDocuments(
    connection,
    correctionDocuments(o, credited, draft, inputs, { issueDate, reason }),
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
