import { UsageError } from "../../base/errors.js";
import { wellFormed } from "../../base/wellFormed.js";
import { emailOf, telephoneOf } from "./contactLines.js";
import { checkEndpointId } from "./endpointIds.js";
import { parseAccountingCurrency, parseFxRates, type FxRates } from "./accountingCurrency.js";
import { readStructured } from "../../billing/readStructured.js";
import { parseTaxRule, taxRuleOfOldList, type TaxRule } from "./taxRule.js";
import { parseContract, type ContractTerms } from "./contractTerms.js";
import { taxCategoryDef } from "./taxCategories.js";

export type { TaxRule };

/** A party of an invoice: who issues it, or the customer it is addressed to. */
export interface StatementParty {
  /** The registered (legal) name. */
  legalName: string;
  /** Address lines, in order; the last holds the postcode and city (`20457 Hamburg`). */
  address: string[];
  /** ISO 3166-1 alpha-2 country code (`DE`); needed to issue an invoice. */
  country?: string;
  /** VAT identification number, when it has one. */
  vatId?: string;
  /** Peppol electronic address `<scheme>:<id>` (EAS code list), e.g. `9930:DE123456789`; needed for the UBL invoice. */
  peppolId?: string;
}

/** A customer of the config: its party, its buyer reference and its own tax (else the issuer's default). */
export interface StatementCustomer extends StatementParty {
  /** The buyer reference printed on the invoice and carried as UBL BuyerReference; default: the account id. */
  reference?: string;
  /** How this customer is taxed; default: the issuer's `tax`. */
  tax?: TaxRule;
  /** Its contract: discounts, a monthly commitment, prepaid credits (docs/billing.md#contracts). */
  contract?: ContractTerms;
}

/** What invoices need beyond the billing report: the issuer, the customers, numbering, dates and taxes. */
export interface StatementConfig {
  issuer: StatementParty & {
    /** Payment details printed under the amount due (bank, `IBAN ...`, `BIC ...`), one line each. */
    bank: string[];
    /** Contact lines (e-mail, phone), printed under the address. */
    contact: string[];
    /** The tax of customers without their own (`issuer.tax`; the old `taxes` list of one entry means S at its rate). */
    tax?: TaxRule;
  };
  /** Customers by account id; an account without an entry is addressed by its name alone on a draft, and cannot be issued. */
  customers: ReadonlyMap<number, StatementCustomer>;
  /** The numbering pattern of invoices: `{seq}` (or `{seq:05}`, zero-padded to 5 digits), `{yyyy}`, `{mm}` of the issue date, `{account}`. */
  numberPattern: string;
  /** The numbering pattern of credit notes, their own sequence (default `CN-{yyyy}-{seq:05}`). */
  creditNotePattern: string;
  /** Days from the issue date to the due date. */
  paymentTermsDays: number;
  /** The issue date `YYYY-MM-DD` when the config fixes it; default: the day the invoice is issued (UTC). */
  issueDate?: string;
  /** Keys of an older form the config still uses, each with what to write instead (for a note to the user). */
  deprecations: string[];
  /** The file it came from, for messages. */
  source: string;
  /** The issuer's VAT accounting currency (`issuer.currency`, default EUR): an invoice in another currency also gives its VAT in it. */
  accountingCurrency?: string;
  /** `fxRates.<currency>.<YYYY-MM-DD>`: one unit of the currency in the accounting currency on that day. */
  fxRates?: FxRates;
}

const TOKEN = /\{(seq(?::0?(\d+))?|yyyy|mm|account)\}/g;

/** The widest `{seq:N}`: wider, a number is mostly zeros. */
export const MAX_SEQ_WIDTH = 20;
/**
 * The longest number, in UTF-8 bytes: a number names its files, and `<number>.xml` and the
 * temporary name it is written under first (`.<number>.xml.<pid>.<random>.tmp`) must fit the
 * 255 bytes a file name has on common file systems.
 */
export const MAX_NUMBER_BYTES = 200;

/**
 * A document number from its pattern: `{seq}` the sequence number (`{seq:05}` padded with
 * zeros to 5 digits), `{yyyy}` and `{mm}` of the issue date, `{account}` the account id.
 */
export function formatStatementNumber(
  pattern: string,
  values: { seq: number; issueDate: string; accountId: number },
): string {
  return pattern.replace(TOKEN, (_, token: string, width?: string) => {
    if (token === "yyyy") return values.issueDate.slice(0, 4);
    if (token === "mm") return values.issueDate.slice(5, 7);
    if (token === "account") return String(values.accountId);
    return String(values.seq).padStart(width === undefined ? 0 : Number(width), "0");
  });
}

/** The due date of an issue date `YYYY-MM-DD` under payment terms of `days` days. */
export function dueDateOf(issueDate: string, days: number): string {
  return new Date(Date.parse(`${issueDate}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

function fail(message: string): never {
  throw new UsageError(message, { code: "STATEMENT_CONFIG" });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function checkKeys(value: Record<string, unknown>, known: readonly string[], where: string): void {
  const unknown = Object.keys(value).filter((k) => !known.includes(k));
  if (unknown.length > 0)
    fail(`${where}: unknown key${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")} (known: ${known.join(", ")})`);
}

function text(value: unknown, where: string): string {
  if (typeof value !== "string" || value.trim() === "")
    fail(`${where}: expected a non-empty text, got ${JSON.stringify(value)}`);
  return wellFormed(value.trim());
}

/** Lines: a list of texts, or one text whose lines (`\n`) are the lines. */
function lines(value: unknown, where: string): string[] {
  if (value === undefined) return [];
  if (typeof value === "string")
    return value
      .split("\n")
      .map((l) => wellFormed(l.trim()))
      .filter((l) => l !== "");
  if (!Array.isArray(value)) fail(`${where}: expected a list of lines, got ${JSON.stringify(value)}`);
  return value.map((l, i) => text(l, `${where}[${i}]`));
}

function country(value: unknown, where: string): string {
  const code = text(value, where);
  if (!/^[A-Z]{2}$/.test(code))
    fail(`${where}: an ISO 3166-1 alpha-2 country code such as DE or FR, got ${JSON.stringify(value)}`);
  return code;
}

function peppolId(value: unknown, where: string): string {
  const id = text(value, where);
  if (!/^\d{4}:\S+$/.test(id))
    fail(
      `${where}: a Peppol electronic address <scheme>:<id> with a 4-digit EAS scheme, e.g. "9930:DE123456789", got ${JSON.stringify(value)}`,
    );
  const problem = checkEndpointId(id.slice(0, 4), id.slice(5));
  if (problem !== undefined) fail(`${where} ${JSON.stringify(id)}: ${problem}`);
  return id;
}

const PARTY_KEYS = ["legalName", "address", "country", "vatId", "peppolId"] as const;

function party(value: unknown, where: string, extra: readonly string[]): StatementParty {
  if (!isObject(value)) fail(`${where}: expected { legalName, address, country, vatId, peppolId }`);
  checkKeys(value, [...PARTY_KEYS, ...extra], where);
  return {
    legalName: text(value.legalName, `${where}.legalName`),
    address: lines(value.address, `${where}.address`),
    ...(value.country === undefined ? {} : { country: country(value.country, `${where}.country`) }),
    ...(value.vatId === undefined ? {} : { vatId: text(value.vatId, `${where}.vatId`) }),
    ...(value.peppolId === undefined ? {} : { peppolId: peppolId(value.peppolId, `${where}.peppolId`) }),
  };
}

function customer(value: unknown, where: string): StatementCustomer {
  const base = party(value, where, ["reference", "tax", "contract"]);
  const record = value as Record<string, unknown>;
  const reference = record.reference === undefined ? undefined : text(String(record.reference), `${where}.reference`);
  const tax = record.tax === undefined ? undefined : parseTaxRule(record.tax, `${where}.tax`);
  if (tax && taxCategoryDef(tax.category).vatIds === "both" && base.vatId === undefined)
    fail(
      `${where}: a customer of tax category ${tax.category} (${taxCategoryDef(tax.category).name}) needs its vatId: the invoice must name it`,
    );
  const contract = record.contract === undefined ? undefined : parseContract(record.contract, `${where}.contract`);
  return {
    ...base,
    ...(reference === undefined ? {} : { reference }),
    ...(tax === undefined ? {} : { tax }),
    ...(contract === undefined ? {} : { contract }),
  };
}

function pattern(value: unknown, where: string): string {
  const p = text(value, where);
  if (![...p.matchAll(TOKEN)].some((m) => m[1]!.startsWith("seq")))
    fail(`${where} ${JSON.stringify(p)} has no {seq}: without the sequence, two documents could get one number`);
  const stray = p.replace(TOKEN, "").match(/\{[^}]*\}?/);
  if (stray) fail(`${where}: unknown placeholder ${stray[0]} (known: {seq}, {seq:05}, {yyyy}, {mm}, {account})`);
  // a number names its files (<number>.pdf, <number>.xml)
  const unsafe = p.replace(TOKEN, "").match(/[/\\:*?"<>|\x00-\x1f]/);
  if (unsafe)
    fail(
      `${where} ${JSON.stringify(p)}: ${JSON.stringify(unsafe[0])} cannot be in a file name, and a number names its files (<number>.pdf)`,
    );
  const width = Math.max(0, ...[...p.matchAll(TOKEN)].map((m) => (m[2] === undefined ? 0 : Number(m[2]))));
  if (width > MAX_SEQ_WIDTH)
    fail(
      `${where} ${JSON.stringify(p)}: {seq:${width}} pads to ${width} digits; at most {seq:${String(MAX_SEQ_WIDTH).padStart(2, "0")}}`,
    );
  const longest = Buffer.byteLength(longestNumber(p));
  if (longest > MAX_NUMBER_BYTES) {
    fail(
      `${where} ${JSON.stringify(p)}: its numbers can take ${longest} bytes, and a number names its files (<number>.pdf): at most ${MAX_NUMBER_BYTES}`,
    );
  }
  return p;
}

/** The longest number a pattern gives: a sequence of 12 digits (or its width), an account id of 16 (the largest safe integer's). */
function longestNumber(pattern: string): string {
  return pattern.replace(TOKEN, (_, token: string, width?: string) => {
    if (token === "yyyy") return "9999";
    if (token === "mm") return "12";
    if (token === "account") return "9".repeat(16);
    return "9".repeat(Math.max(12, width === undefined ? 0 : Number(width)));
  });
}

function numbering(value: unknown, source: string): { numberPattern: string; creditNotePattern: string } {
  const given = value ?? { pattern: "INV-{yyyy}-{seq:05}" };
  if (!isObject(given))
    fail(`${source}: numbering: expected { pattern: "INV-{yyyy}-{seq:05}", creditNotePattern: "CN-{yyyy}-{seq:05}" }`);
  checkKeys(given, ["pattern", "creditNotePattern"], `${source}: numbering`);
  const numberPattern = pattern(given.pattern, `${source}: numbering.pattern`);
  const creditNotePattern = pattern(
    given.creditNotePattern ?? "CN-{yyyy}-{seq:05}",
    `${source}: numbering.creditNotePattern`,
  );
  // the two sequences both start at 1: only their fixed text keeps their numbers apart
  if (numberPattern.replace(TOKEN, "") === creditNotePattern.replace(TOKEN, "")) {
    fail(
      `${source}: numbering.creditNotePattern ${JSON.stringify(creditNotePattern)} must differ from numbering.pattern ${JSON.stringify(numberPattern)} in its fixed text (e.g. CN- and INV-): credit notes have their own sequence, which would repeat invoice numbers`,
    );
  }
  return { numberPattern, creditNotePattern };
}

function issueDateOfConfig(value: unknown, source: string): string | undefined {
  // YAML reads an unquoted 2026-11-01 as a text (the yaml package's default core schema)
  const date = value === undefined ? undefined : String(value);
  if (
    date !== undefined &&
    (!/^\d{4}-\d{2}-\d{2}$/.test(date) ||
      Number.isNaN(Date.parse(`${date}T00:00:00Z`)) ||
      new Date(`${date}T00:00:00Z`).toISOString().slice(0, 10) !== date)
  ) {
    fail(`${source}: issueDate must be a date YYYY-MM-DD, got ${JSON.stringify(value)}`);
  }
  return date;
}

function issuerOf(
  value: unknown,
  source: string,
  oldTaxes: unknown,
  deprecations: string[],
): StatementConfig["issuer"] {
  if (value === undefined)
    fail(`${source}: no issuer (who sends the invoice: legalName, address, country, vatId, peppolId, tax)`);
  const base = party(value, `${source}: issuer`, ["contact", "bank", "tax", "currency"]);
  const record = value as Record<string, unknown>;
  let tax = record.tax === undefined ? undefined : parseTaxRule(record.tax, `${source}: issuer.tax`);
  if (oldTaxes !== undefined) {
    if (tax !== undefined)
      fail(`${source}: taxes and issuer.tax both given: taxes is the older form of issuer.tax, keep issuer.tax alone`);
    tax = taxRuleOfOldList(oldTaxes, `${source}: taxes`);
    if (tax)
      deprecations.push(
        `${source}: taxes is the older form of issuer.tax: write issuer.tax: { category: S, ratePercent: ${tax.ratePercent} }`,
      );
  }
  if (tax && taxCategoryDef(tax.category).vatIds === "both")
    fail(
      `${source}: issuer.tax: ${taxCategoryDef(tax.category).name} (${tax.category}) is a customer's tax, not a default: set it under customers.<id>.tax`,
    );
  return {
    ...base,
    contact: lines(record.contact, `${source}: issuer.contact`),
    bank: lines(record.bank, `${source}: issuer.bank`),
    ...(tax === undefined ? {} : { tax }),
  };
}

/**
 * Checks a parsed statement config: `{ issuer: { legalName, address, country?, vatId?, peppolId?,
 * contact?, bank?, tax? }, numbering: { pattern, creditNotePattern? }, paymentTermsDays?,
 * issueDate?, customers?: { "7101": { legalName, address, country?, vatId?, peppolId?,
 * reference?, tax? } } }`, a tax being `{ category: S|AE|E|Z|O, ratePercent?, exemptionReason? }`.
 * The older `taxes: [{ label, ratePercent }]` of one entry is read as the issuer's tax (S at that
 * rate) and listed in `deprecations`. Unknown keys and bad values throw a UsageError (code
 * STATEMENT_CONFIG) naming the file and the key.
 */
export function parseStatementConfig(value: unknown, source = "statement config"): StatementConfig {
  if (!isObject(value)) fail(`${source}: a statement config is an object { issuer, numbering, customers, ... }`);
  checkKeys(value, ["issuer", "numbering", "paymentTermsDays", "issueDate", "taxes", "customers", "fxRates"], source);
  const deprecations: string[] = [];
  const issuer = issuerOf(value.issuer, source, value.taxes, deprecations);
  const paymentTermsDays = value.paymentTermsDays ?? 30;
  if (
    typeof paymentTermsDays !== "number" ||
    !Number.isInteger(paymentTermsDays) ||
    paymentTermsDays < 0 ||
    paymentTermsDays > 3650
  ) {
    fail(`${source}: paymentTermsDays must be a whole number of days, got ${JSON.stringify(value.paymentTermsDays)}`);
  }
  const customers = new Map<number, StatementCustomer>();
  if (value.customers !== undefined) {
    if (!isObject(value.customers))
      fail(
        `${source}: customers must map account ids to { legalName, address, country, vatId, peppolId, reference, tax }`,
      );
    for (const [id, entry] of Object.entries(value.customers)) {
      if (!/^\d+$/.test(id)) fail(`${source}: customers: "${id}" is not an account id`);
      customers.set(Number(id), customer(entry, `${source}: customers.${id}`));
    }
  }
  return {
    issuer,
    customers,
    ...numbering(value.numbering, source),
    paymentTermsDays,
    issueDate: issueDateOfConfig(value.issueDate, source),
    deprecations,
    source,
    accountingCurrency: parseAccountingCurrency(
      (value.issuer as Record<string, unknown>).currency,
      `${source}: issuer.currency`,
    ),
    fxRates: parseFxRates(value.fxRates, `${source}: fxRates`),
  };
}

/** Reads a statement config file (JSON when it ends in `.json`, else YAML) and checks it. */
export async function loadStatementConfig(file: string): Promise<StatementConfig> {
  return parseStatementConfig(await readStructured(file, { role: "statement config" }), file);
}

/** The tax of an account's invoices: its customer's own, else the issuer's default; undefined when the config gives neither. */
export function taxOf(config: StatementConfig, accountId: number): TaxRule | undefined {
  return config.customers.get(accountId)?.tax ?? config.issuer.tax;
}

/**
 * What keeps an account's invoice from being issued under this config, as sentences (empty when
 * nothing does): EN 16931 and Peppol BIS 3.0 need the issuer's country, VAT id (unless outside the
 * scope of VAT) and electronic address, the customer's entry with its address, country and
 * electronic address, and a tax. What only the e-invoice needs beyond these is `eInvoiceProblems`.
 */
export function issueProblems(config: StatementConfig, accountId: number): string[] {
  const out: string[] = [];
  const { issuer } = config;
  const tax = taxOf(config, accountId);
  if (issuer.country === undefined) out.push("issuer.country (ISO 3166-1 alpha-2, e.g. DE)");
  if (issuer.vatId === undefined && (tax === undefined || taxCategoryDef(tax.category).vatIds !== "none"))
    out.push("issuer.vatId");
  if (issuer.peppolId === undefined) out.push('issuer.peppolId (the electronic address, e.g. "9930:DE123456789")');
  if (issuer.address.length === 0) out.push("issuer.address");
  if (tax === undefined)
    out.push(`a tax: issuer.tax (the default, e.g. { category: S, ratePercent: 19 }) or customers.${accountId}.tax`);
  const customer = config.customers.get(accountId);
  if (customer === undefined) {
    out.push(`customers.${accountId} (legalName, address, country, peppolId)`);
    return out;
  }
  if (customer.address.length === 0) out.push(`customers.${accountId}.address`);
  if (customer.country === undefined) out.push(`customers.${accountId}.country`);
  if (customer.peppolId === undefined) out.push(`customers.${accountId}.peppolId (the customer's electronic address)`);
  return out;
}

/**
 * What keeps an issuable invoice's UBL e-invoice from passing the Peppol BIS 3.0 rules, as
 * sentences (empty when nothing does): between two German parties, Peppol's German rules (DE-R-*)
 * ask for the issuer's e-mail, telephone and IBAN and both postcodes. Such an invoice is refused
 * before it is numbered (`checkIssuable`).
 */
export function eInvoiceProblems(config: StatementConfig, accountId: number): string[] {
  return config.issuer.country === "DE" && config.customers.get(accountId)?.country === "DE"
    ? germanProblems(config, accountId)
    : [];
}

/** `postcode city`: a last address line whose first word holds a digit. */
const POSTCODE_CITY = /^\S*\d\S*\s+\S/;

/** What Peppol's German rules (DE-R-*) ask of an invoice between two German parties: the seller's contact and payment account, postcodes. */
function germanProblems(config: StatementConfig, accountId: number): string[] {
  const { issuer } = config;
  const out: string[] = [];
  if (
    !issuer.contact.some((l) => emailOf(l) !== undefined) ||
    !issuer.contact.some((l) => telephoneOf(l) !== undefined)
  ) {
    out.push(
      'issuer.contact: an e-mail line and a telephone line such as "Tel. +49 40 1234567" (an invoice between German parties names the seller\'s contact)',
    );
  }
  if (!issuer.bank.some((l) => /^IBAN[:\s]/i.test(l)))
    out.push('issuer.bank: a line "IBAN ..." (an invoice between German parties carries the payment account)');
  if (!POSTCODE_CITY.test(issuer.address.at(-1) ?? "")) out.push('issuer.address: a last line "postcode city"');
  if (!POSTCODE_CITY.test(config.customers.get(accountId)?.address.at(-1) ?? ""))
    out.push(`customers.${accountId}.address: a last line "postcode city"`);
  return out;
}

/**
 * Throws a UsageError (code STATEMENT_CONFIG) naming every key missing to issue the invoices
 * of these accounts, PDF and e-invoice (see `issueProblems` and `eInvoiceProblems`), before any
 * number is taken.
 */
export function checkIssuable(config: StatementConfig, accountIds: readonly number[]): void {
  const missing = [
    ...new Set(accountIds.flatMap((id) => [...issueProblems(config, id), ...eInvoiceProblems(config, id)])),
  ];
  if (missing.length > 0)
    fail(
      `${config.source}: cannot issue invoice${accountIds.length === 1 ? "" : "s"} of account${accountIds.length === 1 ? "" : "s"} ${accountIds.join(", ")}: missing ${missing.join("; ")}`,
    );
}
