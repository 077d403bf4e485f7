import type ExcelJS from "exceljs";
import { Exact } from "../../billing/exact.js";
import type { BillingReport } from "../../billing/billingReport.js";
import type { Level } from "../../billing/lines.js";
import { cuRuleText } from "../../billing/units.js";
import { isShown, type BillingColumn } from "../billingColumns.js";
import { addSheet, cellValue, columnLetter, font, moneyFormat, moneyTotal, quantityFormat, setHeader, sheetColumns, styleTotal, widthOf, writeCell } from "./style.js";

/** Where a level sheet's totals are, so other sheets' check rows can refer to them. */
export interface SheetTotals {
  sheet: string;
  totalRow: number;
  /** Column letter of each column key. */
  letters: Map<string, string>;
  /** Σ of each quantity column, as computed here (the formula's cached result). */
  sums: Map<string, number>;
  /** Σ of each money column, exactly. */
  money: Map<string, Exact>;
}

const SHEET_OF: Record<Exclude<Level, "environment">, string> = { account: "Accounts", cloudspace: "Cloud spaces", machine: "Machines" };

/** Why a child level's own CU may differ from its parent's (the other columns add up). */
function whyDiffers(report: BillingReport, key: string): string | undefined {
  if (key === "CU" && report.options.cuRollup === "aggregate") {
    return `CU own: under aggregate a level's own CU is ${cuRuleText(report.options.units)} of its own totals per hour, at most the sum of its parts' CU; CU allocated (showback) adds up`;
  }
  return undefined;
}

/**
 * A level sheet (Accounts, Cloud spaces or Machines with the gateways): one row per entity,
 * a totals row, and with a parent level the check rows: the parent's totals and the
 * difference, for every quantity and amount, with why own CU differs under aggregate.
 * Returns where its totals are.
 */
export function writeLevelSheet(
  workbook: ExcelJS.stream.xlsx.WorkbookWriter, report: BillingReport, level: Exclude<Level, "environment">, parent: SheetTotals | undefined,
): SheetTotals {
  const name = SHEET_OF[level];
  const sheet = addSheet(workbook, name, 1);
  const decimals = report.prices?.decimals ?? 2;
  const columns = sheetColumns(report, level);
  sheet.columns = columns.map((c) => ({ key: c.key, width: Math.max(widthOf(c), c.key === "name" ? 22 : 0) }));
  setHeader(sheet, columns.map((c) => c.header), 1);
  const indexes = report.lines.map((l, i) => [l, i] as const)
    .filter(([l, i]) => (l.level === level || (level === "machine" && l.level === "gateway")) && isShown(report, l, report.money?.[i]));
  let r = 2;
  const sums = new Map<string, number>();
  const money = new Map<string, Exact>();
  for (const [line, i] of indexes) {
    const lineMoney = report.money?.[i];
    const row = sheet.getRow(r++);
    columns.forEach((c, k) => {
      const cell = c.value(line, lineMoney);
      const v = cellValue(cell, c, decimals);
      writeCell(row.getCell(k + 1), v, c, decimals);
      if (typeof v === "number" && c.kind === "quantity") sums.set(c.key, (sums.get(c.key) ?? 0) + v);
      if (cell instanceof Exact) money.set(c.key, (money.get(c.key) ?? Exact.ZERO).add(cell.round(decimals)));
    });
    row.commit();
  }
  const first = 2;
  const last = r - 1;
  const letters = new Map(columns.map((c, k) => [c.key, columnLetter(k + 1)]));
  const totalRow = r++;
  const total = sheet.getRow(totalRow);
  const gateways = indexes.filter(([l]) => l.level === "gateway").length;
  const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  total.getCell(1).value = level === "machine"
    ? `Total (${count(indexes.length - gateways, "machine", "machines")}${gateways > 0 ? `, ${count(gateways, "gateway", "gateways")}` : ""})`
    : `Total (${count(indexes.length, level === "account" ? "account" : "cloud space", name.toLowerCase())})`;
  columns.forEach((c, k) => {
    const L = letters.get(c.key)!;
    const cell = total.getCell(k + 1);
    if (c.kind === "quantity") {
      cell.value = last >= first ? { formula: `SUM(${L}${first}:${L}${last})`, result: sums.get(c.key) ?? 0 } : 0;
      cell.numFmt = quantityFormat(sums.get(c.key) ?? 0);
    } else if (c.kind === "money") {
      cell.value = last >= first ? moneyTotal(`${L}${first}:${L}${last}`, money.get(c.key) ?? Exact.ZERO, decimals) : 0;
      cell.numFmt = moneyFormat(decimals);
    }
  });
  styleTotal(total, columns.length);
  total.commit();
  if (parent) writeChecks(sheet, report, columns, { sheet: name, totalRow, letters, sums, money }, parent, r);
  sheet.commit();
  return { sheet: name, totalRow, letters, sums, money };
}

/** The check rows under a level's totals: the parent's totals, the difference (0 for all but own CU under aggregate) and why. */
function writeChecks(sheet: ExcelJS.Worksheet, report: BillingReport, columns: BillingColumn[], own: SheetTotals, parent: SheetTotals, r: number): void {
  const decimals = report.prices?.decimals ?? 2;
  const against = sheet.getRow(r);
  const diff = sheet.getRow(r + 1);
  const why = sheet.getRow(r + 2);
  against.getCell(1).value = `Total of '${parent.sheet}'`;
  diff.getCell(1).value = "Difference (check)";
  const notes: string[] = [];
  columns.forEach((c, k) => {
    if (c.kind !== "quantity" && c.kind !== "money") return;
    // A level's allocated cost adds up to the account's amount due.
    const key = c.key === "allocated_cost" && !parent.letters.has(c.key) ? "amount_due" : c.key;
    const P = parent.letters.get(key);
    if (!P) return;
    const L = own.letters.get(c.key)!;
    const parentValue = c.kind === "money" ? (parent.money.get(key) ?? Exact.ZERO).toNumber() : parent.sums.get(key) ?? 0;
    const difference = c.kind === "money"
      ? (own.money.get(c.key) ?? Exact.ZERO).add(Exact.of(-1n).mul(parent.money.get(key) ?? Exact.ZERO)).toNumber()
      : roundTo((own.sums.get(c.key) ?? 0) - parentValue, 9);
    const format = c.kind === "money" ? moneyFormat(decimals) : quantityFormat(parentValue);
    against.getCell(k + 1).value = { formula: `'${parent.sheet}'!${P}${parent.totalRow}`, result: parentValue };
    // Quantities are float sums: the check is to 9 decimals (they show 6); money is exact.
    const round = `ROUND(${L}${own.totalRow}-${L}${against.number},${c.kind === "money" ? decimals : 9})`;
    diff.getCell(k + 1).value = { formula: round, result: difference };
    against.getCell(k + 1).numFmt = format;
    diff.getCell(k + 1).numFmt = c.kind === "money" ? format : quantityFormat(difference);
    const reason = whyDiffers(report, c.key);
    if (reason) notes.push(reason);
  });
  why.getCell(1).value = `Why: ${notes.length > 0 ? `${notes.join("  |  ")}; every other column adds up` : "no difference is expected: every column adds up"}`;
  for (const row of [against, diff]) row.eachCell((cell) => { cell.font = font({ italic: true }); });
  why.getCell(1).font = font({ italic: true });
  against.commit();
  diff.commit();
  why.commit();
}

function roundTo(value: number, decimals: number): number {
  const r = Number(value.toFixed(decimals));
  return r === 0 ? 0 : r;
}
