import type { DuckDBConnection } from "@duckdb/node-api";
import { IssuedInvoiceDiffersError, MissingHoursError, UsageError } from "../base/errors.js";
import { isoUtc, monthPeriod } from "../base/time.js";
import { issuerIdentity } from "./register/chainedDocuments.js";
import { readRegister, type RegisterEntry } from "./register/readRegister.js";
import { intactRegister } from "./register/registerChain.js";
import { accountDrafts } from "./accountDrafts.js";
import { customerDocument, customerDrafts, customersAccounts, type CustomerDraft } from "./customerDrafts.js";
import { documentAccountIds, documentCustomerId } from "./document/customers.js";
import type { InvoiceDocument } from "./document/invoiceDocument.js";
import type { Exact } from "../billing/exact.js";
import { differenceLine, sameFigures } from "./figureDifference.js";
import { issueDateFor } from "./issueDate.js";
import { preflight } from "./preflight.js";
import { refuseCurrencyChange } from "./currencyChange.js";
import { readIssueInputs, type IssueFiles, type IssueInputs } from "./issueInputs.js";
import { checkNumbering, recordDocuments, type IssueStep } from "./recordDocuments.js";
import { formatHours } from "../sync/formatHours.js";
import { lostHoursOf } from "../billing/dataQuality.js";
import { writeDocuments, type DocumentWritten } from "./writeIssuedFiles.js";
import { clockNow } from "../base/clock.js";

/** What `issueInvoices` is asked: a month, the files to issue it with, and where its documents go. */
export interface IssueRequest extends IssueFiles {
  /** The calendar month, `YYYY-MM` (UTC): it must have ended. */
  month: string;
  /** The folder the documents' files are written to (made when missing). */
  out: string;
  /**
   * Only the invoices of these accounts' customers (an account of a customer of several accounts
   * means that customer's invoice, all of its accounts). Default: the customer of every account
   * holding an hour of the month.
   */
  accountIds?: readonly number[];
  /** Issue accounts with hours of the month not held: the hours are recorded and printed on the invoice. Default false (refused, exit 3). */
  acceptMissing?: boolean;
  /** The issue date of new invoices, `YYYY-MM-DD`. Default: the statement config's `issueDate`, else today (UTC). */
  issueDate?: string;
  /** The current time, epoch seconds: whether the month has ended, and today. Default: the clock. */
  nowEpoch?: number;
  /** Told as each step is done (the files: once each). */
  onStep?: (step: IssueStep) => void;
}

/** What `issueInvoices` did. */
export interface IssueResult {
  month: string;
  /** Older keys of the statement config, each with what to write instead. */
  notes: string[];
  /** What a file could not hold as written (a character no font of the PDF has). */
  warnings: string[];
  /** The invoices numbered by this call, in the order of their numbers. */
  issued: DocumentWritten[];
  /** The month's documents issued before (invoices, credit notes, replacements), their files written again from the register. */
  reissued: DocumentWritten[];
}

/** Refuses a month that has not ended (exit 2). */
function checkEnded(month: string, period: { end: number }, nowEpoch: number): void {
  if (nowEpoch < period.end) {
    throw new UsageError(
      `${month} has not ended (it runs until ${isoUtc(period.end)}; now is ${isoUtc(Math.floor(nowEpoch))}): only an ended month is issued; ` +
        "a draft meanwhile: writeStatements() of the bill of month " +
        month,
      { code: "MONTH_RUNNING" },
    );
  }
}

/**
 * Issues the invoices of an ended month (docs/billing.md): each account not yet invoiced gets the
 * next number of its issuer's sequence and a record in the register, with what it was computed
 * from and its files, all in one transaction; then the files of every document of the month
 * (new, and issued before) are written into `out` from the register, never over a file with
 * other bytes. Issuing again writes the same files and numbers nothing. Refused, with nothing
 * changed: a month not ended (UsageError MONTH_RUNNING); a register that disagrees with its chain
 * (RegisterBrokenError, exit 10); documents of the month issued by another issuer than the
 * config's (UsageError ISSUER_DIFFERS); accounts with hours not held unless `acceptMissing`
 * (MissingHoursError, exit 3); an issued invoice the warehouse now gives other figures for
 * (IssuedInvoiceDiffersError, exit 9: correct it with `correctInvoice`).
 *
 * `connection`: the warehouse, opened to write (`openDatabaseFile`), which keeps other writers
 * out until it is closed.
 */
export async function issueInvoices(connection: DuckDBConnection, request: IssueRequest): Promise<IssueResult> {
  const period = monthPeriod(request.month);
  const nowEpoch = request.nowEpoch ?? clockNow();
  checkEnded(request.month, period, nowEpoch);
  const inputs = await readIssueInputs(request);
  checkNumbering(inputs.config);
  const issueDate = newIssueDate(request, inputs, period, nowEpoch);
  // nothing is numbered, nor written again, from a register that disagrees with its chain
  await intactRegister(connection);
  const accountIds =
    request.accountIds === undefined ? undefined : customersAccounts(inputs.config, request.accountIds);
  const ofMonth = await readRegister(connection, { period, accountIds });
  refuseOtherIssuer(request.month, ofMonth, inputs);
  const inForce = invoicesInForce(ofMonth);
  const drafts = await monthDrafts(connection, { period, inputs, asked: request.accountIds, accountIds, inForce });
  request.onStep?.("computed");

  refuseOtherFigures(drafts, inForce, inputs);
  const fresh = drafts.filter((d) => !inForce.has(d.customer.id));
  // whether the month can be issued before how: a month-end run from cron says first that hours are missing
  if (!request.acceptMissing) refuseMissing(request.month, fresh, await lostHoursOf(connection));
  if (fresh.length > 0)
    await preflight({
      config: inputs.config,
      accountIds: fresh.flatMap((d) => d.accounts.map((a) => a.accountId)),
      out: request.out,
      invoices: fresh.flatMap((d) => d.accounts.map((a) => ({ invoice: a.invoice, issueDate }))),
    });

  const warnings: string[] = [];
  const recorded = await recordDocuments(
    connection,
    fresh.map((draft) => ({
      kind: "invoice" as const,
      accountId: draft.accountId,
      issuer: issuerIdentity(inputs.config.issuer),
      make: (number: string) => customerDocument(draft, inputs, { number, issueDate }),
    })),
    {
      config: inputs.config,
      issueDate,
      out: request.out,
      onStep: request.onStep,
      onWarning: (message) => warnings.push(message),
    },
  );

  // the month's documents (new, issued before, credit notes) of the accounts billed, from the register
  const numbers = new Set(recorded.map((r) => r.document.number));
  const documents = await readRegister(connection, {
    period,
    accountIds: drafts.flatMap((d) => d.accounts.map((a) => a.accountId)),
  });
  const written = await writeDocuments(connection, documents, request.out, request.onStep);
  return {
    month: request.month,
    notes: inputs.config.deprecations,
    warnings,
    issued: written.filter((w) => numbers.has(w.entry.document.number)),
    reissued: written.filter((w) => !numbers.has(w.entry.document.number)),
  };
}

/** The issue date of the month's new invoices: the one asked, else the config's `issueDate`, else today (UTC). */
function newIssueDate(request: IssueRequest, inputs: IssueInputs, period: { end: number }, nowEpoch: number): string {
  const fromConfig = request.issueDate === undefined && inputs.config.issueDate !== undefined;
  return issueDateFor(
    request.issueDate ?? inputs.config.issueDate,
    period,
    nowEpoch,
    fromConfig ? `issueDate of ${inputs.config.source}` : "issueDate:",
  );
}

/** The month's invoices in force (issued and not corrected), by customer. */
function invoicesInForce(ofMonth: readonly RegisterEntry[]): Map<string, RegisterEntry> {
  return new Map(
    ofMonth
      .filter((e) => e.document.kind === "invoice" && e.correctedBy === null)
      .map((e) => [documentCustomerId(e.document), e]),
  );
}

/**
 * The month's figures per customer: of the accounts asked (`asked`; every account holding an hour
 * of the month when undefined), with the other accounts of their customers (`accountIds`) and the
 * accounts of the invoices in force, whose figures are compared with those issued.
 */
async function monthDrafts(
  connection: DuckDBConnection,
  month: {
    period: { start: number; end: number };
    inputs: IssueInputs;
    asked: readonly number[] | undefined;
    accountIds: number[] | undefined;
    inForce: ReadonlyMap<string, RegisterEntry>;
  },
): Promise<CustomerDraft[]> {
  const { period, inputs, asked, accountIds, inForce } = month;
  const drafts = await accountDrafts(connection, period, inputs, {
    accountIds: accountIds === undefined ? undefined : asked,
    alsoAccounts: [
      ...new Set([
        ...[...inForce.values()].flatMap((e) => documentAccountIds(e.document)),
        // the other accounts of an asked account's customer (an asked account holding no hour is refused)
        ...(accountIds ?? []).filter((id) => !asked!.includes(id)),
      ]),
    ],
    expand: (ids) => customersAccounts(inputs.config, ids),
  });
  return customerDrafts(inputs.config, drafts);
}

/** Throws a UsageError when documents of the month were issued by another issuer (another legal identity) than the config's. */
function refuseOtherIssuer(month: string, ofMonth: readonly RegisterEntry[], inputs: IssueInputs): void {
  const identity = issuerIdentity(inputs.config.issuer);
  const others = ofMonth.filter((e) => issuerIdentity(e.document.issuer) !== identity);
  if (others.length === 0) return;
  const issuers = [
    ...new Map(others.map((e) => [issuerIdentity(e.document.issuer), e.document.issuer.legalName])).entries(),
  ];
  const self = inputs.config.issuer;
  throw new UsageError(
    `${month} was issued by ${issuers.map(([id, name]) => `${name} (${id})`).join(" and ")}: ${others.map((e) => e.document.number).join(", ")}; ` +
      `${inputs.config.source} is of ${self.legalName} (${identity}): issue a month again with the statement config of the issuer who issued it`,
    { code: "ISSUER_DIFFERS" },
  );
}

/**
 * The inputs today's figures of an issued invoice are computed with to be compared with it: its VAT
 * in the accounting currency is not one of the figures compared (its rate is the record's), so the
 * fx rate of its issue date is not asked again: issuing a month again needs no rate of a day gone.
 */
function comparedAsIssued(inputs: IssueInputs, issued: InvoiceDocument): IssueInputs {
  return { ...inputs, config: { ...inputs.config, accountingCurrency: issued.currency } };
}

/** Throws IssuedInvoiceDiffersError when today's figures of an issued invoice in force are not those issued. */
function refuseOtherFigures(
  drafts: readonly CustomerDraft[],
  inForce: ReadonlyMap<string, RegisterEntry>,
  inputs: IssueInputs,
): void {
  // an invoice in force is never recomputed in another currency (exit 2), before any other difference (exit 9)
  refuseCurrencyChange(
    drafts.flatMap((draft) => {
      const issued = inForce.get(draft.customer.id)?.document;
      const other = draft.accounts.find((a) => a.invoice.currency !== issued?.currency)?.invoice;
      return issued && other
        ? [{ issued, currency: other.currency, net: other.amountDue.toFixed(other.decimals) }]
        : [];
    }),
    inputs.prices.source ?? "the price list",
  );
  const differences: { issued: RegisterEntry; line: string; now: Exact }[] = [];
  for (const draft of drafts) {
    const issued = inForce.get(draft.customer.id);
    if (issued === undefined) continue;
    const d = issued.document;
    const now = customerDocument(draft, comparedAsIssued(inputs, d), { number: d.number, issueDate: d.issueDate });
    if (!sameFigures(d, now) || !sameAccounts(d, now))
      differences.push({ issued, line: differenceLine(d, now), now: now.gross });
  }
  if (differences.length === 0) return;
  throw new IssuedInvoiceDiffersError(
    differences.map(({ issued, now }) => ({
      number: issued.document.number,
      accountId: issued.document.accountId,
      issued: issued.document.gross,
      now,
      currency: issued.document.currency,
    })),
    differences.map((d) => d.line),
  );
}

/** True when two documents bill the same accounts, each line the same account's. */
function sameAccounts(a: InvoiceDocument, b: InvoiceDocument): boolean {
  const accounts = (d: InvoiceDocument) => JSON.stringify([documentAccountIds(d), d.lines.map((l) => l.accountId)]);
  return accounts(a) === accounts(b);
}

/** Throws MissingHoursError naming the hours not held of each account to invoice: missing (may still come) apart from lost at source (never will). */
function refuseMissing(
  month: string,
  drafts: readonly CustomerDraft[],
  lost: ReadonlyMap<number, ReadonlySet<number>>,
): void {
  // one account lacking hours refuses its customer's invoice: every account of it is named
  const lacking = drafts.flatMap((c) =>
    c.accounts.filter((d) => d.missingHours.length > 0).map((d) => ({ draft: d, customer: c.customer })),
  );
  if (lacking.length === 0) return;
  const hours = (n: number) => `${n} hour${n === 1 ? "" : "s"}`;
  throw new MissingHoursError(
    lacking.map(({ draft: d }) => ({ accountId: d.accountId, hours: d.missingHours })),
    month,
    lacking.flatMap(({ draft: d, customer }) => {
      const whose = customer.grouped ? `account ${d.accountId} (customer ${customer.id})` : `account ${d.accountId}`;
      const gone = d.missingHours.filter((h) => lost.get(d.accountId)?.has(h));
      const missing = d.missingHours.filter((h) => !lost.get(d.accountId)?.has(h));
      return [
        ...(missing.length > 0
          ? [`${whose}: ${hours(missing.length)} not held: ${formatHours(missing)}: sync or ingest them`]
          : []),
        ...(gone.length > 0
          ? [
              `${whose}: ${hours(gone.length)} lost at source (never written within the platform's retention): ${formatHours(gone)}: accept with acceptMissing: true`,
            ]
          : []),
      ];
    }),
  );
}
