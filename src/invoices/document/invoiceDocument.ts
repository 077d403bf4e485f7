/**
 * An issued document (an invoice or a credit note) as the register keeps it and as every renderer
 * (PDF, UBL XML, the XLSX pack, the dashboard) reads it: all figures are already decided here, at
 * the currency's decimals, so a document renders the same bytes from the register alone, whatever
 * the warehouse, the price list or the code's rounding become later.
 *
 * Money is an `Exact` written at the currency's decimals (`Exact.amount`): its text, the one the
 * register's JSON holds, is a plain decimal (`"1105.23"`, `"-1105.23"` on a credit note, `"1200"` in
 * JPY), never localized. Quantities, prices and rates stay the decimal texts they were written as. Periods are half-open `[start, end)` in epoch seconds; what a customer reads
 * (`1 Oct 2026 – 31 Oct 2026`) is the renderers' business.
 */

import type { Exact } from "../../billing/exact.js";
import type { TaxCategory } from "./taxCategories.js";

/** An EN 16931 VAT category (UNCL5305), one of the tax catalog's (taxCategories.ts). */
export type { TaxCategory };

/** `invoice` (UNCL1001 380) or `creditNote` (381). */
export type DocumentKind = "invoice" | "creditNote";

/** A party of a document: the issuer (seller) or the customer (buyer). */
export interface DocumentParty {
  legalName: string;
  /** Address lines, in order; the last line holds the postcode and city. */
  address: string[];
  /** ISO 3166-1 alpha-2. */
  country: string;
  vatId?: string;
  /** Electronic address `<scheme>:<id>` (Peppol EAS code list), e.g. `9930:DE123456789`. */
  peppolId?: string;
}

/** How a customer is taxed: one EN 16931 category, with its rate (S, Z) or exemption reason (E). */
export interface CustomerTax {
  category: TaxCategory;
  /** The rate in percent as written in the config (`"19"`, `"7.7"`); `"0"` for AE, E, Z, O. */
  ratePercent: string;
  /** Why an exempt (E) customer pays no VAT: printed on the invoice and carried in the UBL. */
  exemptionReason?: string;
}

/** One line of a document: a priced unit over one price period. */
export interface DocumentLine {
  /** The billing unit, `CU`, `SU`, ... */
  unit: string;
  /** Words a customer reads: `Compute units (CU)`; never a formula. */
  description: string;
  /** The price period, half-open, epoch seconds. */
  start: number;
  end: number;
  /** The quantity as shown and multiplied (decimal text, negative on a credit note). */
  quantity: string;
  /** The unit of the quantity as a customer reads it, e.g. `CU-hours`, `TiB`. */
  quantityUnit: string;
  /** The unit price as written in the price list (decimal text). */
  unitPrice: string;
  /** What the unit price is per, e.g. `CU-hour`, `SU-month`, `TiB`. */
  priceUnit: string;
  /** quantity × unit price, rounded half-even at the currency's decimals (negative on a credit note). */
  net: Exact;
  taxCategory: TaxCategory;
  taxRatePercent: string;
  /** On an invoice of a customer of several accounts: the account whose consumption the line is (its section). */
  accountId?: number;
}

/** On an invoice of a customer of several accounts: an account's section, its lines' subtotal. */
export interface DocumentSection {
  accountId: number;
  /** The account's name from the names file, `""` when unknown. */
  name: string;
  /** Σ of the net of the account's lines (negative on a credit note). */
  net: Exact;
}

/**
 * A contract discount (EN 16931 BG-20, a document level allowance): a percentage off the net of one
 * unit's line over (part of) its price period. Amounts are positive on an invoice, negative on a
 * credit note (as its lines are).
 */
export interface DocumentAllowance {
  unit: string;
  /** Where the discount was in force within the line's price period, half-open, epoch seconds. */
  start: number;
  end: number;
  /** Words a customer reads: `Contract discount 10 % on CU` (`… on CU of account 7102` on an invoice of several accounts). */
  reason: string;
  /** As the contract writes it (`"10"`). */
  percent: string;
  /** The share of the line's net the discount applies to. */
  base: Exact;
  /** base × percent / 100, rounded half-even at the currency's decimals. */
  amount: Exact;
  taxCategory: TaxCategory;
  taxRatePercent: string;
}

/** A contract's minimum commitment not reached in the period: a line "Minimum commitment: shortfall". */
export interface DocumentCommitment {
  description: string;
  /** The part of the period the commitment ran, half-open, epoch seconds. */
  start: number;
  end: number;
  /** The commitment of that part (the monthly amount × its share of the period's hours). */
  committed: Exact;
  /** committed − the net after discounts: the line's net. */
  amount: Exact;
  taxCategory: TaxCategory;
  taxRatePercent: string;
}

/** Prepaid credit consumed by an invoice (EN 16931 BT-113, paid in advance), oldest first. */
export interface DocumentPrepaid {
  /** Σ of the credits consumed (tax included); negative on a credit note, which gives it back. */
  amount: Exact;
  credits: { id: string; amount: Exact }[];
}

/** The tax of one category and rate: Σ of its lines' net × rate, rounded half-even at the currency's decimals. */
export interface TaxLine {
  category: TaxCategory;
  ratePercent: string;
  /** Σ of the category's line nets. */
  base: Exact;
  amount: Exact;
  exemptionReason?: string;
}

/** What a document was computed from: enough to know later whether the warehouse still agrees. */
export interface DocumentBasis {
  /** The account-hours billed (epoch seconds of each hour held in the period), ascending. */
  hours: number[];
  /** SHA-256 of each billed hour's files, in the order of `hours` (hex). */
  hourSha256: string[];
  /** SHA-256 of the price list's bytes and of the statement config's bytes (hex). */
  pricesSha256: string;
  statementSha256: string;
  /** The rules in force: `cuRollup`, the units file's constants, as a plain object. */
  rules: Record<string, unknown>;
  /**
   * On an invoice of a customer of several accounts, the hours billed of each account (then
   * `hours` and `hourSha256` are empty); absent on a document of one account.
   */
  accounts?: { accountId: number; hours: number[]; hourSha256: string[] }[];
}

/** An issued invoice or credit note: the record the register keeps and every renderer reads. */
export interface InvoiceDocument {
  number: string;
  kind: DocumentKind;
  /** The account billed; on an invoice of a customer of several accounts, its first (`accountIds` lists them all). */
  accountId: number;
  /**
   * On an invoice of a customer of several accounts (`customers.<id>.accounts`): the customer's id
   * and its accounts billed, ascending, each line saying its account and a section per account.
   * Absent on a document of one account, whose customer id is its account id (`documentCustomerId`).
   */
  customerId?: string;
  accountIds?: number[];
  sections?: DocumentSection[];
  /** The billed period, half-open, epoch seconds. */
  start: number;
  end: number;
  /** `YYYY-MM-DD`. */
  issueDate: string;
  dueDate: string;
  currency: string;
  /** The currency's decimals (2 for EUR, 0 for JPY). */
  decimals: number;
  issuer: DocumentParty & {
    /** Contact lines (e-mail, phone), printed under the issuer's address. */
    contact?: string[];
  };
  customer: DocumentParty & {
    /** The buyer reference (UBL BuyerReference): the config's `reference`, default the account id. */
    reference: string;
  };
  lines: DocumentLine[];
  taxes: TaxLine[];
  /**
   * A contract's discounts (BG-20), absent when none applies (and on documents issued before
   * contracts, which keep their bytes).
   */
  allowances?: DocumentAllowance[];
  /** A contract's commitment shortfall line, when the period's net after discounts was below it. */
  commitment?: DocumentCommitment;
  /** Σ of the lines' net − Σ of the allowances + the commitment shortfall. */
  net: Exact;
  /** Σ of the tax lines' amounts. */
  tax: Exact;
  /** net + tax: the invoice's total; the amount due less `prepaid` when credit paid in advance was consumed. */
  gross: Exact;
  /** Prepaid credit consumed (BT-113): the amount due is gross − prepaid. Absent when none was. */
  prepaid?: DocumentPrepaid;
  /** Legal mentions printed on the document (reverse charge, exemption reason, accepted missing hours). */
  notes: string[];
  /** Hours of the period accepted as missing (`--accept-missing`), epoch seconds, ascending. */
  missingHours: number[];
  /** On a credit note, and on the invoice that replaces a corrected one: the document it refers to. */
  corrects?: { number: string; issueDate: string };
  /** Why a correction was made (`invoices correct --reason`), on both the credit note and the new invoice. */
  reason?: string;
  /**
   * The structured creditor reference a payment quotes (ISO 11649 `RF…`, or the Belgian structured
   * communication `+++123/4567/89012+++` for a Belgian issuer), derived from the number
   * (`paymentReferenceOf`). Invoices only; absent on credit notes and on documents issued before
   * references were given (they keep their bytes).
   */
  paymentReference?: string;
  /**
   * On a partial credit note (`invoices credit`): whether it credits an amount before tax spread over
   * the tax categories (`amount`) or whole lines of the invoice (`lines`). Absent on invoices, on
   * the credit note of a correction and on documents issued before partial credit notes.
   */
  partialCredit?: "amount" | "lines";
  /** Payment lines (bank, IBAN) from the statement config. */
  payment: string[];
  basis: DocumentBasis;
  /**
   * The VAT total in the issuer's accounting currency (EN 16931 BT-6, BT-111), when the document is
   * in another currency and tax is due: the currency, the rate of the issue date (one unit of the
   * document's currency in it) and the tax × rate rounded half-even at its decimals. Absent otherwise,
   * and on documents issued before it was given (they keep their bytes).
   */
  taxInAccountingCurrency?: { currency: string; rate: string; amount: Exact };
}

/**
 * A document not issued (`billing --format pdf`, the dashboard's statement): every figure of an
 * invoice, no number. Only PDFs are rendered from it, each page marked DRAFT.
 */
export type DraftDocument = Omit<InvoiceDocument, "number"> & { number?: undefined };
