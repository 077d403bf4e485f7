import type ExcelJS from "exceljs";
import type { BillingReport } from "../../billing/billingReport.js";
import { Exact } from "../../billing/exact.js";
import type { BillingLine } from "../../billing/lines.js";
import { pricingQuantityOf, pricingUnitOf, unitAmountOf } from "../../billing/money.js";
import { showbackWeight } from "../../billing/showback.js";
import { countsGatewayIp, isVolume } from "../../billing/unitCatalog.js";
import { unitPriceText } from "../billingColumns.js";
import { moneyFormat, PRICE } from "./style.js";
import type { AllocationLayout, RowKind } from "./allocationLayout.js";

/** Quantities to 2 decimals, billed quantities to 4, aligned; cells keep the exact values. */
export const QUANTITY_2 = "#,##0.00";
export const QUANTITY_4 = "#,##0.0000";

/** What a sheet's entity rows add up to, per row kind key, and which rows they are. */
export interface RowSums {
  first: number;
  last: number;
  quantities: Map<string, number>;
  billed: Map<string, number>;
  money: Map<string, Exact>;
}

/** The ids, name and hours of an entity's row. */
function writeEntity(row: ExcelJS.Row, layout: AllocationLayout, line: BillingLine): void {
  let c = 1;
  row.getCell(c++).value = String(line.accountId);
  if (layout.level !== "account") row.getCell(c++).value = String(line.cloudspaceId);
  if (layout.level === "machine")
    row.getCell(c++).value = line.level === "gateway" ? "gateway" : String(line.machineId);
  row.getCell(c++).value = line.level === "gateway" ? "gateway (id 0)" : line.name;
  row.getCell(c).value = line.sampleHours;
  row.getCell(c).numFmt = "#,##0";
}

/** The money columns of a priced unit's row: billed quantity, price per, unit price, amount (or allocated cost). */
function writeMoney(
  row: ExcelJS.Row,
  report: BillingReport,
  layout: AllocationLayout,
  line: BillingLine,
  index: number,
  kind: RowKind,
  sums: RowSums,
): void {
  const priceBasis = layout.basis.get(kind.unit);
  const list = report.prices;
  if (!list || !priceBasis || kind.own) return;
  const { col } = layout;
  const billed = pricingQuantityOf(showbackWeight(line, kind.unit), priceBasis, report.options.units);
  row.getCell(col.billed).value = billed;
  row.getCell(col.billed).numFmt = QUANTITY_4;
  sums.billed.set(kind.key, (sums.billed.get(kind.key) ?? 0) + billed);
  row.getCell(col.pricePer).value = pricingUnitOf(kind.unit, priceBasis, report.options.units);
  const price = unitPriceText(list, line, kind.unit, report.params);
  row.getCell(col.price).value = price !== null && /^\d+(\.\d+)?$/.test(price) ? Number(price) : price;
  row.getCell(col.price).numFmt = PRICE;
  const amount = (unitAmountOf(report.money?.[index], kind.unit) ?? Exact.ZERO).round(layout.decimals);
  row.getCell(col.money).value = amount.toNumber();
  row.getCell(col.money).numFmt = moneyFormat(layout.decimals);
  sums.money.set(kind.key, (sums.money.get(kind.key) ?? Exact.ZERO).add(amount));
}

/** Writes a row per entity and unit from row 2 (a gateway has only its traffic and public IP); returns what they add up to. */
export function writeEntityRows(sheet: ExcelJS.Worksheet, report: BillingReport, layout: AllocationLayout): RowSums {
  const sums: RowSums = { first: 2, last: 1, quantities: new Map(), billed: new Map(), money: new Map() };
  const { col } = layout;
  let r = 2;
  for (const [line, index] of layout.entities) {
    for (const kind of layout.kinds) {
      if (line.level === "gateway" && !isVolume(kind.unit) && !countsGatewayIp(kind.unit)) continue;
      const row = sheet.getRow(r++);
      writeEntity(row, layout, line);
      row.getCell(col.unit).value = layout.label(kind);
      for (const c of [col.unit, col.quantityUnit, col.pricePer]) if (c > 0) row.getCell(c).alignment = { indent: 1 }; // no price per without prices
      const quantity = layout.quantityOf(line, kind);
      row.getCell(col.quantity).value = quantity;
      row.getCell(col.quantity).numFmt = QUANTITY_2;
      row.getCell(col.quantityUnit).value = layout.quantityUnit(kind.unit);
      sums.quantities.set(kind.key, (sums.quantities.get(kind.key) ?? 0) + quantity);
      writeMoney(row, report, layout, line, index, kind, sums);
      row.commit();
    }
  }
  sums.last = r - 1;
  return sums;
}
