import type ExcelJS from "exceljs";
import { Exact } from "../../billing/exact.js";
import { columnLetter, font, moneyFormat, styleTotal } from "./style.js";
import type { AllocationLayout, RowKind } from "./allocationLayout.js";
import { QUANTITY_2, QUANTITY_4, type RowSums } from "./allocationRows.js";

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

/** A total cell: with `formulas`, the spreadsheet's formula and its stored result; else the value alone. */
function total(formula: string, result: number, formulas: boolean): ExcelJS.CellValue {
  return formulas ? { formula, result } : result;
}

/** `12 machines, 2 gateways` / `3 cloud spaces` / `1 account`. */
function countText(layout: AllocationLayout): string {
  const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  const gateways = layout.entities.filter(([l]) => l.level === "gateway").length;
  return layout.level === "machine"
    ? `${count(layout.entities.length - gateways, "machine", "machines")}${gateways > 0 ? `, ${count(gateways, "gateway", "gateways")}` : ""}`
    : count(layout.entities.length, layout.level === "account" ? "account" : "cloud space", layout.name.toLowerCase());
}

/**
 * Writes a total row per unit from row `r` (SUMIF formulas over the unit's rows with their results,
 * or without `formulas` the values alone), each followed, with a `parent` level, by its check
 * rows; returns where the totals are and the next free row.
 */
export function writeUnitTotals(
  sheet: ExcelJS.Worksheet,
  layout: AllocationLayout,
  sums: RowSums,
  start: number,
  options: { formulas: boolean; parent?: UnitTotals },
): { rows: Map<string, number>; next: number } {
  const { col } = layout;
  const { first, last } = sums;
  const U = columnLetter(col.unit);
  const sumIf = (column: number, kind: RowKind) =>
    `SUMIF($${U}$${first}:$${U}$${last},"${layout.label(kind)}",${columnLetter(column)}${first}:${columnLetter(column)}${last})`;
  const rows = new Map<string, number>();
  let r = start;
  for (const kind of layout.kinds) {
    const row = sheet.getRow(r);
    rows.set(kind.key, r++);
    row.getCell(1).value = `Total (${countText(layout)})`;
    row.getCell(col.unit).value = layout.label(kind);
    row.getCell(col.quantity).value =
      last >= first ? total(sumIf(col.quantity, kind), sums.quantities.get(kind.key) ?? 0, options.formulas) : 0;
    row.getCell(col.quantity).numFmt = QUANTITY_2;
    row.getCell(col.quantityUnit).value = layout.quantityUnit(kind.unit);
    if (sums.billed.has(kind.key)) {
      row.getCell(col.billed).value = total(sumIf(col.billed, kind), sums.billed.get(kind.key)!, options.formulas);
      row.getCell(col.billed).numFmt = QUANTITY_4;
      row.getCell(col.money).value = total(
        `ROUND(${sumIf(col.money, kind)},${layout.decimals})`,
        sums.money.get(kind.key)!.toNumber(),
        options.formulas,
      );
      row.getCell(col.money).numFmt = moneyFormat(layout.decimals);
    }
    styleTotal(row, layout.headers.length);
    row.commit();
    if (options.parent) r = writeCheckRows(sheet, layout, sums, kind, rows.get(kind.key)!, options.parent, r);
  }
  return { rows, next: r };
}

/**
 * Writes under a unit's total the level above's total and the difference (internal workbooks: a
 * check that the level adds up, 0 for all but own CU under `aggregate`); returns the next free row.
 */
function writeCheckRows(
  sheet: ExcelJS.Worksheet,
  layout: AllocationLayout,
  sums: RowSums,
  kind: RowKind,
  totalRow: number,
  parent: UnitTotals,
  r: number,
): number {
  const above = parent.rows.get(kind.key) ?? parent.rows.get(kind.own ? "CU" : kind.key);
  if (above === undefined) return r;
  const { col } = layout;
  const exactRound = (v: number, places: number) => (Number(v.toFixed(places)) === 0 ? 0 : Number(v.toFixed(places)));
  const check = sheet.getRow(r);
  const difference = sheet.getRow(r + 1);
  check.getCell(1).value = `Total of '${parent.sheet}'`;
  difference.getCell(1).value = "Difference (check)";
  for (const [column, parentColumn, mine, theirs, format] of [
    [
      col.quantity,
      parent.columns.quantity,
      sums.quantities.get(kind.key) ?? 0,
      parent.quantities.get(kind.key) ?? parent.quantities.get("CU") ?? 0,
      QUANTITY_2,
    ],
    ...(sums.billed.has(kind.key)
      ? [
          [
            col.billed,
            parent.columns.billed,
            sums.billed.get(kind.key)!,
            parent.billed.get(kind.key) ?? 0,
            QUANTITY_4,
          ] as const,
        ]
      : []),
  ] as const) {
    const L = columnLetter(column);
    check.getCell(column).value = {
      formula: `'${parent.sheet}'!${columnLetter(parentColumn)}${above}`,
      result: theirs,
    };
    difference.getCell(column).value = {
      formula: `ROUND(${L}${totalRow}-${L}${check.number},9)`,
      result: exactRound(mine - theirs, 9),
    };
    check.getCell(column).numFmt = format;
    difference.getCell(column).numFmt = format;
  }
  if (sums.billed.has(kind.key)) {
    const M = columnLetter(col.money);
    const theirs = parent.money.get(kind.key) ?? Exact.ZERO;
    check.getCell(col.money).value = {
      formula: `'${parent.sheet}'!${columnLetter(parent.columns.money)}${above}`,
      result: theirs.toNumber(),
    };
    difference.getCell(col.money).value = {
      formula: `ROUND(${M}${totalRow}-${M}${check.number},${layout.decimals})`,
      result: sums.money.get(kind.key)!.add(Exact.of(-1n).mul(theirs)).toNumber(),
    };
    check.getCell(col.money).numFmt = moneyFormat(layout.decimals);
    difference.getCell(col.money).numFmt = moneyFormat(layout.decimals);
  }
  for (const row of [check, difference]) {
    row.getCell(col.unit).value = layout.label(kind);
    row.eachCell((cell) => {
      cell.font = font({ italic: true });
    });
    row.commit();
  }
  return r + 2;
}

/** Writes the row of the money's sum (the accounts' lines, or the allocated cost below) at `r`. */
export function writeMoneyTotal(
  sheet: ExcelJS.Worksheet,
  layout: AllocationLayout,
  sums: RowSums,
  r: number,
  formulas: boolean,
): void {
  const row = sheet.getRow(r);
  const M = columnLetter(layout.col.money);
  const sum = [...sums.money.values()].reduce((a, m) => a.add(m), Exact.ZERO);
  row.getCell(1).value = layout.billedLevel
    ? `Total of the lines, excluding tax (${countText(layout)})`
    : `Total allocated cost (${countText(layout)}), equal to the lines' total on the invoice`;
  row.getCell(layout.col.money).value =
    sums.last >= sums.first
      ? total(`ROUND(SUM(${M}${sums.first}:${M}${sums.last}),${layout.decimals})`, sum.toNumber(), formulas)
      : 0;
  row.getCell(layout.col.money).numFmt = moneyFormat(layout.decimals);
  styleTotal(row, layout.headers.length);
  row.commit();
}
