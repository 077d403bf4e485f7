import type ExcelJS from "exceljs";
import type { BillingReport } from "../../billing/billingReport.js";
import { Exact } from "../../billing/exact.js";
import type { BillingLine, Level } from "../../billing/lines.js";
import { nuUnit, pricingQuantityOf, pricingUnitOf, unitAmountOf } from "../../billing/money.js";
import { pricedUnits } from "../../billing/prices.js";
import { showbackWeight } from "../../billing/showback.js";
import type { UnitName } from "../../billing/unitNames.js";
import { countsGatewayIp, isVolume } from "../../billing/unitCatalog.js";
import { ALLOCATION_SENTENCE, isShown, shownQuantity, shownUnits, unitPriceText } from "../billingColumns.js";
import { addSheet, columnLetter, font, moneyFormat, PRICE, setHeader, styleTotal, writeNote } from "./style.js";
import { cuRuleSentence } from "./summarySheet.js";

/** Quantities to 2 decimals, billed quantities to 4, aligned; cells keep the exact values. */
const QUANTITY_2 = "#,##0.00";
const QUANTITY_4 = "#,##0.0000";

/** Where a level sheet's totals are, per unit row key (`CU own`, `CU`, `SU`, …), for the check rows of the level below. */
export interface UnitTotals {
  sheet: string;
  /** Row of each unit's total. */
  rows: Map<string, number>;
  quantities: Map<string, number>;
  billed: Map<string, number>;
  money: Map<string, Exact>;
  /** Its columns of quantity, billed quantity and money: each sheet has its own (one id column more per level). */
  columns: { quantity: number; billed: number; money: number };
}

const SHEET_OF: Record<Exclude<Level, "environment">, string> = { account: "Accounts", cloudspace: "Cloud spaces", machine: "Machines" };

/** One row kind of an entity: a unit (its allocated quantity, billed quantity and money) or `CU own` (information). */
interface RowKind {
  key: string;
  unit: UnitName;
  own: boolean;
}

/**
 * An allocation sheet in long layout, to print on A4 landscape: one row per entity and unit
 * (ids, name, hours, unit, quantity in the report's unit, and with prices the quantity in the
 * unit of the price, the unit price and the money: the line's amount on Accounts, allocated cost
 * below), then per unit its total and, below Accounts, the level above's total and the
 * difference (0 for all but own CU under `aggregate`), then the rules in words. Returns where
 * its totals are.
 */
export function writeAllocationSheet(
  workbook: ExcelJS.stream.xlsx.WorkbookWriter, report: BillingReport, level: Exclude<Level, "environment">, parent: UnitTotals | undefined,
): UnitTotals {
  const name = SHEET_OF[level];
  const sheet = addSheet(workbook, name, 1);
  const list = report.prices;
  const decimals = list?.decimals ?? 2;
  const units = report.options.units;
  const per = report.options.per === "month" ? "months" : "hours";
  const basis = new Map((list ? pricedUnits(list) : []).map((p) => [p.unit, p.per]));
  const billedLevel = level === "account";
  // a line's amount is not an amount due: that is the sum of an account's rounded lines (its Total amount due row)
  const moneyHeader = list ? (billedLevel ? `amount (${list.currency})` : `allocated cost (${list.currency})`) : undefined;
  const headers = [
    "account id", ...(level !== "account" ? ["cloud space id"] : []), ...(level === "machine" ? ["machine id"] : []), "name", "hours",
    "unit", "quantity", "quantity unit", ...(list ? ["billed quantity", "price per", `unit price (${list.currency})`, moneyHeader!] : []),
  ];
  const widths: Record<string, number> = { name: 30, unit: 13, quantity: 14, "quantity unit": 13, "billed quantity": 14, "price per": 12, hours: 8 };
  sheet.columns = headers.map((h) => ({ width: widths[h] ?? (h.startsWith("unit price") ? 13 : h.endsWith("id") ? 12 : 16) }));
  setHeader(sheet, headers, 1);
  const at = (h: string) => headers.indexOf(h) + 1;
  const col = { unit: at("unit"), quantity: at("quantity"), quantityUnit: at("quantity unit"), billed: at("billed quantity"), pricePer: at("price per"), price: headers.length - 1, money: headers.length };
  const kinds: RowKind[] = shownUnits(report).flatMap((unit): RowKind[] => (unit === "CU" && !billedLevel && report.options.cuRollup === "aggregate"
    ? [{ key: "CU own", unit, own: true }, { key: "CU", unit, own: false }] : [{ key: unit, unit, own: false }]));
  const quantityUnit = (unit: UnitName) => (isVolume(unit) ? nuUnit(units) : `${unit}-${per}`);
  const quantityOf = (line: BillingLine, kind: RowKind): number => {
    if (kind.unit === "CU" && !kind.own && !billedLevel) return line.level === "gateway" ? 0 : line.cuAllocated;
    return shownQuantity(line, kind.unit) ?? 0;
  };
  const entities = report.lines.map((l, i) => [l, i] as const)
    .filter(([l, i]) => (l.level === level || (level === "machine" && l.level === "gateway")) && isShown(report, l, report.money?.[i]));
  const quantities = new Map<string, number>();
  const billed = new Map<string, number>();
  const money = new Map<string, Exact>();
  let r = 2;
  for (const [line, i] of entities) {
    for (const kind of kinds) {
      if (line.level === "gateway" && !isVolume(kind.unit) && !countsGatewayIp(kind.unit)) continue; // a gateway has only its traffic and public IP
      const row = sheet.getRow(r++);
      let c = 1;
      row.getCell(c++).value = String(line.accountId);
      if (level !== "account") row.getCell(c++).value = String(line.cloudspaceId);
      if (level === "machine") row.getCell(c++).value = line.level === "gateway" ? "gateway" : String(line.machineId);
      row.getCell(c++).value = line.level === "gateway" ? "gateway (id 0)" : line.name;
      row.getCell(c).value = line.sampleHours;
      row.getCell(c).numFmt = "#,##0";
      row.getCell(col.unit).value = kind.own ? "CU own" : kind.unit === "CU" && !billedLevel ? "CU allocated" : kind.unit;
      for (const c of [col.unit, col.quantityUnit, col.pricePer]) if (c > 0) row.getCell(c).alignment = { indent: 1 }; // no price per without prices
      const quantity = quantityOf(line, kind);
      row.getCell(col.quantity).value = quantity;
      row.getCell(col.quantity).numFmt = QUANTITY_2;
      row.getCell(col.quantityUnit).value = quantityUnit(kind.unit);
      quantities.set(kind.key, (quantities.get(kind.key) ?? 0) + quantity);
      const priceBasis = basis.get(kind.unit);
      if (list && priceBasis && !kind.own) {
        const b = pricingQuantityOf(showbackWeight(line, kind.unit), priceBasis, units);
        row.getCell(col.billed).value = b;
        row.getCell(col.billed).numFmt = QUANTITY_4;
        billed.set(kind.key, (billed.get(kind.key) ?? 0) + b);
        row.getCell(col.pricePer).value = pricingUnitOf(kind.unit, priceBasis, units);
        const price = unitPriceText(list, line, kind.unit, report.params);
        row.getCell(col.price).value = price !== null && /^\d+(\.\d+)?$/.test(price) ? Number(price) : price;
        row.getCell(col.price).numFmt = PRICE;
        const amount = (unitAmountOf(report.money?.[i], kind.unit) ?? Exact.ZERO).round(decimals);
        row.getCell(col.money).value = amount.toNumber();
        row.getCell(col.money).numFmt = moneyFormat(decimals);
        money.set(kind.key, (money.get(kind.key) ?? Exact.ZERO).add(amount));
      }
      row.commit();
    }
  }
  const first = 2;
  const last = r - 1;
  r++;
  const U = columnLetter(col.unit);
  const sumIf = (column: number, key: string) => `SUMIF($${U}$${first}:$${U}$${last},"${key === "CU" && !billedLevel ? "CU allocated" : key}",${columnLetter(column)}${first}:${columnLetter(column)}${last})`;
  const rows = new Map<string, number>();
  const gateways = entities.filter(([l]) => l.level === "gateway").length;
  const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  const what = level === "machine"
    ? `${count(entities.length - gateways, "machine", "machines")}${gateways > 0 ? `, ${count(gateways, "gateway", "gateways")}` : ""}`
    : count(entities.length, level === "account" ? "account" : "cloud space", name.toLowerCase());
  const exactRound = (v: number, places: number) => (Number(v.toFixed(places)) === 0 ? 0 : Number(v.toFixed(places)));
  for (const kind of kinds) {
    const total = sheet.getRow(r);
    rows.set(kind.key, r++);
    total.getCell(1).value = `Total (${what})`;
    const label = kind.own ? "CU own" : kind.unit === "CU" && !billedLevel ? "CU allocated" : kind.unit;
    total.getCell(col.unit).value = label;
    const q = quantities.get(kind.key) ?? 0;
    total.getCell(col.quantity).value = last >= first ? { formula: sumIf(col.quantity, kind.own ? "CU own" : kind.key), result: q } : 0;
    total.getCell(col.quantity).numFmt = QUANTITY_2;
    total.getCell(col.quantityUnit).value = quantityUnit(kind.unit);
    if (list && billed.has(kind.key)) {
      total.getCell(col.billed).value = { formula: sumIf(col.billed, kind.key), result: billed.get(kind.key)! };
      total.getCell(col.billed).numFmt = QUANTITY_4;
      total.getCell(col.money).value = { formula: `ROUND(${sumIf(col.money, kind.key)},${decimals})`, result: money.get(kind.key)!.toNumber() };
      total.getCell(col.money).numFmt = moneyFormat(decimals);
    }
    styleTotal(total, headers.length);
    total.commit();
    if (!parent) continue;
    const above = parent.rows.get(kind.key) ?? parent.rows.get(kind.own ? "CU" : kind.key);
    if (above === undefined) continue;
    const check = sheet.getRow(r);
    const difference = sheet.getRow(r + 1);
    r += 2;
    check.getCell(1).value = `Total of '${parent.sheet}'`;
    difference.getCell(1).value = "Difference (check)";
    for (const [column, parentColumn, mine, theirs, places, format] of [
      [col.quantity, parent.columns.quantity, q, parent.quantities.get(kind.key) ?? parent.quantities.get("CU") ?? 0, 9, QUANTITY_2],
      ...(list && billed.has(kind.key) ? [[col.billed, parent.columns.billed, billed.get(kind.key)!, parent.billed.get(kind.key) ?? 0, 9, QUANTITY_4] as const] : []),
    ] as const) {
      const L = columnLetter(column);
      check.getCell(column).value = { formula: `'${parent.sheet}'!${columnLetter(parentColumn)}${above}`, result: theirs };
      difference.getCell(column).value = { formula: `ROUND(${L}${rows.get(kind.key)}-${L}${check.number},${places})`, result: exactRound(mine - theirs, places) };
      check.getCell(column).numFmt = format;
      difference.getCell(column).numFmt = format;
    }
    if (list && billed.has(kind.key)) {
      const M = columnLetter(col.money);
      const theirs = parent.money.get(kind.key) ?? Exact.ZERO;
      check.getCell(col.money).value = { formula: `'${parent.sheet}'!${columnLetter(parent.columns.money)}${above}`, result: theirs.toNumber() };
      difference.getCell(col.money).value = { formula: `ROUND(${M}${rows.get(kind.key)}-${M}${check.number},${decimals})`, result: money.get(kind.key)!.add(Exact.of(-1n).mul(theirs)).toNumber() };
      check.getCell(col.money).numFmt = moneyFormat(decimals);
      difference.getCell(col.money).numFmt = moneyFormat(decimals);
    }
    for (const row of [check, difference]) {
      row.getCell(col.unit).value = label;
      row.eachCell((cell) => { cell.font = font({ italic: true }); });
      row.commit();
    }
  }
  if (list) {
    const total = sheet.getRow(r++);
    const M = columnLetter(col.money);
    const sum = [...money.values()].reduce((a, m) => a.add(m), Exact.ZERO);
    total.getCell(1).value = billedLevel ? `Total amount due (${what})` : `Total allocated cost (${what}), equal to the amount due on 'Accounts'`;
    total.getCell(col.money).value = last >= first ? { formula: `ROUND(SUM(${M}${first}:${M}${last}),${decimals})`, result: sum.toNumber() } : 0;
    total.getCell(col.money).numFmt = moneyFormat(decimals);
    styleTotal(total, headers.length);
    total.commit();
  }
  r++;
  const notes = [
    cuRuleSentence(report),
    ...(!billedLevel && report.options.cuRollup === "aggregate"
      ? ["CU own is the level's own CU (the platform's figure), information only: under the aggregate rule the parts' own CU may add up to more than the level above. CU allocated splits the account's CU hour by hour in proportion to own CU and adds up; it is what is billed."]
      : []),
    "Quantities are shown to 2 decimals and billed quantities (in the unit of the price) to 4; each cell holds the exact value.",
    ...(list && !billedLevel ? [ALLOCATION_SENTENCE] : []),
  ];
  for (const text of notes) writeNote(sheet, r++, text, headers.length);
  sheet.commit();
  return { sheet: name, rows, quantities, billed, money, columns: { quantity: col.quantity, billed: col.billed, money: col.money } };
}
