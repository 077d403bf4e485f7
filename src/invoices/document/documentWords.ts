import { groupThousands } from "../../base/groupThousands.js";
import { dateWords, periodWords } from "../../base/readableTime.js";
import { currencyDecimals } from "../../billing/prices.js";
import { Exact } from "../../billing/exact.js";
import { taxCategoryDef } from "./taxCategories.js";
import type {
  DocumentKind,
  DocumentLine,
  DocumentParty,
  DraftDocument,
  InvoiceDocument,
  TaxLine,
} from "./invoiceDocument.js";
import { allowancesTotal, amountDue } from "./contractLines.js";
import { contractLineWords, prepaidTotals } from "./contractWords.js";

/** The longest a name or a line of an address, contact or payment block prints on a document, in characters. */
export const NAME_LIMIT = 120;
/** The most lines of an address, contact or payment block a document prints. */
export const BLOCK_LINES_LIMIT = 8;
/** The longest a note (a legal mention, a reason) prints, in characters. */
export const NOTE_LIMIT = 600;

/**
 * A text cut to `limit` characters (code points), visibly: the last one kept becomes `…`. The
 * document's data keeps the whole text; only what is printed is cut.
 */
export function capText(text: string, limit = NAME_LIMIT): string {
  const chars = Array.from(text);
  return chars.length <= limit ? text : `${chars.slice(0, limit - 1).join("")}…`;
}

/** Lines of a block, each cut, at most `BLOCK_LINES_LIMIT` of them (the last saying how many more). */
function capLines(lines: readonly string[]): string[] {
  const cut = lines.map((l) => capText(l));
  return cut.length <= BLOCK_LINES_LIMIT
    ? cut
    : [...cut.slice(0, BLOCK_LINES_LIMIT - 1), `… and ${cut.length - BLOCK_LINES_LIMIT + 1} more lines`];
}

export { groupThousands };

/** A party as printed: its name (cut), its address, country, VAT id and contact lines. */
export interface PartyWords {
  name: string;
  lines: string[];
}

const REGIONS = new Intl.DisplayNames(["en"], { type: "region" });

/** A country's English name from its ISO 3166-1 code (`DE` → `Germany`); the code itself when unknown. */
export function countryName(code: string): string {
  try {
    return REGIONS.of(code) ?? code;
  } catch {
    return code;
  }
}

function partyWords(party: DocumentParty & { contact?: string[] }): PartyWords {
  const name = party.country ? countryName(party.country) : "";
  const named = party.address.some((l) =>
    [party.country.toLowerCase(), name.toLowerCase()].includes(l.trim().toLowerCase()),
  );
  const country = party.country && !named ? [name] : [];
  return {
    name: capText(party.legalName),
    lines: capLines([
      ...party.address,
      ...country,
      ...(party.vatId ? [`VAT ${party.vatId}`] : []),
      ...(party.contact ?? []),
    ]),
  };
}

/** One invoice line as printed. */
export interface LineWords {
  description: string;
  /** The price period in words, when a price changes within the document's period. */
  period?: string;
  quantity: string;
  unitPrice: string;
  net: string;
}

/** Everything a customer reads on an invoice or credit note, in the order it is printed; no formula, no internal figure. */
export interface DocumentWords {
  draft: boolean;
  /** `Invoice` or `Credit note`. */
  title: string;
  facts: [string, string][];
  issuer: PartyWords;
  customer: PartyWords;
  /** Legal mentions and the correction's reason, then the hours not charged. */
  notes: string[];
  currency: string;
  lines: LineWords[];
  /**
   * On an invoice of a customer of several accounts: its lines by account, each section with its
   * heading (`Account 7101 – Production`) and its subtotal (`Subtotal of account 7101`); `lines` holds them all.
   */
  sections?: { heading: string; lines: LineWords[]; subtotal: { label: string; amount: string } }[];
  /** Net, each tax line, the amount due (bold): label and figure. */
  totals: { label: string; amount: string; bold?: boolean }[];
  /** How amounts are rounded. */
  rounding: string;
  /** What to pay (or what is credited) and how: a sentence, then the payment details. */
  payment: string[];
  /** The foot of every page. */
  footer: string;
}

/**
 * Under the amount due, when the document is in another currency than the issuer's VAT accounting
 * currency: its total VAT in that currency and the rate it was converted at (`VAT in EUR, at 1 USD =
 * 0.9215 EUR on 2 Nov 2026`), for information; nothing is paid in it.
 */
function accountingTaxWords(doc: InvoiceDocument | DraftDocument): { label: string; amount: string }[] {
  const tax = doc.taxInAccountingCurrency;
  if (tax === undefined) return [];
  return [
    {
      label: `Total VAT in ${tax.currency}, at 1 ${doc.currency} = ${tax.rate} ${tax.currency} on ${dateWords(doc.issueDate)}`,
      amount: `${groupThousands(tax.amount)} ${tax.currency}`,
    },
  ];
}

/** A tax line's label: `VAT 19% on 123.25`, `VAT reverse charge (0%) on 109.92`, `Not subject to VAT on 1.25`. */
export function taxLabel(t: TaxLine): string {
  return `${taxCategoryDef(t.category).label(t.ratePercent)} on ${groupThousands(t.base)}`;
}

function factsOf(doc: InvoiceDocument | DraftDocument, title: string): [string, string][] {
  const facts: [string, string][] = [];
  if (doc.number === undefined)
    facts.push([`${title} number`, "DRAFT, not numbered"], ["Date of the draft", dateWords(doc.issueDate)]);
  else {
    facts.push([`${title} number`, doc.number], ["Issue date", dateWords(doc.issueDate)]);
    if (doc.kind === "invoice") facts.push(["Due date", dateWords(doc.dueDate)]);
    if (doc.paymentReference !== undefined) facts.push(["Payment reference", doc.paymentReference]);
  }
  if (doc.corrects)
    facts.push([
      doc.kind === "creditNote" ? "Cancels invoice" : "Replaces invoice",
      `${doc.corrects.number} of ${dateWords(doc.corrects.issueDate)}`,
    ]);
  facts.push(
    ["Period", periodWords(doc.start, doc.end)],
    doc.accountIds === undefined ? ["Account", String(doc.accountId)] : ["Accounts", doc.accountIds.join(", ")],
  );
  if (doc.customer.reference !== (doc.customerId ?? String(doc.accountId)))
    facts.push(["Your reference", capText(doc.customer.reference, 60)]);
  return facts;
}

function paymentOf(doc: InvoiceDocument | DraftDocument, gross: string): string[] {
  const bank = doc.payment.length > 0 ? ["Payment details:", ...capLines(doc.payment)] : [];
  if (doc.number === undefined)
    return [
      "This is a draft, not an invoice: no payment is due on it. The invoice is issued with its number.",
      ...bank,
    ];
  if (doc.kind === "creditNote") {
    const back = doc.prepaid
      ? ` Prepaid credit of ${groupThousands(doc.prepaid.amount.toJSON().replace(/^-/, ""))} ${doc.currency} is given back to your balance.`
      : "";
    return [
      `${gross.replace(/^-/, "")} ${doc.currency} is credited to you${doc.corrects ? ` against invoice ${doc.corrects.number}` : ""}.${back}`,
    ];
  }
  if (doc.prepaid && /^[0.,]+$/.test(gross))
    return [`Nothing is left to pay: prepaid credit covers invoice ${doc.number}.`, ...bank];
  const quoting =
    doc.paymentReference === undefined
      ? `invoice ${doc.number}`
      : `the payment reference ${doc.paymentReference} (invoice ${doc.number})`;
  return [`Please pay ${gross} ${doc.currency} by ${dateWords(doc.dueDate)}, quoting ${quoting}.`, ...bank];
}

/**
 * The label of a document's last total. An invoice's gross is the amount due; a credit note's
 * is negative and nothing is due on it, so it is called its total, and the payment words under
 * it say what is credited.
 */
export function grossLabel(kind: DocumentKind, currency: string): string {
  return kind === "creditNote" ? `Credit note total (${currency})` : `Amount due (${currency})`;
}

/** The contract's lines of a document of several accounts as one section, with their sum; none without a contract line. */
function contractSection(doc: InvoiceDocument | DraftDocument, dated: boolean): NonNullable<DocumentWords["sections"]> {
  const lines = contractLineWords(doc, dated);
  if (lines.length === 0) return [];
  // the shortfall, less the allowances' total (BT-107)
  const sum = (doc.commitment?.amount ?? Exact.ZERO).sub(allowancesTotal(doc));
  return [
    {
      heading: "Contract",
      lines,
      subtotal: {
        label: `Subtotal of the contract (${doc.currency})`,
        amount: groupThousands(sum.toFixed(doc.decimals)),
      },
    },
  ];
}

/**
 * The words of a document: title and facts (number, dates in words, period, account, the
 * customer's reference), both parties, the notes, each line (quantity and unit price as
 * multiplied), the totals (net, each tax line, the amount due: the gross), the rounding, the
 * payment. Names and lines are cut to `NAME_LIMIT` characters (the document keeps them whole).
 */
export function documentWords(doc: InvoiceDocument | DraftDocument): DocumentWords {
  const title = doc.kind === "creditNote" ? "Credit note" : "Invoice";
  const dated = doc.lines.some((l) => l.start !== doc.start || l.end !== doc.end);
  // the amount due: the gross, less prepaid credit consumed
  const gross = groupThousands(amountDue(doc));
  const taxes = doc.taxes.map((t) => ({ label: taxLabel(t), amount: groupThousands(t.amount) }));
  const lineWords = (l: DocumentLine): LineWords => ({
    description: l.description,
    ...(dated ? { period: periodWords(l.start, l.end) } : {}),
    quantity: `${groupThousands(l.quantity)} ${l.quantityUnit}`,
    unitPrice: `${l.unitPrice} per ${l.priceUnit}`,
    net: groupThousands(l.net),
  });
  const unit = doc.decimals === 0 ? "whole units" : `${doc.decimals} decimal${doc.decimals === 1 ? "" : "s"}`;
  return {
    draft: doc.number === undefined,
    title,
    facts: factsOf(doc, title),
    issuer: partyWords(doc.issuer),
    customer: partyWords(doc.customer),
    notes: doc.notes.map((n) => capText(n, NOTE_LIMIT)),
    currency: doc.currency,
    lines: doc.lines.map(lineWords).concat(contractLineWords(doc, dated)),
    ...(doc.sections === undefined
      ? {}
      : {
          sections: [
            ...doc.sections.map((x) => ({
              heading: capText(`Account ${x.accountId}${x.name === "" ? "" : ` – ${x.name}`}`),
              lines: doc.lines.filter((l) => l.accountId === x.accountId).map(lineWords),
              subtotal: {
                label: `Subtotal of account ${x.accountId} (${doc.currency})`,
                amount: groupThousands(x.net),
              },
            })),
            // the contract's discounts and shortfall are the customer's, not an account's: a section
            // of their own, so that the subtotals printed add up to the net amount
            ...contractSection(doc, dated),
          ],
        }),
    totals: [
      { label: `Net amount, excluding VAT (${doc.currency})`, amount: groupThousands(doc.net) },
      ...taxes,
      ...(taxes.length > 1 ? [{ label: "Total VAT", amount: groupThousands(doc.tax) }] : []),
      ...(prepaidTotals(doc, grossLabel(doc.kind, doc.currency)) ?? [
        { label: grossLabel(doc.kind, doc.currency), amount: gross, bold: true },
      ]),
      ...accountingTaxWords(doc),
    ],
    rounding: `Amounts in ${doc.currency}. Each line is its quantity × unit price, rounded half-even to ${unit}; the VAT of each rate is that rate × the net amount of its lines, rounded the same way.${
      doc.taxInAccountingCurrency
        ? ` The VAT in ${doc.taxInAccountingCurrency.currency} is the total VAT × the rate of the issue date, rounded half-even to ${currencyDecimals(doc.taxInAccountingCurrency.currency)} decimals; it is not added to the amount due.`
        : ""
    }`,
    payment: paymentOf(doc, gross),
    footer: `${doc.number === undefined ? "DRAFT, not an invoice" : `${title} ${doc.number}`} · ${doc.accountIds === undefined ? `account ${doc.accountId}` : `customer ${doc.customerId}`} · ${periodWords(doc.start, doc.end)}`,
  };
}
