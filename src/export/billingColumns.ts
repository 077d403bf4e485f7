import type { Exact } from "../billing/exact.js";
import type { BillingLine } from "../billing/lines.js";
import type { LineMoney } from "../billing/money.js";
import { pricedUnits, pricesFor } from "../billing/prices.js";
import type { BillingReport } from "../billing/billingReport.js";
import { BASE_UNITS, UNIT_NAMES, type UnitName } from "../billing/unitNames.js";
import { isoUtc } from "../time.js";

/** What a column holds, which decides how each format writes it. */
export type ColumnKind = "text" | "id" | "time" | "count" | "quantity" | "price" | "money";

/** A cell: text, a number, an exact amount (money, rounded when written), or empty. */
export type Cell = string | number | Exact | null;

/** One column of the billing tables (CSV and the XLSX level sheets). */
export interface BillingColumn {
  key: string;
  /** The header, with its unit, e.g. `CU (CU-hours)` or `total (EUR)`. */
  header: string;
  kind: ColumnKind;
  value(line: BillingLine, money: LineMoney | undefined): Cell;
}

/** The units a report shows: CU, SU, TU, NU (all eight with `allUnits`), plus any unit with a price. */
export function shownUnits(report: BillingReport): UnitName[] {
  const priced = new Set(report.prices ? pricedUnits(report.prices).map((p) => p.unit) : []);
  const base: readonly UnitName[] = report.options.allUnits ? UNIT_NAMES : BASE_UNITS;
  return UNIT_NAMES.filter((u) => base.includes(u) || priced.has(u));
}

/**
 * The columns of a billing table, in order: level, ids, name, period (or hour), sample
 * hours, CU rollup rule, the units (unit-hours or unit-months), the CU check figure under
 * `aggregate`, and with a price list the unit price and amount of each priced unit and the
 * line's totals (rounded total and the sum of rounded amounts).
 */
export function billingColumns(report: BillingReport, hourly: boolean): BillingColumn[] {
  const per = report.options.per === "month" ? "months" : "hours";
  const { start, end } = report.params;
  const columns: BillingColumn[] = [
    { key: "level", header: "level", kind: "text", value: (l) => l.level },
    { key: "account_id", header: "account_id", kind: "id", value: (l) => l.accountId },
    { key: "cloudspace_id", header: "cloudspace_id", kind: "id", value: (l) => l.cloudspaceId },
    { key: "machine_id", header: "machine_id", kind: "id", value: (l) => l.machineId },
    { key: "name", header: "name", kind: "text", value: (l) => l.name },
  ];
  if (hourly) {
    columns.push({ key: "hour", header: "hour (UTC)", kind: "time", value: (l) => isoUtc(l.hourEpoch!) });
  } else {
    columns.push(
      { key: "period_start", header: "period_start (UTC)", kind: "time", value: () => isoUtc(start) },
      { key: "period_end", header: "period_end (UTC exclusive)", kind: "time", value: () => isoUtc(end) },
      { key: "sample_hours", header: "sample_hours", kind: "count", value: (l) => l.sampleHours },
    );
  }
  columns.push({ key: "cu_rollup", header: "cu_rollup", kind: "text", value: () => report.options.cuRollup });
  for (const unit of shownUnits(report)) {
    columns.push({ key: unit, header: `${unit} (${unit}-${per})`, kind: "quantity", value: (l) => l.quantities[unit] });
  }
  if (report.options.cuRollup === "aggregate") {
    columns.push({
      key: "cu_sum_of_machines", header: `CU sum of machines (CU-${per})`, kind: "quantity",
      value: (l) => (l.level === "machine" ? null : l.cuSumOfMachines),
    });
  }
  const list = report.prices;
  if (list) {
    const currency = list.currency;
    for (const { unit, per: basis } of pricedUnits(list)) {
      columns.push(
        {
          key: `${unit}_unit_price`, header: `${unit} unit price (${currency} per ${unit}-${basis})`, kind: "price",
          value: (l, m) => (m ? pricesFor(list, l.accountId)[unit]?.text ?? null : null),
        },
        {
          key: `${unit}_amount`, header: `${unit} amount (${currency})`, kind: "money",
          value: (_l, m) => m?.charges.find((c) => c.unit === unit)?.amount ?? null,
        },
      );
    }
    columns.push(
      { key: "total", header: `total (${currency})`, kind: "money", value: (_l, m) => m?.total ?? null },
      { key: "sum_of_rounded_amounts", header: `sum of rounded amounts (${currency})`, kind: "money", value: (_l, m) => m?.sumOfRoundedCharges ?? null },
    );
  }
  return columns;
}
