import { UsageError } from "../../base/errors.js";
import type { Exact } from "../../billing/exact.js";
import type { Invoice, InvoiceLine } from "../../billing/invoice.js";
import type {
  DocumentBasis,
  DocumentLine,
  DocumentSection,
  DraftDocument,
  InvoiceDocument,
  TaxLine,
} from "./invoiceDocument.js";
import { documentTaxes, sumOf } from "./documentTaxes.js";
import { negatedAmount, negatedText } from "./documentAmounts.js";
import { shownQuantity } from "./invoiceQuantity.js";
import {
  correctionMention,
  defaultExemptionReason,
  isTaxMention,
  missingHoursMention,
  taxMention,
} from "./legalMentions.js";
import { dueDateOf, issueProblems, taxOf, type StatementConfig } from "./statementConfig.js";
import type { TaxRule } from "./taxRule.js";
import { unitDef } from "../../billing/unitCatalog.js";
import { DEFAULT_UNITS, type Units } from "../../billing/units.js";
import { paymentReferenceOf } from "./paymentReference.js";
import { contractParts, negatedContract } from "./contractLines.js";
import { accountingCurrencyTax, negatedAccountingTax } from "./accountingCurrency.js";

/** What an invoice document is built from, beside its number. */
export interface DocumentRequest {
  /** The account's invoice as `billing/invoice.ts` computes it (lines, amounts rounded per line). */
  invoice: Invoice;
  config: StatementConfig;
  /** `YYYY-MM-DD`. */
  issueDate: string;
  /** The units file's constants, for the lines' descriptions (default: the published ones). */
  units?: Units;
  /** Hours of the period accepted as missing (`--accept-missing`), epoch seconds, ascending. */
  missingHours?: readonly number[];
  /** What the figures were computed from (the register keeps it); a draft may leave it out. */
  basis?: DocumentBasis;
  /** On the invoice replacing a corrected one: the corrected invoice, and why. */
  corrects?: { number: string; issueDate: string };
  reason?: string;
  /**
   * On the invoice of a customer of several accounts: the customer's id and each of its accounts'
   * invoices, ascending by account (`invoice` is the first's). Its lines are theirs, in sections.
   */
  customer?: { id: string; invoices: readonly Invoice[]; missingHours?: ReadonlyMap<number, readonly number[]> };
}

const NO_BASIS: DocumentBasis = { hours: [], hourSha256: [], pricesSha256: "", statementSha256: "", rules: {} };

/** A unit's words on an invoice: `Compute units (CU)`, `Transaction units (TU, 400 IOPS of configured limit)`. */
export function lineDescription(unit: InvoiceLine["unit"], units: Units): string {
  const label = unitDef(unit).label(units);
  const paren = label.indexOf(" (");
  return paren < 0 ? `${label} (${unit})` : `${label.slice(0, paren)} (${unit}, ${label.slice(paren + 2)}`;
}

function documentLine(line: InvoiceLine, decimals: number, units: Units, tax: TaxRule): DocumentLine {
  return {
    unit: line.unit,
    description: lineDescription(line.unit, units),
    start: line.start,
    end: line.end,
    quantity: shownQuantity(line, decimals),
    quantityUnit: line.quantityUnit,
    unitPrice: line.unitPrice,
    priceUnit: line.priceUnit,
    net: line.amount.fixed(decimals),
    taxCategory: tax.category,
    taxRatePercent: tax.ratePercent,
  };
}

/** The exemption reason of each category the tax has (E: the config's; AE and O: the config's or the standard words). */
function reasonsOf(tax: TaxRule): Partial<Record<string, string>> {
  const reason = tax.exemptionReason ?? defaultExemptionReason(tax.category);
  return reason ? { [tax.category]: reason } : {};
}

/** The party an account's invoice is addressed to: its customer entry, or on a draft its name alone. */
function customerOf(request: DocumentRequest, draft: boolean): InvoiceDocument["customer"] {
  const { invoice, config } = request;
  const entry = config.customers.get(invoice.accountId);
  const reference = entry?.reference ?? request.customer?.id ?? String(invoice.accountId);
  if (entry) {
    return {
      legalName: entry.legalName,
      address: entry.address,
      country: entry.country ?? "",
      reference,
      ...(entry.vatId ? { vatId: entry.vatId } : {}),
      ...(entry.peppolId ? { peppolId: entry.peppolId } : {}),
    };
  }
  if (!draft) throw new RangeError("unreachable: an issued document has its customer entry (issueProblems)");
  return { legalName: invoice.name || `Account ${invoice.accountId}`, address: [], country: "", reference };
}

function issuerOf(config: StatementConfig): InvoiceDocument["issuer"] {
  const { issuer } = config;
  return {
    legalName: issuer.legalName,
    address: issuer.address,
    country: issuer.country ?? "",
    ...(issuer.vatId ? { vatId: issuer.vatId } : {}),
    ...(issuer.peppolId ? { peppolId: issuer.peppolId } : {}),
    ...(issuer.contact.length > 0 ? { contact: issuer.contact } : {}),
  };
}

/**
 * An account's invoice as a document: its lines (the quantity as printed, see `shownQuantity`,
 * the net amount of each line as the invoice rounded it), taxed by the customer's category and
 * rate (else the issuer's default): per category and rate, tax = Σ of its lines' net × rate,
 * rounded half-even at the currency's decimals; gross = net + tax, the amount due. Its notes are
 * the legal mentions (reverse charge, exemption, outside the scope), the hours accepted as
 * missing and, on an invoice replacing a corrected one, which and why. An issued invoice carries
 * its structured payment reference (`paymentReferenceOf` its number and the issuer's country).
 *
 * With a `number` the document is issued and the config must hold what EN 16931 needs
 * (`issueProblems`: the parties' countries and electronic addresses, a tax); without one it is a
 * draft, addressed by the account's name when the config has no customer entry. Throws a
 * UsageError (code STATEMENT_CONFIG) naming what is missing.
 */
export function buildInvoiceDocument(request: DocumentRequest & { number: string }): InvoiceDocument;
export function buildInvoiceDocument(request: DocumentRequest & { number?: undefined }): DraftDocument;
export function buildInvoiceDocument(request: DocumentRequest & { number?: string }): InvoiceDocument | DraftDocument {
  const { invoice, config, issueDate } = request;
  const draft = request.number === undefined;
  const problems = draft ? [] : issueProblems(config, invoice.accountId);
  if (problems.length > 0)
    throw new UsageError(
      `${config.source}: cannot issue the invoice of account ${invoice.accountId}: missing ${problems.join("; ")}`,
      { code: "STATEMENT_CONFIG" },
    );
  const tax = taxOf(config, invoice.accountId);
  if (tax === undefined) {
    throw new UsageError(
      `${config.source}: no tax for account ${invoice.accountId}: set issuer.tax (the default, e.g. { category: S, ratePercent: 19 }) or customers.${invoice.accountId}.tax`,
      { code: "STATEMENT_CONFIG" },
    );
  }
  const { decimals } = invoice;
  const units = request.units ?? DEFAULT_UNITS;
  const grouped = request.customer === undefined ? undefined : customerLines(request.customer, decimals, units, tax);
  const lines = grouped?.lines ?? invoice.lines.map((l) => documentLine(l, decimals, units, tax));
  const contract = contractParts(config.customers.get(invoice.accountId)?.contract, invoice, lines, tax);
  const taxes = documentTaxes([...lines, ...contract.taxed], decimals, reasonsOf(tax));
  const net = sumOf(
    [...lines, ...contract.taxed].map((l) => l.net),
    decimals,
  );
  const taxTotal = sumOf(
    taxes.map((t) => t.amount),
    decimals,
  );
  const missingHours = [...(request.missingHours ?? [])];
  const notes = [
    taxMention(tax),
    ...(request.customer === undefined
      ? [missingHoursMention(missingHours)]
      : request.customer.invoices.map((i) => {
          const mention = missingHoursMention(request.customer!.missingHours?.get(i.accountId) ?? []);
          return mention === undefined ? undefined : `Account ${i.accountId}: ${mention}`;
        })),
    request.corrects ? correctionMention("invoice", request.corrects, request.reason) : undefined,
  ].filter((n): n is string => n !== undefined);
  return {
    ...(draft
      ? {}
      : { number: request.number, paymentReference: paymentReferenceOf(request.number!, config.issuer.country ?? "") }),
    kind: "invoice",
    accountId: invoice.accountId,
    ...(grouped === undefined
      ? {}
      : {
          customerId: request.customer!.id,
          accountIds: request.customer!.invoices.map((i) => i.accountId),
          sections: grouped.sections,
        }),
    start: invoice.start,
    end: invoice.end,
    issueDate,
    dueDate: dueDateOf(issueDate, config.paymentTermsDays),
    currency: invoice.currency,
    decimals,
    issuer: issuerOf(config),
    customer: customerOf(request, draft),
    lines,
    ...contract.fields,
    taxes,
    net,
    tax: taxTotal,
    gross: sumOf([net, taxTotal], decimals),
    notes,
    missingHours,
    ...(request.corrects ? { corrects: { ...request.corrects } } : {}),
    ...(request.reason !== undefined ? { reason: request.reason } : {}),
    payment: [...config.issuer.bank],
    basis: request.basis ?? NO_BASIS,
    ...withAccountingTax(config, { currency: invoice.currency, tax: taxTotal, issueDate }, draft),
  } as InvoiceDocument | DraftDocument;
}

/** The lines of a customer's accounts, each saying its account, and each account's section with its subtotal. */
function customerLines(
  customer: { id: string; invoices: readonly Invoice[] },
  decimals: number,
  units: Units,
  tax: TaxRule,
): { lines: DocumentLine[]; sections: DocumentSection[] } {
  const currencies = [...new Set(customer.invoices.map((i) => i.currency))];
  if (currencies.length > 1)
    throw new UsageError(
      `customer ${customer.id}: its accounts are priced in ${currencies.join(" and ")}: one invoice is in one currency (price the customer's accounts in one)`,
      { code: "STATEMENT_CONFIG" },
    );
  const lines: DocumentLine[] = [];
  const sections: DocumentSection[] = [];
  for (const account of customer.invoices) {
    const own = account.lines.map((l) => ({ ...documentLine(l, decimals, units, tax), accountId: account.accountId }));
    lines.push(...own);
    sections.push({
      accountId: account.accountId,
      name: account.name,
      net: sumOf(
        own.map((l) => l.net),
        decimals,
      ),
    });
  }
  return { lines, sections };
}

/** An issued document's VAT in the accounting currency when it needs one (a draft's only when the config has the rate). */
function withAccountingTax(
  config: StatementConfig,
  document: { currency: string; tax: Exact; issueDate: string },
  draft: boolean,
): { taxInAccountingCurrency?: InvoiceDocument["taxInAccountingCurrency"] } {
  let tax: InvoiceDocument["taxInAccountingCurrency"];
  try {
    tax = accountingCurrencyTax(config, document);
  } catch (error) {
    if (!draft) throw error; // an issued invoice has its rate (checked in preflight); a draft goes without
  }
  return tax === undefined ? {} : { taxInAccountingCurrency: tax };
}

/** What a credit note needs beyond the invoice it cancels. */
export interface CreditNoteRequest {
  /** The credit note's number (its own sequence). */
  number: string;
  /** `YYYY-MM-DD`. */
  issueDate: string;
  /** Why the invoice is corrected (`invoices correct --reason`), printed on the credit note. */
  reason: string;
}

/**
 * The credit note that cancels an issued invoice in full: the same parties, period, currency
 * and lines with quantities and net amounts negated, the tax lines recomputed from those lines
 * (so each is the original's negated: half-even rounding is symmetric), net, tax and gross
 * negated; it refers to the invoice's number and issue date and says why. Its due date keeps
 * the invoice's payment terms; its basis is the invoice's (it cancels those figures). It has no
 * payment reference: nothing is paid on it.
 */
export function creditNoteOf(original: InvoiceDocument, request: CreditNoteRequest): InvoiceDocument {
  if (original.kind !== "invoice")
    throw new RangeError(`${original.number} is a credit note: a credit note cancels an invoice`);
  const termsDays = Math.round(
    (Date.parse(`${original.dueDate}T00:00:00Z`) - Date.parse(`${original.issueDate}T00:00:00Z`)) / 86_400_000,
  );
  const lines = original.lines.map((l) => ({ ...l, quantity: negatedText(l.quantity), net: negatedAmount(l.net) }));
  const reasons = Object.fromEntries(
    original.taxes.filter((t) => t.exemptionReason).map((t) => [t.category, t.exemptionReason!]),
  );
  const contract = negatedContract(original, negatedAmount);
  const taxes: TaxLine[] = documentTaxes([...lines, ...contract.taxed], original.decimals, reasons);
  const corrects = { number: original.number, issueDate: original.issueDate };
  const taxNotes = original.notes.filter(isTaxMention);
  // nothing is paid on a credit note: the invoice's payment reference stays the invoice's
  const { paymentReference: _paid, taxInAccountingCurrency, ...cancelled } = original;
  // the VAT it cancels, in the accounting currency at the invoice's rate: invoice + credit note = 0 there too
  const accountingTax = negatedAccountingTax(taxInAccountingCurrency);
  return {
    ...cancelled,
    number: request.number,
    kind: "creditNote",
    issueDate: request.issueDate,
    dueDate: dueDateOf(request.issueDate, termsDays),
    lines,
    ...(original.sections ? { sections: original.sections.map((x) => ({ ...x, net: negatedAmount(x.net) })) } : {}),
    ...contract.fields,
    taxes,
    net: negatedAmount(original.net),
    tax: negatedAmount(original.tax),
    gross: negatedAmount(original.gross),
    notes: [correctionMention("creditNote", corrects, request.reason), ...taxNotes],
    corrects,
    reason: request.reason,
    ...(accountingTax ? { taxInAccountingCurrency: accountingTax } : {}),
  };
}
