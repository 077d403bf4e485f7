import type { BillingReport } from "../../billing/billingReport.js";
import type { BillingLine } from "../../billing/lines.js";
import type { Level } from "../../billing/levels.js";
import { nuUnit } from "../../billing/money.js";
import { pricedUnits, type PriceBasis } from "../../billing/prices.js";
import type { UnitName } from "../../billing/unitNames.js";
import { isVolume } from "../../billing/unitCatalog.js";
import { isShown, shownQuantity, shownUnits } from "../billingColumns.js";

export type SheetLevel = Exclude<Level, "environment">;

/** One row kind of an entity: a unit (its allocated quantity, billed quantity and money) or `CU own` (information). */
export interface RowKind {
  key: string;
  unit: UnitName;
  own: boolean;
}

/** What an allocation sheet shows and where: its name, headers and columns, the row kinds of each entity, the entities. */
export interface AllocationLayout {
  name: string;
  level: SheetLevel;
  /** Accounts: the lines' amounts; below, allocated cost. */
  billedLevel: boolean;
  headers: string[];
  widths: number[];
  col: {
    unit: number;
    quantity: number;
    quantityUnit: number;
    billed: number;
    pricePer: number;
    price: number;
    money: number;
  };
  kinds: RowKind[];
  /** The price basis of each priced unit. */
  basis: Map<UnitName, PriceBasis>;
  decimals: number;
  /** The report's lines of the level (gateways among the machines), with their index in the report. */
  entities: (readonly [BillingLine, number])[];
  /** The label of a row kind in the unit column: `CU own`, `CU allocated` below the account, else the unit. */
  label(kind: RowKind): string;
  quantityUnit(unit: UnitName): string;
  /** A line's quantity of a row kind in the report's unit (allocated CU below the account). */
  quantityOf(line: BillingLine, kind: RowKind): number;
}

const SHEET_OF: Record<SheetLevel, string> = { account: "Accounts", cloudspace: "Cloud spaces", machine: "Machines" };
const WIDTHS: Record<string, number> = {
  name: 30,
  unit: 13,
  quantity: 14,
  "quantity unit": 13,
  "billed quantity": 14,
  "price per": 12,
  hours: 8,
};

/** The layout of a level's allocation sheet from the report: ids, name, hours, unit, quantity, and with prices the billed quantity, price and money. */
export function allocationLayout(report: BillingReport, level: SheetLevel): AllocationLayout {
  const list = report.prices;
  const billedLevel = level === "account";
  // a line's amount is not an amount due: that is the sum of an account's rounded lines
  const moneyHeader = list
    ? billedLevel
      ? `amount (${list.currency})`
      : `allocated cost (${list.currency})`
    : undefined;
  const headers = [
    "account id",
    ...(level !== "account" ? ["cloud space id"] : []),
    ...(level === "machine" ? ["machine id"] : []),
    "name",
    "hours",
    "unit",
    "quantity",
    "quantity unit",
    ...(list ? ["billed quantity", "price per", `unit price (${list.currency})`, moneyHeader!] : []),
  ];
  const at = (h: string) => headers.indexOf(h) + 1;
  const per = report.options.per === "month" ? "months" : "hours";
  const kinds = shownUnits(report).flatMap((unit): RowKind[] =>
    unit === "CU" && !billedLevel && report.options.cuRollup === "aggregate"
      ? [
          { key: "CU own", unit, own: true },
          { key: "CU", unit, own: false },
        ]
      : [{ key: unit, unit, own: false }],
  );
  return {
    name: SHEET_OF[level],
    level,
    billedLevel,
    headers,
    widths: headers.map((h) => WIDTHS[h] ?? (h.startsWith("unit price") ? 13 : h.endsWith("id") ? 12 : 16)),
    col: {
      unit: at("unit"),
      quantity: at("quantity"),
      quantityUnit: at("quantity unit"),
      billed: at("billed quantity"),
      pricePer: at("price per"),
      price: headers.length - 1,
      money: headers.length,
    },
    kinds,
    basis: new Map((list ? pricedUnits(list) : []).map((p) => [p.unit, p.per])),
    decimals: list?.decimals ?? 2,
    entities: report.lines
      .map((l, i) => [l, i] as const)
      .filter(
        ([l, i]) =>
          (l.level === level || (level === "machine" && l.level === "gateway")) &&
          isShown(report, l, report.money?.[i]),
      ),
    label: (kind) => (kind.own ? "CU own" : kind.unit === "CU" && !billedLevel ? "CU allocated" : kind.unit),
    quantityUnit: (unit) => (isVolume(unit) ? nuUnit(report.options.units) : `${unit}-${per}`),
    quantityOf: (line, kind) => {
      if (kind.unit === "CU" && !kind.own && !billedLevel) return line.level === "gateway" ? 0 : line.cuAllocated;
      return shownQuantity(line, kind.unit) ?? 0;
    },
  };
}
