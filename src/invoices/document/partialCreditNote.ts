import { UsageError } from "../../base/errors.js";
import { dateWords, periodWords } from "../../base/readableTime.js";
import { isoUtc } from "../../base/time.js";
import { Exact } from "../../billing/exact.js";
import type { DocumentLine, DocumentSection, InvoiceDocument, TaxLine } from "./invoiceDocument.js";
import { negatedAmount, negatedText } from "./documentAmounts.js";
import { dueDateOf } from "./statementConfig.js";
import { splitAmount } from "../../billing/splitAmount.js";
import { currencyDecimals } from "../../billing/prices.js";

/**
 * What a partial credit note credits: an amount before tax (spread over the tax categories), or
 * whole lines by name (`CU`, `CU@2026-10-16`, `CU@account:7101`, `CU@2026-10-16@account:7101`).
 */
export type CreditAsked = { amount: string | Exact } | { lines: readonly string[] };

/** What a partial credit note needs beyond the invoice it credits. */
export interface PartialCreditRequest {
  /** The credit note's number (the credit notes' sequence). */
  number: string;
  /** `YYYY-MM-DD`. */
  issueDate: string;
  /** Why: printed on the credit note. */
  reason: string;
  credit: CreditAsked;
}

/** What remains of one tax category of an invoice once its credit notes are deducted: net and tax, positive. */
export interface CategoryRemainder {
  category: TaxLine["category"];
  ratePercent: string;
  exemptionReason?: string;
  net: Exact;
  tax: Exact;
}

/** What remains of an invoice after its credit notes, per tax category, and the lines credited whole (by name, with the credit note). */
export interface InvoiceRemainder {
  categories: CategoryRemainder[];
  linesCredited: Map<string, string>;
  /** Σ of the credit notes' gross, positive. */
  credited: Exact;
  /** The invoice's gross − credited. */
  gross: Exact;
}

const keyOf = (t: { category: string; ratePercent: string }) => `${t.category} ${t.ratePercent}`;
const NEG = Exact.of(-1n);
const abs = (e: Exact) => (e.compare(Exact.ZERO) < 0 ? e.mul(NEG) : e);

/** The first day of a line's price period, `YYYY-MM-DD` (UTC). */
const dayOf = (line: DocumentLine) => isoUtc(line.start).slice(0, 10);

/**
 * The name a line is credited by: its unit (`CU`) when the unit has one line on the invoice; with
 * `@` and the first day of its price period (`CU@2026-10-16`, UTC) when a price changes within the
 * period and the unit has a line per price period (of its account); with `@account:` and its account
 * (`CU@account:7101`, `CU@2026-10-16@account:7101`) when, on an invoice of several accounts, the
 * unit has lines in more than one account. Each name names one line of the invoice.
 */
export function lineName(invoice: Pick<InvoiceDocument, "lines">, line: DocumentLine): string {
  const same = invoice.lines.filter((l) => l.unit === line.unit);
  const dated = same.some((l) => l.accountId === line.accountId && l.start !== line.start);
  const accounted = line.accountId !== undefined && same.some((l) => l.accountId !== line.accountId);
  return `${line.unit}${dated ? `@${dayOf(line)}` : ""}${accounted ? `@account:${line.accountId}` : ""}`;
}

/**
 * The lines of the invoice a name given names: `UNIT`, then, after `@` and in any order, the first
 * day of the price period (`YYYY-MM-DD`) and the account (`account:ID`); each part given narrows
 * them. None when the name is not of that form.
 */
function linesNamed(invoice: InvoiceDocument, name: string): DocumentLine[] {
  const [unit, ...parts] = name.trim().split("@");
  let day: string | undefined;
  let accountId: number | undefined;
  for (const part of parts) {
    const account = /^account:(\d+)$/.exec(part);
    if (account && accountId === undefined) accountId = Number(account[1]);
    else if (/^\d{4}-\d{2}-\d{2}$/.test(part) && day === undefined) day = part;
    else return [];
  }
  return invoice.lines.filter(
    (l) =>
      l.unit === unit &&
      (day === undefined || dayOf(l) === day) &&
      (accountId === undefined || l.accountId === accountId),
  );
}

/** What remains of `invoice` after `creditNotes` (the credit notes referring to it, in any order). */
export function remainderOf(invoice: InvoiceDocument, creditNotes: readonly InvoiceDocument[]): InvoiceRemainder {
  const categories = invoice.taxes.map((t) => ({
    category: t.category,
    ratePercent: t.ratePercent,
    ...(t.exemptionReason ? { exemptionReason: t.exemptionReason } : {}),
    net: t.base,
    tax: t.amount,
  }));
  const byKey = new Map(categories.map((c) => [keyOf(c), c]));
  const linesCredited = new Map<string, string>();
  let credited = Exact.ZERO;
  for (const note of creditNotes) {
    credited = credited.add(abs(note.gross));
    for (const t of note.taxes) {
      const c = byKey.get(keyOf(t));
      if (c === undefined) continue;
      c.net = c.net.sub(abs(t.base));
      c.tax = c.tax.sub(abs(t.amount));
    }
    if (note.partialCredit === "lines") for (const l of note.lines) linesCredited.set(lineKey(l), note.number);
  }
  return { categories, linesCredited, credited, gross: invoice.gross.sub(credited) };
}

/** A line's identity on its invoice: unit, price period and account (the same unit and period appear once per account). */
const lineKey = (l: Pick<DocumentLine, "unit" | "start" | "end" | "accountId">) =>
  `${l.unit} ${l.start} ${l.end} ${l.accountId ?? ""}`;

/** The amount asked, before tax, as an Exact above 0 with at most the currency's decimals; a UsageError otherwise. */
function amountAsked(asked: string | Exact, invoice: InvoiceDocument): Exact {
  const text = String(asked);
  const match = /^\d+(?:\.(\d+))?$/.exec(text.trim());
  const amount = match ? Exact.parse(text.trim()) : undefined;
  if (!match || amount === undefined || (match[1]?.length ?? 0) > invoice.decimals || amount.isZero())
    throw new UsageError(
      `bad amount: ${JSON.stringify(text)}: give the amount to credit before tax, in ${invoice.currency}, as a decimal above 0 with at most ${invoice.decimals} decimals (e.g. ${(10).toFixed(invoice.decimals)})`,
      { code: "BAD_AMOUNT" },
    );
  return amount;
}

/** What remains, in words: `107.10 EUR with tax (90.00 before tax)`. */
function remainderWords(invoice: InvoiceDocument, remainder: InvoiceRemainder): string {
  const net = remainder.categories.reduce((s, c) => s.add(c.net), Exact.ZERO);
  return `${remainder.gross.toFixed(invoice.decimals)} ${invoice.currency} with tax (${net.toFixed(invoice.decimals)} before tax)`;
}

/** Throws CREDIT_EXCEEDS: the credit asked is more than what remains of the invoice. */
function exceeds(invoice: InvoiceDocument, remainder: InvoiceRemainder, what: string): never {
  throw new UsageError(
    `${what} is more than what remains of ${invoice.number}: ${remainderWords(invoice, remainder)}` +
      (remainder.credited.isZero() ? "" : `, ${remainder.credited.toFixed(invoice.decimals)} credited before`) +
      ": the credit notes of an invoice never add up to more than it",
    { code: "CREDIT_EXCEEDS" },
  );
}

/** The net to credit per category (positive, in the order of the invoice's tax lines) of an amount: spread in proportion to what remains of each. */
function spreadAmount(invoice: InvoiceDocument, remainder: InvoiceRemainder, asked: string | Exact): Exact[] {
  const amount = amountAsked(asked, invoice);
  const scale = Exact.of(10n ** BigInt(invoice.decimals));
  const minor = (e: Exact) => BigInt(e.mul(scale).toFixed(0));
  const left = remainder.categories.map((c) => (c.net.compare(Exact.ZERO) > 0 ? minor(c.net) : 0n));
  if (minor(amount) > left.reduce((a, b) => a + b, 0n))
    exceeds(invoice, remainder, `a credit of ${amount.toFixed(invoice.decimals)} ${invoice.currency} before tax`);
  const parts = splitAmount(
    minor(amount),
    left.map((w, id) => ({ id, weight: Number(w) })),
  );
  return parts.map((p) => Exact.of(p).div(scale));
}

/** The invoice's lines a request names, each once; a UsageError naming the lines there are for an unknown, ambiguous or credited one. */
function linesAsked(invoice: InvoiceDocument, remainder: InvoiceRemainder, names: readonly string[]): DocumentLine[] {
  const there = invoice.lines.map((l) => lineName(invoice, l)).join(", ");
  if (names.length === 0) throw new UsageError(`name a line to credit (its lines: ${there})`, { code: "UNKNOWN_LINE" });
  const chosen: DocumentLine[] = [];
  for (const name of names) {
    const matched = linesNamed(invoice, name);
    if (matched.length === 0)
      throw new UsageError(
        `${invoice.number} has no line ${JSON.stringify(name)}: its lines are ${there}` +
          " (UNIT, or UNIT@YYYY-MM-DD, the first day of its price period, when the unit has a line per price period;" +
          " @account:ID after it when the unit has a line in several accounts)",
        { code: "UNKNOWN_LINE" },
      );
    if (matched.length > 1)
      throw new UsageError(
        `${JSON.stringify(name)} names ${matched.length} lines of ${invoice.number}: ${matched
          .map((l) => lineName(invoice, l))
          .join(", ")}: name one of them (its lines are ${there})`,
        { code: "AMBIGUOUS_LINE" },
      );
    const line = matched[0]!;
    const by = remainder.linesCredited.get(lineKey(line));
    if (by !== undefined)
      throw new UsageError(
        `${lineName(invoice, line)} of ${invoice.number} was credited already, by ${by}: a line is credited once`,
        { code: "LINE_CREDITED" },
      );
    if (!chosen.includes(line)) chosen.push(line);
  }
  return chosen;
}

/** The lines of a credit of an amount: one per tax category credited, its net as the unit price of a quantity of 1. */
function amountLines(invoice: InvoiceDocument, remainder: InvoiceRemainder, parts: readonly Exact[]): DocumentLine[] {
  const several = parts.filter((p) => !p.isZero()).length > 1;
  return remainder.categories.flatMap((c, i) => {
    const part = parts[i]!;
    if (part.isZero()) return [];
    const rate = c.category === "S" || c.category === "Z" ? ` at VAT ${c.ratePercent} %` : "";
    return [
      {
        unit: "credit",
        description: `Credit on invoice ${invoice.number}, before tax${several ? rate : ""}`,
        start: invoice.start,
        end: invoice.end,
        quantity: "-1",
        quantityUnit: "credit",
        unitPrice: part.toFixed(invoice.decimals),
        priceUnit: "credit",
        net: part.mul(NEG).fixed(invoice.decimals),
        taxCategory: c.category,
        taxRatePercent: c.ratePercent,
      },
    ];
  });
}

/**
 * The tax lines of a partial credit: per category, its net credited × rate, rounded half-even at the
 * currency's decimals, never more than the category's tax not yet credited; the credit that takes
 * a category's last net takes its last tax (so the credit notes of an invoice add up to it exactly).
 */
function creditTaxes(invoice: InvoiceDocument, remainder: InvoiceRemainder, lines: readonly DocumentLine[]): TaxLine[] {
  return remainder.categories.flatMap((c) => {
    const mine = lines.filter((l) => keyOf({ category: l.taxCategory, ratePercent: l.taxRatePercent }) === keyOf(c));
    if (mine.length === 0) return [];
    const net = mine.reduce((s, l) => s.add(abs(l.net)), Exact.ZERO);
    if (net.compare(c.net) > 0)
      exceeds(
        invoice,
        remainder,
        `a credit of ${net.toFixed(invoice.decimals)} ${invoice.currency} before tax at ${keyOf(c)} %`,
      );
    const computed = net.mul(Exact.parse(c.ratePercent)!).div(Exact.of(100n)).round(invoice.decimals);
    const tax = net.equals(c.net) || computed.compare(c.tax) > 0 ? c.tax : computed;
    return [
      {
        category: c.category,
        ratePercent: c.ratePercent,
        base: net.mul(NEG).fixed(invoice.decimals),
        amount: tax.mul(NEG).fixed(invoice.decimals),
        ...(c.exemptionReason ? { exemptionReason: c.exemptionReason } : {}),
      },
    ];
  });
}

/** The mention of a partial credit: what it credits of which invoice, that the invoice stays in force, and why. */
function partialMention(
  invoice: InvoiceDocument,
  lines: readonly DocumentLine[],
  byAmount: boolean,
  reason: string,
): string {
  const of = `invoice ${invoice.number} of ${dateWords(invoice.issueDate)}`;
  const net = lines.reduce((s, l) => s.add(abs(l.net)), Exact.ZERO).toFixed(invoice.decimals);
  const what = byAmount
    ? `${net} ${invoice.currency} before tax of ${of}, spread over its VAT rates in proportion to their net, VAT added per rate`
    : `the line${lines.length === 1 ? "" : "s"} ${lines
        .map(
          (l) =>
            `${l.description}${l.accountId === undefined ? "" : ` of account ${l.accountId}`}${l.start !== invoice.start || l.end !== invoice.end ? ` (${periodWords(l.start, l.end)})` : ""}`,
        )
        .join(", ")} of ${of}`;
  return `This credit note credits ${what}; the rest of the invoice stays in force. Reason: ${reason}`;
}

/**
 * A partial credit note of an issued invoice (`invoices credit`): an amount before tax spread over
 * the invoice's tax categories in proportion to what remains of their net (largest remainder, at
 * the currency's decimals: the parts add up to the amount exactly; a unit left over goes to the
 * category of the larger remainder, ties to the first), or whole lines (negated as issued). The
 * same parties, period and currency as the invoice; it refers to the invoice's number and issue
 * date and says why. `creditNotes`: the credit notes of the invoice issued before, so the credits
 * never add up to more than the invoice. A line credited keeps its account; the credit note has a
 * section for each account of its lines (a credit of an amount is no account's: no sections).
 * Throws a UsageError: BAD_AMOUNT, UNKNOWN_LINE (naming the lines there are), AMBIGUOUS_LINE (a name
 * of more than one line, naming them), LINE_CREDITED (a line credited before), CREDIT_EXCEEDS (more
 * than remains).
 */
export function partialCreditNoteOf(
  invoice: InvoiceDocument,
  creditNotes: readonly InvoiceDocument[],
  request: PartialCreditRequest,
): InvoiceDocument {
  if (invoice.kind !== "invoice")
    throw new RangeError(`${invoice.number} is a credit note: a credit note credits an invoice`);
  const remainder = remainderOf(invoice, creditNotes);
  const byAmount = "amount" in request.credit;
  const lines =
    "amount" in request.credit
      ? amountLines(invoice, remainder, spreadAmount(invoice, remainder, request.credit.amount))
      : linesAsked(invoice, remainder, request.credit.lines).map((l) => ({
          ...l,
          quantity: negatedText(l.quantity),
          net: negatedAmount(l.net),
        }));
  return creditNoteWith(invoice, remainder, lines, {
    ...request,
    kind: byAmount ? "amount" : "lines",
    mention: partialMention(invoice, lines, byAmount, request.reason),
  });
}

/**
 * The credit note of what remains of an invoice after its partial credit notes (`invoices correct`
 * of an invoice credited in part): a line per tax category, its remaining net, and the tax not yet
 * credited; with the partial credit notes it cancels the invoice in full.
 */
export function remainderCreditNoteOf(
  invoice: InvoiceDocument,
  creditNotes: readonly InvoiceDocument[],
  request: Omit<PartialCreditRequest, "credit">,
): InvoiceDocument {
  const remainder = remainderOf(invoice, creditNotes);
  const parts = remainder.categories.map((c) => (c.net.compare(Exact.ZERO) > 0 ? c.net : Exact.ZERO));
  if (parts.every((p) => p.isZero()))
    throw new UsageError(
      `${invoice.number} is credited in full already, by ${creditNotes.map((n) => n.number).join(", ")}: nothing remains to cancel`,
      { code: "NOT_CORRECTABLE" },
    );
  const lines = amountLines(invoice, remainder, parts).map((l) => ({
    ...l,
    description: l.description.replace("Credit on invoice", "The rest of invoice"),
  }));
  const before = creditNotes.map((n) => n.number).join(", ");
  const mention =
    `This credit note cancels what remains of invoice ${invoice.number} of ${dateWords(invoice.issueDate)}` +
    ` after credit note${creditNotes.length === 1 ? "" : "s"} ${before}: with ${creditNotes.length === 1 ? "it" : "them"}, the invoice is cancelled in full. Reason: ${request.reason}`;
  return creditNoteWith(invoice, remainder, lines, { ...request, mention });
}

/**
 * The sections of a credit note of an invoice of several accounts: one per account of its lines (in
 * the invoice's order), its net the Σ of theirs. None when a line is no account's (a credit of an
 * amount, spread over the tax categories): its lines are then listed as one table.
 */
function sectionsOf(invoice: InvoiceDocument, lines: readonly DocumentLine[]): { sections?: DocumentSection[] } {
  if (invoice.sections === undefined || lines.some((l) => l.accountId === undefined)) return {};
  const sections = invoice.sections
    .map((x) => {
      const own = lines.filter((l) => l.accountId === x.accountId);
      if (own.length === 0) return undefined;
      const net = own.reduce((s, l) => s.add(l.net), Exact.ZERO);
      return { ...x, net: net.fixed(invoice.decimals) };
    })
    .filter((x) => x !== undefined);
  return sections.length === 0 ? {} : { sections };
}

/** The credit note of `lines`: its taxes (`creditTaxes`), totals, notes and reference to the invoice. */
function creditNoteWith(
  invoice: InvoiceDocument,
  remainder: InvoiceRemainder,
  lines: DocumentLine[],
  request: Omit<PartialCreditRequest, "credit"> & { kind?: "amount" | "lines"; mention: string },
): InvoiceDocument {
  const d = invoice.decimals;
  const taxes = creditTaxes(invoice, remainder, lines);
  const net = taxes.reduce((s, t) => s.add(t.base), Exact.ZERO);
  const tax = taxes.reduce((s, t) => s.add(t.amount), Exact.ZERO);
  const termsDays = Math.round(
    (Date.parse(`${invoice.dueDate}T00:00:00Z`) - Date.parse(`${invoice.issueDate}T00:00:00Z`)) / 86_400_000,
  );
  const corrects = { number: invoice.number, issueDate: invoice.issueDate };
  const taxNotes = invoice.notes.filter((n) => /^(Reverse charge|Exempt from VAT|Not subject to VAT)/.test(n));
  // nothing is paid on a credit note: the invoice's payment reference stays the invoice's
  // nor the invoice's contract parts: a partial credit is its own lines, and gives no prepaid credit back (docs/billing.md)
  const {
    paymentReference: _paid,
    taxInAccountingCurrency: fx,
    allowances: _allowances,
    commitment: _commitment,
    prepaid: _prepaid,
    sections: _sections,
    ...credited
  } = invoice;
  // its VAT in the accounting currency at the invoice's rate (EN 16931 BT-111), as the invoice gave it
  const accountingTax =
    fx === undefined || tax.isZero()
      ? undefined
      : { ...fx, amount: tax.mul(Exact.parse(fx.rate)!).fixed(currencyDecimals(fx.currency)) };
  return {
    ...credited,
    number: request.number,
    kind: "creditNote",
    issueDate: request.issueDate,
    dueDate: dueDateOf(request.issueDate, termsDays),
    lines,
    ...sectionsOf(invoice, lines),
    taxes,
    net: net.fixed(d),
    tax: tax.fixed(d),
    gross: net.add(tax).fixed(d),
    notes: [request.mention, ...taxNotes],
    corrects,
    reason: request.reason,
    ...(accountingTax ? { taxInAccountingCurrency: accountingTax } : {}),
    ...(request.kind ? { partialCredit: request.kind } : {}),
  };
}
