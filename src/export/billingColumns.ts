import type { Exact } from "../billing/exact.js";
import type { BillingLine } from "../billing/lines.js";
import { nuUnit, pricingQuantityOf, pricingUnitOf, unitAmountOf, type LineMoney } from "../billing/money.js";
import { showbackWeight } from "../billing/showback.js";
import { currencyOf, priceAt, pricedUnits, pricePeriods, type PriceBasis, type PriceList } from "../billing/prices.js";
import type { BillingReport } from "../billing/billingReport.js";
import { BASE_UNITS, type UnitName } from "../billing/unitNames.js";
import { catalogUnits, countsGatewayIp, isVolume, unitDef } from "../billing/unitCatalog.js";
import { isoUtc } from "../base/time.js";
import { halfOpenUtc } from "./periodText.js";

/** What a column holds, which decides how each format writes it. */
export type ColumnKind = "text" | "id" | "time" | "count" | "quantity" | "price" | "money";

/** A cell: text, a number, an exact amount (money, rounded when written), or empty. */
export type Cell = string | number | Exact | null;

/** One column of the billing tables (CSV and the XLSX level sheets). */
export interface BillingColumn {
  key: string;
  /** The header, with its unit, e.g. `SU (SU-hours)` or `amount due (EUR)`. */
  header: string;
  kind: ColumnKind;
  value(line: BillingLine, money: LineMoney | undefined): Cell;
}

/** The units a report shows: CU, SU, TU, NU (every unit of the catalog with `allUnits`), plus any unit with a price. */
export function shownUnits(report: BillingReport): UnitName[] {
  const priced = new Set(report.prices ? pricedUnits(report.prices).map((p) => p.unit) : []);
  const base: readonly UnitName[] = BASE_UNITS;
  return catalogUnits().filter((u) => report.options.allUnits || base.includes(u) || priced.has(u));
}

/** The header of a unit's quantity column: `SU (SU-hours)`, `CU own (CU-months, aggregate rule)`, `NU (TiB transferred)`. */
export function quantityHeader(report: BillingReport, unit: UnitName): string {
  const per = report.options.per === "month" ? "months" : "hours";
  if (isVolume(unit)) return `${unit} (${nuUnit(report.options.units)} transferred)`;
  if (unitDef(unit).rule.kind === "cu") return `CU own (CU-${per}; ${report.options.cuRollup} rule)`;
  return `${unit} (${unit}-${per})`;
}

/**
 * Whether a report shows a line: every line but a gateway whose shown units and amounts are
 * all 0 (a gateway line carries only NU and PIU, which are not always shown).
 */
export function isShown(report: BillingReport, line: BillingLine, money: LineMoney | undefined): boolean {
  if (line.level !== "gateway") return true;
  const units = shownUnits(report);
  return (
    units.some((u) => (isVolume(u) && line.ownNicNu > 0) || (countsGatewayIp(u) && line.gatewayPiuHours > 0)) ||
    (money !== undefined && !money.amount.isZero())
  );
}

/** A line's quantity of a unit as reports show it: machines and gateways show the NU of their own NICs. */
export function shownQuantity(line: BillingLine, unit: UnitName): number | null {
  if (isVolume(unit) && (line.level === "machine" || line.level === "gateway")) return line.ownNicNu;
  return line.quantities[unit];
}

/**
 * The columns of a billing table, in order: level, ids, name, period (or hour), sample
 * hours, CU rollup rule, the units (unit-hours or unit-months; NU in TiB), CU own and CU
 * allocated side by side, and with a price list per priced unit the quantity in the unit of
 * the price (when it is not the unit shown), the unit price and the amount, then the amount due.
 */
export function billingColumns(report: BillingReport, hourly: boolean): BillingColumn[] {
  return [
    ...entityColumns(report, hourly),
    { key: "cu_rollup", header: "cu_rollup", kind: "text", value: () => report.options.cuRollup },
    ...quantityColumns(report),
    ...(report.prices ? moneyColumns(report, report.prices) : []),
  ];
}

/** Which entity a row is, and of when: the hour (`hourly`), else the period and the hours sampled. */
function entityColumns(report: BillingReport, hourly: boolean): BillingColumn[] {
  const { start, end } = report.params;
  return [
    { key: "level", header: "level", kind: "text", value: (l) => l.level },
    { key: "account_id", header: "account_id", kind: "id", value: (l) => l.accountId },
    { key: "cloudspace_id", header: "cloudspace_id", kind: "id", value: (l) => l.cloudspaceId },
    { key: "machine_id", header: "machine_id", kind: "id", value: (l) => l.machineId },
    { key: "name", header: "name", kind: "text", value: (l) => l.name },
    ...(hourly
      ? [
          {
            key: "hour",
            header: "hour (UTC)",
            kind: "time",
            value: (l) => isoUtc(l.hourEpoch!),
          } satisfies BillingColumn,
        ]
      : ([
          { key: "period_start", header: "period_start (UTC)", kind: "time", value: () => isoUtc(start) },
          { key: "period_end", header: "period_end (UTC exclusive)", kind: "time", value: () => isoUtc(end) },
          { key: "sample_hours", header: "sample_hours", kind: "count", value: (l) => l.sampleHours },
        ] satisfies BillingColumn[])),
  ];
}

/** A quantity column per unit shown, the CU's followed by its allocated CU (showback). */
function quantityColumns(report: BillingReport): BillingColumn[] {
  const per = report.options.per === "month" ? "months" : "hours";
  return shownUnits(report).flatMap((unit): BillingColumn[] => [
    { key: unit, header: quantityHeader(report, unit), kind: "quantity", value: (l) => shownQuantity(l, unit) },
    ...(unit === "CU"
      ? [
          // the environment's, period or hour, is the Σ of its accounts' (see `showback`)
          {
            key: "cu_allocated",
            header: `CU allocated (CU-${per}; showback)`,
            kind: "quantity",
            value: (l: BillingLine) => (l.level === "gateway" ? 0 : l.cuAllocated),
          } satisfies BillingColumn,
        ]
      : []),
  ]);
}

/**
 * With a price list: the currency (when the accounts bill in several), per priced unit its billed
 * quantity (when priced on another basis), unit price, amount and allocated cost, then the amount
 * due and the allocated cost.
 */
function moneyColumns(report: BillingReport, list: PriceList): BillingColumn[] {
  // accounts billed in several currencies: a currency column, and each row's money in its own
  const several = (report.amountsDue?.length ?? 0) > 1;
  const currency = several ? "the row's currency" : list.currency;
  const columns: BillingColumn[] = [];
  if (several)
    columns.push({
      key: "currency",
      header: "currency",
      kind: "text",
      value: (l) => (l.accountId === null ? null : currencyOf(list, l.accountId).currency),
    });
  for (const { unit, per: basis } of pricedUnits(list))
    columns.push(...unitMoneyColumns(report, list, unit, basis, currency));
  columns.push(
    {
      key: "amount_due",
      header: `amount due (${currency})`,
      kind: "money",
      value: (l, m) => (isBilled(l) ? (m?.amount ?? null) : null),
    },
    {
      key: "allocated_cost",
      header: `allocated cost (${currency}; ${ALLOCATION_NOTE})`,
      kind: "money",
      value: (l, m) => (isBilled(l) ? null : (m?.amount ?? null)),
    },
  );
  return columns;
}

/**
 * One priced unit's columns: its billed quantity (priced on another basis than the report's), unit price, amount,
 * allocated cost.
 */
function unitMoneyColumns(
  report: BillingReport,
  list: PriceList,
  unit: UnitName,
  basis: PriceBasis,
  currency: string,
): BillingColumn[] {
  const units = report.options.units;
  const priceUnit = pricingUnitOf(unit, basis, units);
  const columns: BillingColumn[] = [];
  if (basis !== "TB" && basis !== report.options.per) {
    columns.push({
      key: `${unit}_billed_quantity`,
      header: `${unit} billed (${priceUnit}s${unit === "CU" ? "; allocated" : ""})`,
      kind: "quantity",
      value: (l, m) =>
        m && l.level !== "environment" ? pricingQuantityOf(showbackWeight(l, unit), basis, units) : null,
    });
  }
  columns.push(
    {
      key: `${unit}_unit_price`,
      header: `${unit} unit price (${currency} per ${priceUnit})`,
      kind: "price",
      value: (l, m) => (m && l.level !== "environment" ? unitPriceText(list, l, unit, report.params) : null),
    },
    // an account's (and the environment's) amount of the unit; below the account its share is allocated cost
    {
      key: `${unit}_amount`,
      header: `${unit} amount (${currency})`,
      kind: "money",
      value: (l, m) => (isBilled(l) ? (unitAmountOf(m, unit) ?? null) : null),
    },
    {
      key: `${unit}_allocated_cost`,
      header: `${unit} allocated cost (${currency})`,
      kind: "money",
      value: (l, m) => (isBilled(l) ? null : (unitAmountOf(m, unit) ?? null)),
    },
  );
  return columns;
}

/**
 * The unit price of a line's unit as written: the price in force in its hour (an hourly line)
 * or over the period; when it changes in the period, each with its half-open period in UTC, one
 * format whatever the hours (`0.0125 [2026-10-01T00:00:00Z, 2026-10-15T00:00:00Z); 0.014 [2026-10-15T00:00:00Z, 2026-11-01T00:00:00Z)`).
 */
export function unitPriceText(
  list: PriceList,
  line: BillingLine,
  unit: UnitName,
  period: { start: number; end: number },
): string | null {
  if (line.hourEpoch !== null) return priceAt(list, line.accountId, unit, line.hourEpoch)?.text ?? null;
  const periods = pricePeriods(list, line.accountId, unit, period.start, period.end);
  if (periods.length <= 1) return periods[0]?.price.text ?? null;
  return periods.map((p) => `${p.price.text} ${halfOpenUtc(p)}`).join("; ");
}

/** An account's line (its invoice: an amount due) or the environment's (the total amount due); below, money is allocated cost. */
export function isBilled(line: BillingLine): boolean {
  return line.level === "account" || line.level === "environment";
}

/** How allocated cost is made, in a few words (the CSV's header, beside the longer sentence of the other outputs). */
export const ALLOCATION_NOTE = "the account's lines split by largest remainder; adds up to them exactly";

/**
 * The sentence every output with allocated cost states: how the account's invoice lines are
 * split below it, and that the split adds up to them to the cent.
 */
export const ALLOCATION_SENTENCE =
  "Allocated cost is not an amount due: each of the account's invoice line amounts is split over its cloud spaces, " +
  "then over their machines and gateways, in proportion to allocated CU (CU) or to the quantity (other units), by the largest-remainder " +
  "method (ties to the lower id; a gateway is id 0), so at every level it adds up to the account's lines exactly, " +
  "and one entity's share may be a cent off its quantity × unit price.";
