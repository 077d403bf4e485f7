import { UsageError } from "../base/errors.js";
import { Exact } from "./exact.js";
import { readStructured } from "./readStructured.js";

/** A party of a statement: who issues it, or the customer it is addressed to. */
export interface StatementParty {
  /** The registered (legal) name. */
  legalName: string;
  /** Address lines, in order. */
  address: string[];
  /** VAT (or tax) identification number, when it has one. */
  vatId?: string;
}

/** A tax added to a statement's total excluding tax: `rate` × that total, rounded half-even at the currency's decimals. */
export interface StatementTax {
  /** As printed, e.g. `VAT 21%`. */
  label: string;
  /** The rate as a fraction (21% is 0.21), exact. */
  rate: Exact;
  /** The rate as written in the config, for display. */
  rateText: string;
}

/** What statements need beyond the billing report: the issuer, the customers, numbering, dates and taxes. */
export interface StatementConfig {
  issuer: StatementParty & {
    /** Payment details printed under the amount due (bank, IBAN, BIC...), one line each. */
    bank: string[];
    /** Contact lines (e-mail, phone), printed under the address. */
    contact: string[];
  };
  /** Customers by account id; an account without an entry is addressed by its name and id alone. */
  customers: ReadonlyMap<number, StatementParty>;
  /** The numbering pattern: `{seq}` (or `{seq:05}`, zero-padded to 5 digits), `{yyyy}`, `{mm}` of the issue date, `{account}`. */
  numberPattern: string;
  /** Days from the issue date to the due date. */
  paymentTermsDays: number;
  /** The issue date `YYYY-MM-DD` when the config fixes it; default: the day a statement is first numbered (UTC). */
  issueDate?: string;
  /** Taxes added to the total excluding tax, in order. */
  taxes: StatementTax[];
  /** The file it came from, for messages. */
  source: string;
}

const TOKEN = /\{(seq(?::0?(\d+))?|yyyy|mm|account)\}/g;

/**
 * A statement number from its pattern: `{seq}` the sequence number (`{seq:05}` padded with
 * zeros to 5 digits), `{yyyy}` and `{mm}` of the issue date, `{account}` the account id.
 */
export function formatStatementNumber(pattern: string, values: { seq: number; issueDate: string; accountId: number }): string {
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

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function checkKeys(value: Record<string, unknown>, known: readonly string[], where: string): void {
  const unknown = Object.keys(value).filter((k) => !known.includes(k));
  if (unknown.length > 0) throw new UsageError(`${where}: unknown key${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")} (known: ${known.join(", ")})`, { code: "STATEMENT_CONFIG" });
}

function text(value: unknown, where: string): string {
  if (typeof value !== "string" || value.trim() === "") throw new UsageError(`${where}: expected a non-empty text, got ${JSON.stringify(value)}`, { code: "STATEMENT_CONFIG" });
  return value.trim();
}

/** Lines: a list of texts, or one text whose lines (`\n`) are the lines. */
function lines(value: unknown, where: string): string[] {
  if (value === undefined) return [];
  if (typeof value === "string") return value.split("\n").map((l) => l.trim()).filter((l) => l !== "");
  if (!Array.isArray(value)) throw new UsageError(`${where}: expected a list of lines, got ${JSON.stringify(value)}`, { code: "STATEMENT_CONFIG" });
  return value.map((l, i) => text(l, `${where}[${i}]`));
}

function party(value: unknown, where: string, extra: readonly string[] = []): StatementParty {
  if (!isObject(value)) throw new UsageError(`${where}: expected { legalName, address, vatId }`, { code: "STATEMENT_CONFIG" });
  checkKeys(value, ["legalName", "address", "vatId", ...extra], where);
  return {
    legalName: text(value.legalName, `${where}.legalName`),
    address: lines(value.address, `${where}.address`),
    ...(value.vatId === undefined ? {} : { vatId: text(value.vatId, `${where}.vatId`) }),
  };
}

function tax(value: unknown, where: string): StatementTax {
  if (!isObject(value)) throw new UsageError(`${where}: expected { label, ratePercent }`, { code: "STATEMENT_CONFIG" });
  checkKeys(value, ["label", "ratePercent"], where);
  const rateText = typeof value.ratePercent === "number" ? String(value.ratePercent) : typeof value.ratePercent === "string" ? value.ratePercent.trim() : "";
  const percent = Exact.parse(rateText);
  if (percent === undefined || percent.num < 0n) throw new UsageError(`${where}.ratePercent: a non-negative percentage, e.g. 21, got ${JSON.stringify(value.ratePercent)}`, { code: "STATEMENT_CONFIG" });
  return { label: text(value.label, `${where}.label`), rate: percent.div(Exact.of(100n)), rateText: `${rateText}%` };
}

/**
 * Checks a parsed statement config: `{ issuer: { legalName, address, vatId?, contact?, bank? },
 * numbering: { pattern }, paymentTermsDays?, issueDate?, taxes?: [{ label, ratePercent }],
 * customers?: { "7101": { legalName, address, vatId? } } }`. Unknown keys and bad values
 * throw a UsageError (code STATEMENT_CONFIG) naming the file and the key.
 */
export function parseStatementConfig(value: unknown, source = "statement config"): StatementConfig {
  if (!isObject(value)) throw new UsageError(`${source}: a statement config is an object { issuer, numbering, customers, ... }`, { code: "STATEMENT_CONFIG" });
  checkKeys(value, ["issuer", "numbering", "paymentTermsDays", "issueDate", "taxes", "customers"], source);
  if (value.issuer === undefined) throw new UsageError(`${source}: no issuer (who sends the statement: legalName, address, vatId)`, { code: "STATEMENT_CONFIG" });
  const issuerParty = party(value.issuer, `${source}: issuer`, ["contact", "bank"]);
  const issuer = { ...issuerParty, contact: lines((value.issuer as Record<string, unknown>).contact, `${source}: issuer.contact`), bank: lines((value.issuer as Record<string, unknown>).bank, `${source}: issuer.bank`) };

  const numbering = value.numbering ?? { pattern: "{yyyy}-{seq:05}" };
  if (!isObject(numbering)) throw new UsageError(`${source}: numbering: expected { pattern: "INV-{yyyy}-{seq:05}" }`, { code: "STATEMENT_CONFIG" });
  checkKeys(numbering, ["pattern"], `${source}: numbering`);
  const numberPattern = text(numbering.pattern, `${source}: numbering.pattern`);
  if (![...numberPattern.matchAll(TOKEN)].some((m) => m[1]!.startsWith("seq"))) {
    throw new UsageError(`${source}: numbering.pattern ${JSON.stringify(numberPattern)} has no {seq}: without the sequence, two statements could get one number`, { code: "STATEMENT_CONFIG" });
  }
  const stray = numberPattern.replace(TOKEN, "").match(/\{[^}]*\}?/);
  if (stray) throw new UsageError(`${source}: numbering.pattern: unknown placeholder ${stray[0]} (known: {seq}, {seq:05}, {yyyy}, {mm}, {account})`, { code: "STATEMENT_CONFIG" });

  const paymentTermsDays = value.paymentTermsDays ?? 30;
  if (typeof paymentTermsDays !== "number" || !Number.isInteger(paymentTermsDays) || paymentTermsDays < 0 || paymentTermsDays > 3650) {
    throw new UsageError(`${source}: paymentTermsDays must be a whole number of days, got ${JSON.stringify(value.paymentTermsDays)}`, { code: "STATEMENT_CONFIG" });
  }
  // YAML reads an unquoted 2026-11-01 as a text (the yaml package's default core schema)
  const issueDate = value.issueDate === undefined ? undefined : String(value.issueDate);
  if (issueDate !== undefined && (!/^\d{4}-\d{2}-\d{2}$/.test(issueDate) || Number.isNaN(Date.parse(`${issueDate}T00:00:00Z`)) || new Date(`${issueDate}T00:00:00Z`).toISOString().slice(0, 10) !== issueDate)) {
    throw new UsageError(`${source}: issueDate must be a date YYYY-MM-DD, got ${JSON.stringify(value.issueDate)}`, { code: "STATEMENT_CONFIG" });
  }
  if (value.taxes !== undefined && !Array.isArray(value.taxes)) throw new UsageError(`${source}: taxes: expected a list of { label, ratePercent }`, { code: "STATEMENT_CONFIG" });
  const taxes = ((value.taxes ?? []) as unknown[]).map((t, i) => tax(t, `${source}: taxes[${i}]`));

  const customers = new Map<number, StatementParty>();
  if (value.customers !== undefined) {
    if (!isObject(value.customers)) throw new UsageError(`${source}: customers must map account ids to { legalName, address, vatId }`, { code: "STATEMENT_CONFIG" });
    for (const [id, customer] of Object.entries(value.customers)) {
      if (!/^\d+$/.test(id)) throw new UsageError(`${source}: customers: "${id}" is not an account id`, { code: "STATEMENT_CONFIG" });
      customers.set(Number(id), party(customer, `${source}: customers.${id}`));
    }
  }
  return { issuer, customers, numberPattern, paymentTermsDays, issueDate, taxes, source };
}

/** Reads a statement config file (JSON when it ends in `.json`, else YAML) and checks it. */
export async function loadStatementConfig(file: string): Promise<StatementConfig> {
  return parseStatementConfig(await readStructured(file), file);
}
