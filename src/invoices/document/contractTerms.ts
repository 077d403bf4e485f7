import { UsageError } from "../../base/errors.js";
import { wellFormed } from "../../base/wellFormed.js";
import { Exact } from "../../billing/exact.js";
import type { DocumentAllowance, DocumentCommitment, DocumentLine } from "./invoiceDocument.js";

/**
 * A customer's contract (`customers.<id>.contract` of the statement config, docs/billing.md#contracts):
 * discounts on units, a monthly minimum commitment and prepaid credits. Dates are days `YYYY-MM-DD`
 * of UTC, both ends included as a customer reads them; kept here as half-open epoch seconds.
 */
export interface ContractTerms {
  discounts: ContractDiscount[];
  commitment?: ContractCommitment;
  credits: ContractCredit[];
}

/** `{ percent, units, from?, to? }`: a percentage off the lines of these units while in force. */
export interface ContractDiscount {
  /** As written (`"10"`, `"12.5"`). */
  percent: string;
  units: string[];
  /** In force from (epoch seconds, included) until (excluded); open ends when not given. */
  start: number;
  end: number;
}

/** `{ monthly, from?, to? }`: the net a customer pays at least for each month the contract runs. */
export interface ContractCommitment {
  /** The monthly amount as written (decimal text, before tax). */
  monthly: string;
  start: number;
  end: number;
}

/** `{ id, amount, validFrom, validTo }`: credit paid in advance (tax included), consumed by invoices while valid. */
export interface ContractCredit {
  id: string;
  /** As paid, tax included (decimal text). */
  amount: string;
  /** `YYYY-MM-DD`, both included. */
  validFrom: string;
  validTo: string;
}

const DAY = 86_400;
const OPEN_START = Number.MIN_SAFE_INTEGER;
const OPEN_END = Number.MAX_SAFE_INTEGER;

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

/** A day `YYYY-MM-DD` (YAML may give it as a text or a Date). */
function day(value: unknown, where: string): string {
  const text = value instanceof Date ? value.toISOString().slice(0, 10) : String(value);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text) || new Date(`${text}T00:00:00Z`).toISOString().slice(0, 10) !== text)
    fail(`${where}: a day YYYY-MM-DD, got ${JSON.stringify(value)}`);
  return text;
}

const epochOf = (dayText: string) => Date.parse(`${dayText}T00:00:00Z`) / 1000;

function amount(value: unknown, where: string, { positive }: { positive: boolean }): string {
  const text = typeof value === "number" ? String(value) : typeof value === "string" ? value.trim() : "";
  const exact = /^\d+(\.\d+)?$/.test(text) ? Exact.parse(text) : undefined;
  if (exact === undefined || (positive && exact.isZero()))
    fail(
      `${where}: a ${positive ? "positive " : ""}decimal amount such as 500 or 1200.50, got ${JSON.stringify(value)}`,
    );
  return text;
}

function span(value: Record<string, unknown>, where: string): { start: number; end: number } {
  const start = value.from === undefined ? OPEN_START : epochOf(day(value.from, `${where}.from`));
  const end = value.to === undefined ? OPEN_END : epochOf(day(value.to, `${where}.to`)) + DAY;
  if (end <= start) fail(`${where}: to is before from`);
  return { start, end };
}

/** Reads `customers.<id>.contract`; throws a UsageError (code STATEMENT_CONFIG) naming the key of a bad value. */
export function parseContract(value: unknown, where: string): ContractTerms {
  if (!isObject(value)) fail(`${where}: expected { discounts, commitment, credits }`);
  checkKeys(value, ["discounts", "commitment", "credits"], where);
  const list = (v: unknown, key: string): unknown[] => {
    if (v === undefined) return [];
    if (!Array.isArray(v)) fail(`${where}.${key}: expected a list`);
    return v;
  };
  const discounts = list(value.discounts, "discounts").map((d, i): ContractDiscount => {
    const at = `${where}.discounts[${i}]`;
    if (!isObject(d)) fail(`${at}: expected { percent, units: [CU, SU], from?, to? }`);
    checkKeys(d, ["percent", "units", "from", "to"], at);
    const percent = amount(d.percent, `${at}.percent`, { positive: true });
    if (Exact.parse(percent)!.compare(Exact.of(100n)) > 0) fail(`${at}.percent: at most 100, got ${percent}`);
    if (
      !Array.isArray(d.units) ||
      d.units.length === 0 ||
      !d.units.every((u) => typeof u === "string" && u.trim() !== "")
    )
      fail(`${at}.units: a list of units such as [CU, SU]`);
    return { percent, units: (d.units as string[]).map((u) => u.trim()), ...span(d, at) };
  });
  let commitment: ContractCommitment | undefined;
  if (value.commitment !== undefined) {
    const at = `${where}.commitment`;
    if (!isObject(value.commitment)) fail(`${at}: expected { monthly: AMOUNT, from?, to? }`);
    checkKeys(value.commitment, ["monthly", "from", "to"], at);
    commitment = {
      monthly: amount(value.commitment.monthly, `${at}.monthly`, { positive: true }),
      ...span(value.commitment, at),
    };
  }
  const ids = new Set<string>();
  const credits = list(value.credits, "credits").map((c, i): ContractCredit => {
    const at = `${where}.credits[${i}]`;
    if (!isObject(c)) fail(`${at}: expected { id, amount, validFrom, validTo }`);
    checkKeys(c, ["id", "amount", "validFrom", "validTo"], at);
    if ((typeof c.id !== "string" && typeof c.id !== "number") || String(c.id).trim() === "")
      fail(`${at}.id: the credit's id (e.g. the advance payment invoice's number)`);
    const id = wellFormed(String(c.id).trim());
    if (ids.has(id)) fail(`${at}.id: ${id} is given twice`);
    ids.add(id);
    const validFrom = day(c.validFrom, `${at}.validFrom`);
    const validTo = day(c.validTo, `${at}.validTo`);
    if (validTo < validFrom) fail(`${at}: validTo is before validFrom`);
    return { id, amount: amount(c.amount, `${at}.amount`, { positive: true }), validFrom, validTo };
  });
  return { discounts, ...(commitment ? { commitment } : {}), credits };
}

/** "10", "12.5": a percent as a customer reads it. */
const percentWords = (percent: string) => Exact.parse(percent)!.toDecimalString() ?? percent;

/**
 * `Contract discount 10 % on CU`, and on an invoice of several accounts whose account's CU
 * (`… on CU of account 7102`): the customer reads which section a discount was taken of.
 */
const discountWords = (percent: string, line: DocumentLine) =>
  `Contract discount ${percentWords(percent)} % on ${line.unit}` +
  (line.accountId === undefined ? "" : ` of account ${line.accountId}`);

/**
 * The contract's discounts on a document's lines (EN 16931 BG-20, document level allowances): for
 * each line of a discounted unit, the share of its net in force under the discount (by hours of
 * the line's price period), and the discount of that share, each rounded half-even at the
 * currency's decimals. In the order of the lines, then of the discounts.
 */
export function contractAllowances(
  terms: ContractTerms,
  lines: readonly DocumentLine[],
  decimals: number,
): DocumentAllowance[] {
  const out: DocumentAllowance[] = [];
  for (const line of lines) {
    for (const d of terms.discounts) {
      if (!d.units.includes(line.unit)) continue;
      const start = Math.max(line.start, d.start);
      const end = Math.min(line.end, d.end);
      if (end <= start) continue;
      const share = Exact.of(BigInt(end - start), BigInt(line.end - line.start));
      const base = line.net.mul(share).fixed(decimals);
      if (base.isZero()) continue;
      out.push({
        unit: line.unit,
        start,
        end,
        reason: discountWords(d.percent, line),
        percent: d.percent,
        base,
        amount: base.mul(Exact.parse(d.percent)!).div(Exact.of(100n)).fixed(decimals),
        taxCategory: line.taxCategory,
        taxRatePercent: line.taxRatePercent,
      });
    }
  }
  return out;
}

/**
 * The commitment's shortfall of a document's period: the monthly amount times the share of the
 * period's hours the commitment runs (a partial month of the contract commits its share), rounded
 * half-even at the currency's decimals, less the net after discounts; undefined when nothing is
 * short (or the commitment does not run in the period).
 */
export function commitmentShortfall(
  terms: ContractTerms,
  period: { start: number; end: number },
  netAfterDiscounts: Exact,
  decimals: number,
  tax: { category: DocumentLine["taxCategory"]; ratePercent: string },
): DocumentCommitment | undefined {
  const c = terms.commitment;
  if (c === undefined) return undefined;
  const start = Math.max(period.start, c.start);
  const end = Math.min(period.end, c.end);
  if (end <= start) return undefined;
  const committed = Exact.parse(
    Exact.parse(c.monthly)!
      .mul(Exact.of(BigInt(end - start), BigInt(period.end - period.start)))
      .toFixed(decimals),
  )!;
  const short = committed.sub(netAfterDiscounts);
  if (short.compare(Exact.ZERO) <= 0) return undefined;
  return {
    description: "Minimum commitment: shortfall",
    start,
    end,
    committed: committed.fixed(decimals),
    amount: short.fixed(decimals),
    taxCategory: tax.category,
    taxRatePercent: tax.ratePercent,
  };
}

/** The last day of a half-open period, `YYYY-MM-DD`: the day credits must be valid on to be consumed. */
export function lastDayOf(period: { end: number }): string {
  return new Date((period.end - 1) * 1000).toISOString().slice(0, 10);
}
