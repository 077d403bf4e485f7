import type ExcelJS from "exceljs";
import type { BillingReport } from "../../billing/billingReport.js";
import type { Level } from "../../billing/lines.js";
import type { BillingColumn } from "../billingColumns.js";
import { addSheet, cellValue, columnLetter, setHeader, sheetColumns, TOTAL_FILL, formatOf, widthOf } from "./style.js";

/** Where a level sheet's totals are, so other sheets' check rows can refer to them. */
export interface SheetTotals {
  sheet: string;
  totalRow: number;
  /** Column letter of each column key. */
  letters: Map<string, string>;
  /** Σ of each quantity column, as computed here (the formula's cached result). */
  sums: Map<string, number>;
}

const SHEET_OF: Record<Exclude<Level, "environment">, string> = { account: "Accounts", cloudspace: "Cloud spaces", machine: "Machines" };

/** Why a child level's total may differ from its parent's, per unit. */
function whyDiffers(report: BillingReport, level: Level, key: string): string | undefined {
  if (key === "CU" && report.options.cuRollup === "aggregate") {
    return level === "machine"
      ? "under aggregate, a cloud space's CU is max(Σmem/1024/4, Σvcpus/2) of its machines per hour, never more than the sum of their CU; the machines' CU add up to the cloud spaces' 'CU sum of machines'"
      : "under aggregate, an account's CU is computed per hour from its own Σmem and Σvcpus, never more than the sum of its cloud spaces' CU; the column 'CU sum of machines' adds up exactly";
  }
  if (key === "PIU" && level === "machine") return "a deployed cloud space also counts 1 PIU for its gateway's public IP";
  if (key === "NU" && level === "machine") return "NU is billed at cloud space level and above (gateways' and machines' external traffic)";
  return undefined;
}

/**
 * A level sheet (Accounts, Cloud spaces or Machines): one row per entity, a totals row, and
 * with a parent level the check rows: its totals, the difference, and why a difference is
 * expected (CU under aggregate, gateways' PIU, NU). Returns where its totals are.
 */
export function writeLevelSheet(
  workbook: ExcelJS.stream.xlsx.WorkbookWriter, report: BillingReport, level: Exclude<Level, "environment">, parent: SheetTotals | undefined,
): SheetTotals {
  const name = SHEET_OF[level];
  const sheet = addSheet(workbook, name, 1);
  const decimals = report.prices?.decimals ?? 2;
  const columns = sheetColumns(report, level);
  sheet.columns = columns.map((c) => ({ key: c.key, width: widthOf(c), style: formatOf(c, decimals) ? { numFmt: formatOf(c, decimals)! } : {} }));
  setHeader(sheet, columns.map((c) => c.header), 1);
  const indexes = report.lines.map((l, i) => [l, i] as const).filter(([l]) => l.level === level);
  let r = 2;
  const sums = new Map<string, number>();
  for (const [line, i] of indexes) {
    const money = report.money?.[i];
    const row = sheet.getRow(r++);
    columns.forEach((c, k) => {
      const v = cellValue(c.value(line, money), c, decimals);
      row.getCell(k + 1).value = v;
      if (typeof v === "number" && (c.kind === "quantity" || c.kind === "money" || c.kind === "count")) sums.set(c.key, (sums.get(c.key) ?? 0) + v);
    });
    row.commit();
  }
  const first = 2;
  const last = r - 1;
  const letters = new Map(columns.map((c, k) => [c.key, columnLetter(k + 1)]));
  const summed = (c: BillingColumn) => c.kind === "quantity" || c.kind === "money" || c.kind === "count";
  const totalRow = r++;
  const total = sheet.getRow(totalRow);
  total.getCell(1).value = `Total (${indexes.length} ${name.toLowerCase()})`;
  columns.forEach((c, k) => {
    if (!summed(c) || c.key === "sample_hours") return;
    const L = letters.get(c.key)!;
    total.getCell(k + 1).value = last >= first ? { formula: `SUM(${L}${first}:${L}${last})`, result: sums.get(c.key) ?? 0 } : 0;
  });
  total.eachCell((cell) => { cell.font = { bold: true }; cell.fill = TOTAL_FILL; });
  total.commit();
  if (parent) {
    // Check rows: this level's totals against the parent level's, with the difference and why.
    const against = sheet.getRow(r++);
    const diff = sheet.getRow(r++);
    const why = sheet.getRow(r++);
    against.getCell(1).value = `Total of '${parent.sheet}'`;
    diff.getCell(1).value = "Difference (check)";
    const notes: string[] = [];
    columns.forEach((c, k) => {
      if (c.kind !== "quantity" && c.kind !== "money") return;
      if (c.key === "cu_sum_of_machines") return;
      const parentKey = c.key === "CU" && report.options.cuRollup === "aggregate" && level === "machine" ? "CU" : c.key;
      const P = parent.letters.get(parentKey);
      const L = letters.get(c.key)!;
      if (!P) return;
      if (c.kind === "money") return; // money differs by design across levels under aggregate; the invoice is the account's
      const parentSum = parent.sums.get(parentKey) ?? 0;
      against.getCell(k + 1).value = { formula: `'${parent.sheet}'!${P}${parent.totalRow}`, result: parentSum };
      diff.getCell(k + 1).value = { formula: `${L}${totalRow}-${L}${against.number}`, result: (sums.get(c.key) ?? 0) - parentSum };
      const reason = whyDiffers(report, level, c.key);
      if (reason) notes.push(`${c.key}: ${reason}`);
    });
    if (report.options.cuRollup === "aggregate" && letters.has("CU") && parent.letters.has("cu_sum_of_machines")) {
      const k = columns.findIndex((c) => c.key === "cu_sum_of_machines");
      if (level === "machine") {
        // Machines have no 'CU sum of machines': compare their CU with the cloud spaces' sum of machines' CU, which must be 0.
        const P = parent.letters.get("cu_sum_of_machines")!;
        const L = letters.get("CU")!;
        const parentSum = parent.sums.get("cu_sum_of_machines") ?? 0;
        against.getCell(k + 1).value = { formula: `'${parent.sheet}'!${P}${parent.totalRow}`, result: parentSum };
        diff.getCell(k + 1).value = { formula: `${L}${totalRow}-${columnLetter(k + 1)}${against.number}`, result: (sums.get("CU") ?? 0) - parentSum };
      } else {
        const L = letters.get("cu_sum_of_machines")!;
        const P = parent.letters.get("cu_sum_of_machines")!;
        const parentSum = parent.sums.get("cu_sum_of_machines") ?? 0;
        against.getCell(k + 1).value = { formula: `'${parent.sheet}'!${P}${parent.totalRow}`, result: parentSum };
        diff.getCell(k + 1).value = { formula: `${L}${totalRow}-${L}${against.number}`, result: (sums.get("cu_sum_of_machines") ?? 0) - parentSum };
      }
    }
    why.getCell(1).value = `Why: ${notes.length > 0 ? notes.join("  |  ") : "no difference is expected: every unit adds up"}`;
    for (const row of [against, diff]) row.eachCell((cell) => { cell.font = { italic: true }; });
    against.commit();
    diff.commit();
    why.commit();
  }
  sheet.commit();
  return { sheet: name, totalRow, letters, sums };
}
