import type { BillingReport } from "../../billing/billingReport.js";
import { Exact } from "../../billing/exact.js";
import { shownQuantity } from "../../billing/invoiceQuantity.js";
import type { BillingLine } from "../../billing/lines.js";
import { dueDateOf, taxOf, type StatementConfig, type StatementParty } from "../../billing/statementConfig.js";
import type { Units } from "../../billing/units.js";
import type { UnitName } from "../../billing/unitNames.js";
import { catalogUnits, unitDef } from "../../billing/unitCatalog.js";
import { isoUtc } from "../../base/time.js";
import { accountReport } from "../writeBillingXlsx.js";

/** One invoice line as printed: every figure as text, so that quantity × unit price gives the amount. */
export interface StatementLine {
  unit: UnitName;
  description: string;
  /** The quantity in the unit of the price, with as many decimals as make quantity × unit price round to the amount. */
  quantity: string;
  quantityUnit: string;
  unitPrice: string;
  priceUnit: string;
  amount: string;
  /** The part of the period this line's price is in force, as `periodText` says it: only when a price changes within the period. */
  pricePeriod?: string;
}

/** A cloud space, machine or gateway of the allocation, with its own and allocated CU and allocated cost. */
export interface AllocationRow {
  level: "cloudspace" | "machine" | "gateway";
  id: string;
  name: string;
  /** Own CU (the platform's figure, from the entity's own totals) in the unit of `cuAllocated`, as text; "" for a gateway. */
  cuOwn: string;
  /** Allocated CU in CU-hours (or CU-months under per month), as text. */
  cuAllocated: string;
  /** Its share of the account's charges, rounded, as text. */
  allocatedCost: string;
}

/** Everything one account's statement prints, in the order it prints it. */
export interface StatementContent {
  /** The registered number, or undefined for a draft (made without a warehouse to number it). */
  number?: string;
  issueDate: string;
  dueDate: string;
  /** `2026-10-01 to 2026-10-31 (UTC)`, on every page. */
  period: string;
  issuer: StatementConfig["issuer"];
  customer: StatementParty;
  accountId: number;
  currency: string;
  lines: StatementLine[];
  /** Σ of the rounded line amounts: the billing report's amount due of the account. */
  totalExcludingTax: string;
  taxes: { label: string; amount: string }[];
  /** Total excluding tax + taxes: what the customer pays. */
  amountDue: string;
  /** Data notices of this account alone (missing hours, no data). */
  notices: string[];
  /** The definition of the units in use: the CU rule, the 720-hour month, TiB. */
  unitsParagraph: string;
  /** How amounts are rounded. */
  roundingNote: string;
  allocation: AllocationRow[];
  /** How the allocation is made, and that it adds up. */
  allocationNote: string;
  /** The header of the own CU column, in the unit CU is priced in: `own CU (CU-hours)` or `(CU-months)`. */
  cuOwnHeader: string;
  /** The header of the allocated CU column, in the unit CU is priced in: `allocated CU (CU-hours)` or `(CU-months)`. */
  cuAllocatedHeader: string;
  /** The account's CU in that unit: what the cloud spaces' allocated CU add up to. */
  cuAllocatedTotal: string;
  /** Σ of the allocated costs of the cloud spaces (equal to the total excluding tax). */
  allocatedTotal: string;
}

/** Groups the integer digits of a plain decimal text by thousands: `1234567.5` → `1,234,567.5`. */
export function groupThousands(text: string): string {
  const [whole, fraction] = text.split(".");
  const grouped = whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return fraction === undefined ? grouped : `${grouped}.${fraction}`;
}

export { shownQuantity };

/** The period as a reader says it: whole UTC days as `from to last day`, else both instants with the end excluded. */
export function periodText(start: number, end: number): string {
  const day = 86_400;
  if (start % day === 0 && end % day === 0) {
    const first = isoUtc(start).slice(0, 10);
    const last = isoUtc(end - day).slice(0, 10);
    return first === last ? `${first} (UTC)` : `${first} to ${last} (UTC)`;
  }
  return `${isoUtc(start)} to ${isoUtc(end)} (UTC, end excluded)`;
}

/**
 * A price period in UTC, short enough for a column: whole days as `2026-10-01 to 2026-10-14`
 * (the last day included), else `2026-10-01 00:00 to 02:00` (the end's date when it differs).
 */
export function pricePeriodText(start: number, end: number): string {
  const day = 86_400;
  if (start % day === 0 && end % day === 0) return periodText(start, end).replace(" (UTC)", "");
  const [startDate, startTime] = [isoUtc(start).slice(0, 10), isoUtc(start).slice(11, 16)];
  const [endDate, endTime] = [isoUtc(end).slice(0, 10), isoUtc(end).slice(11, 16)];
  return `${startDate} ${startTime} to ${endDate === startDate ? "" : `${endDate} `}${endTime}`;
}

/** The definition of the units on the statement: the CU rule, the month, the volume unit, each unit in use. */
export function unitsParagraph(units: Units, used: readonly UnitName[], cuRollup: "aggregate" | "sum", per: "hour" | "month"): string {
  const parts: string[] = [];
  parts.push(`Units are measured once per hour: a unit-hour is one unit held for one hour, and a unit-month is ${units.hoursPerMonth} unit-hours (the 30-day month of the platform's billing rules)${per === "month" ? "; quantities per month are unit-hours / " + units.hoursPerMonth : ""}.`);
  for (const unit of catalogUnits()) if (used.includes(unit)) parts.push(unitDef(unit).definition(units, cuRollup));
  return parts.join(" ");
}

/** The data notices of one account's statement: its missing hours only (nothing of another account). */
function noticesOf(report: BillingReport, accountId: number): string[] {
  const out: string[] = [];
  const account = report.lines.find((l) => l.level === "account" && l.accountId === accountId);
  if (!account || account.sampleHours === 0) out.push("No consumption data was found for this account in the period: every quantity is 0.");
  const missing = report.quality.missingHours.find((m) => m.accountId === accountId);
  if (missing) {
    const runs = missing.runs.map((r) => (r.hours === 1 ? isoUtc(r.startHour) : `${isoUtc(r.startHour)} to ${isoUtc(r.endHour)}`));
    const shown = runs.length > 6 ? [...runs.slice(0, 6), `and ${runs.length - 6} more`] : runs;
    out.push(`Missing data: ${missing.hours} hour${missing.hours === 1 ? "" : "s"} of the period had no consumption data: nothing is charged for ${missing.hours === 1 ? "it" : "them"} on this statement (${shown.join(", ")}).`);
  }
  return out;
}

/** Allocated CU as the statement shows it: in the unit CU is priced in (CU-months for a monthly price, else CU-hours). */
interface CuShown {
  /** `CU-hours` or `CU-months`. */
  unit: string;
  of(cuHours: number): string;
}

function cuShownOf(basis: string | undefined, hoursPerMonth: number): CuShown {
  return basis === "month"
    ? { unit: "CU-months", of: (h) => groupThousands(Exact.fromNumber(h / hoursPerMonth).toFixed(4)) }
    : { unit: "CU-hours", of: (h) => groupThousands(Exact.fromNumber(h).toFixed(2)) };
}

function allocationRow(line: BillingLine, cost: Exact | undefined, decimals: number, cu: CuShown): AllocationRow {
  const id = line.level === "cloudspace" ? line.cloudspaceId! : line.level === "machine" ? line.machineId! : undefined;
  return {
    level: line.level as AllocationRow["level"],
    id: id === undefined ? "" : String(id),
    name: line.level === "gateway" ? "gateway (network, public IP)" : line.name || (line.level === "cloudspace" ? "(unnamed cloud space)" : "(unnamed machine)"),
    cuOwn: line.level === "gateway" ? "" : cu.of(line.unitHours.CU),
    cuAllocated: cu.of(line.cuAllocatedHours),
    allocatedCost: groupThousands((cost ?? Exact.ZERO).toFixed(decimals)),
  };
}

/** What a statement needs beyond the report: the config, its number (none: a draft) and issue date. */
export interface StatementIssue {
  config: StatementConfig;
  number?: string;
  issueDate: string;
}

/**
 * The content of one account's statement from a billing report with prices: the account's
 * invoice lines, taxes and amount due, its notices and its allocation by cloud space and
 * machine. It reads only the account's part of the report (`accountReport`): nothing of any
 * other account. Throws a RangeError when the report has no invoice for the account.
 */
export function statementContent(report: BillingReport, accountId: number, issue: StatementIssue): StatementContent {
  const own = accountReport(report, accountId);
  const invoice = own.invoices?.[0];
  if (!invoice) throw new RangeError(`no invoice for account ${accountId} in the report (a statement needs a price list)`);
  const { config } = issue;
  const decimals = invoice.decimals;
  const priceChanges = invoice.lines.some((l) => l.start !== own.params.start || l.end !== own.params.end);
  const lines = invoice.lines.map((l): StatementLine => {
    return {
      unit: l.unit,
      description: unitDef(l.unit).label(own.options.units),
      quantity: groupThousands(shownQuantity(l, decimals)),
      quantityUnit: l.quantityUnit,
      unitPrice: l.unitPrice,
      priceUnit: l.priceUnit,
      amount: groupThousands(l.amount.toFixed(decimals)),
      ...(priceChanges ? { pricePeriod: pricePeriodText(l.start, l.end) } : {}),
    };
  });
  const net = invoice.amountDue;
  const tax = taxOf(config, accountId);
  const taxes = tax === undefined ? [] : [{ label: `VAT ${tax.ratePercent}% (${tax.ratePercent}% of ${groupThousands(net.toFixed(decimals))})`, amount: net.mul(tax.rate).round(decimals) }];
  const due = taxes.reduce((a, t) => a.add(t.amount), net);
  const name = own.lines.find((l) => l.level === "account")?.name ?? invoice.name;
  const customer = config.customers.get(accountId) ?? { legalName: name || `Account ${accountId}`, address: [] };
  const allocation: AllocationRow[] = [];
  const cu = cuShownOf(invoice.lines.find((l) => l.unit === "CU")?.basis, own.options.units.hoursPerMonth);
  let allocatedTotal = Exact.ZERO;
  own.lines.forEach((line, i) => {
    if (line.level !== "cloudspace" && line.level !== "machine" && line.level !== "gateway") return;
    const cost = own.money?.[i]?.amount;
    if (line.level === "cloudspace") allocatedTotal = allocatedTotal.add(cost ?? Exact.ZERO);
    allocation.push(allocationRow(line, cost, decimals, cu));
  });
  return {
    number: issue.number,
    issueDate: issue.issueDate,
    dueDate: dueDateOf(issue.issueDate, config.paymentTermsDays),
    period: periodText(own.params.start, own.params.end),
    issuer: config.issuer,
    customer,
    accountId,
    currency: invoice.currency,
    lines,
    totalExcludingTax: groupThousands(net.toFixed(decimals)),
    taxes: taxes.map((t) => ({ label: t.label, amount: groupThousands(t.amount.toFixed(decimals)) })),
    amountDue: groupThousands(due.toFixed(decimals)),
    notices: noticesOf(own, accountId),
    unitsParagraph: unitsParagraph(own.options.units, invoice.lines.map((l) => l.unit), own.options.cuRollup, own.options.per),
    roundingNote: `Amounts in ${invoice.currency}. Each line is quantity × unit price, rounded half-even to ${decimals} decimal${decimals === 1 ? "" : "s"}; the total is the sum of the rounded lines${taxes.length > 0 ? "; each tax is its rate × the total excluding tax, rounded the same way" : ""}.`,
    allocation,
    allocationNote: "For information, not an amount to pay: each line's amount is split over the cloud spaces, then over their machines and gateway, "
      + "in proportion to their allocated CU (for CU) or their own quantities (other units), by the largest-remainder method (ties to the lower id, a gateway counting as id 0). "
      + `The allocated costs add up to the total excluding tax exactly. Own CU is a cloud space's or machine's CU from its own totals `
      + `(the platform's figure, for information)${own.options.cuRollup === "aggregate" ? ", so the parts' own CU may add up to more than the account's" : ""}; `
      + `allocated CU splits the account's CU hour by hour and adds up to it.`,
    cuOwnHeader: `own CU (${cu.unit})`,
    cuAllocatedHeader: `allocated CU (${cu.unit})`,
    cuAllocatedTotal: cu.of(own.lines.find((l) => l.level === "account")?.cuAllocatedHours ?? 0),
    allocatedTotal: groupThousands(allocatedTotal.toFixed(decimals)),
  };
}
