import type ExcelJS from "exceljs";
import type { BillingReport } from "../../billing/billingReport.js";
import { ALLOCATION_SENTENCE } from "../billingColumns.js";
import { allocationLayout, type AllocationLayout, type SheetLevel } from "./allocationLayout.js";
import { writeEntityRows } from "./allocationRows.js";
import { writeMoneyTotal, writeUnitTotals, type UnitTotals } from "./allocationTotals.js";
import { addSheet, setHeader, writeNote } from "./style.js";
import { cuRuleSentence } from "./summarySheet.js";

export type { UnitTotals };

/** How an allocation sheet is written: for the internal workbook (formulas, check rows against `parent`, the rules), or for the customer (values). */
export interface AllocationSheetOptions {
  /** The level above's totals, for the check rows; undefined: no check rows (Accounts, or a customer's workbook). */
  parent?: UnitTotals;
  /** A customer's workbook: totals as values, no check row, no formula, no rule with its constants. */
  customer?: boolean;
}

/** The notes under the sheet: the CU rule (internal only: it spells the formula), own CU, the decimals, how cost is split. */
function notesOf(report: BillingReport, layout: AllocationLayout, customer: boolean): string[] {
  const aggregateBelow = !layout.billedLevel && report.options.cuRollup === "aggregate";
  return [
    ...(customer ? [] : [cuRuleSentence(report)]),
    ...(aggregateBelow
      ? [
          "CU own is the level's own CU (the platform's figure), information only: the parts' own CU may add up to more than the level above. CU allocated splits the account's CU hour by hour in proportion to own CU and adds up; it is what is billed.",
        ]
      : []),
    "Quantities are shown to 2 decimals and billed quantities (in the unit of the price) to 4; each cell holds the exact value.",
    ...(report.prices && !layout.billedLevel ? [ALLOCATION_SENTENCE] : []),
  ];
}

/**
 * An allocation sheet in long layout, to print on A4 landscape: one row per entity and unit
 * (ids, name, hours, unit, quantity in the report's unit, and with prices the quantity in the
 * unit of the price, the unit price and the money: the line's amount on Accounts, allocated cost
 * below), then per unit its total and, with a parent, the level above's total and the
 * difference (0 for all but own CU under `aggregate`), the money's total, then the notes.
 * Returns where its totals are.
 */
export function writeAllocationSheet(
  workbook: ExcelJS.stream.xlsx.WorkbookWriter,
  report: BillingReport,
  level: SheetLevel,
  options: AllocationSheetOptions = {},
): UnitTotals {
  const layout = allocationLayout(report, level);
  const formulas = !options.customer;
  const sheet = addSheet(workbook, layout.name, 1);
  sheet.columns = layout.widths.map((width) => ({ width }));
  setHeader(sheet, layout.headers, 1);
  const sums = writeEntityRows(sheet, report, layout);
  const { rows, next } = writeUnitTotals(sheet, layout, sums, sums.last + 2, {
    formulas,
    parent: options.customer ? undefined : options.parent,
  });
  let r = next;
  if (report.prices) writeMoneyTotal(sheet, layout, sums, r++, formulas);
  r++;
  for (const text of notesOf(report, layout, options.customer === true))
    writeNote(sheet, r++, text, layout.headers.length);
  sheet.commit();
  return {
    sheet: layout.name,
    rows,
    quantities: sums.quantities,
    billed: sums.billed,
    money: sums.money,
    columns: { quantity: layout.col.quantity, billed: layout.col.billed, money: layout.col.money },
  };
}
