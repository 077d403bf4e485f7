import type ExcelJS from "exceljs";
import { mkdir, open, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { BillingReport } from "../billing/billingReport.js";
import type { HourlyStream } from "../billing/hourlyStream.js";
import type { DraftDocument, InvoiceDocument } from "../invoices/document/invoiceDocument.js";
import { accountReport } from "../billing/accountReport.js";
import { UsageError } from "../base/errors.js";
import { environmentErrorOf } from "../base/environmentError.js";
import { writeAboutSheet } from "./xlsx/aboutSheet.js";
import { EXCEL_MAX_ROWS, writeHourlySheet } from "./xlsx/hourlySheet.js";
import { writeInvoiceSheet } from "./xlsx/invoiceSheet.js";
import { writeAllocationSheet } from "./xlsx/allocationSheet.js";
import { writeSummarySheet } from "./xlsx/summarySheet.js";

/** Excel's last row (re-exported from the Hourly sheet). */
export { EXCEL_MAX_ROWS };
/** The part of a report about one account (re-exported: a statement is rendered from it). */
export { accountReport };

/** Options of the billing workbook. */
export interface BillingXlsxOptions {
  /** The documents of the accounts (issued from the register, or drafts): their numbers, taxes and amounts due go into the Summary and each account's Invoice sheet. */
  documents?: readonly (InvoiceDocument | DraftDocument)[];
  /** Add the Hourly sheet (one row per entity, level and hour, streamed); default false. */
  hourly?: boolean;
  /** Most hourly lines the Hourly sheet holds before it becomes a note (default: Excel's limit minus the header). */
  maxHourlyRows?: number;
}

/** Why a workbook could not be written, as an error a user can act on (a folder given as the file, a folder missing, the disk or a permission). */
function refusalOf(error: unknown, file: string): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "EISDIR" || (code === "ENOTDIR" && /[\\/]$/.test(file))) {
    return new UsageError(
      `cannot write ${file}: it names a folder, and a workbook is one file: give a file name (e.g. ${join(file, "billing.xlsx")}), or writeInvoicePack() to write the pack into the folder`,
      { cause: error },
    );
  }
  if (code === "ENOENT" || code === "ENOTDIR")
    return new UsageError(
      `cannot write ${file}: its folder ${dirname(file)} does not exist: create it, or give another path`,
      { cause: error },
    );
  return environmentErrorOf(error, file) ?? error;
}

/** Writes a workbook atomically (temporary file, then rename) with exceljs's streaming writer. */
async function writeWorkbook(
  file: string,
  report: BillingReport,
  fill: (workbook: ExcelJS.stream.xlsx.WorkbookWriter) => Promise<void>,
): Promise<void> {
  if (
    /[\\/]$/.test(file) ||
    (await stat(file).then(
      (s) => s.isDirectory(),
      () => false,
    ))
  )
    throw refusalOf(Object.assign(new Error("is a directory"), { code: "EISDIR" }), file);
  const temp = join(dirname(file), `.${basename(file)}.${process.pid}.${Date.now()}.tmp`);
  // a missing folder is made; opening the file first makes a refusal an error of this call, not of the stream
  const handle = await mkdir(dirname(file), { recursive: true })
    .then(() => open(temp, "w"))
    .catch((error: unknown) => {
      throw refusalOf(error, file);
    });
  const stream = handle.createWriteStream();
  try {
    const { default: excel } = await import("exceljs"); // slow to load (docs/performance.md): only when a workbook is written
    const workbook = new excel.stream.xlsx.WorkbookWriter({ stream, useStyles: true, useSharedStrings: false });
    workbook.creator = "cloudunits";
    workbook.created = new Date(report.generatedAtMs);
    await fill(workbook);
    await workbook.commit();
    await rename(temp, file);
  } catch (error) {
    stream.destroy();
    await rm(temp, { force: true });
    throw refusalOf(error, file);
  }
}

/**
 * Writes the billing workbook a finance team hands to an auditor, the internal one, atomically:
 * Summary (per account: amounts and their net total, or units without prices; with
 * `documents`, each account's document number, tax and amount due, the gross),
 * Accounts, Cloud spaces, Machines (one row per entity, gateways among the machines, a
 * totals row, and check rows against the level above for every quantity and amount),
 * Hourly with `hourly` (when it fits Excel's rows) and About (period, inputs and hashes,
 * rules, data quality). Numbers are real numbers with number formats; ids are text;
 * header rows are frozen and filtered; every sheet prints on A4 landscape, fit to width.
 * `hourly`: the report's hourly lines, which the Hourly sheet lists (only `options.hourly`
 * needs them; e.g. `warehouseHourly(connection, report)`).
 */
export async function writeBillingXlsx(
  report: BillingReport,
  hourly: HourlyStream | undefined,
  file: string,
  options: BillingXlsxOptions = {},
): Promise<void> {
  if (options.hourly && hourly === undefined)
    throw new UsageError(
      "the Hourly sheet lists the report's hourly lines: give them (e.g. warehouseHourly(connection, report))",
    );
  // billed for one account, the workbook is that account's statement: nothing of the whole load (docs/formulas.md)
  const accountId = report.params.accountId;
  if (accountId !== undefined) report = accountReport(report, accountId);
  await writeWorkbook(file, report, async (workbook) => {
    writeSummarySheet(workbook, report, options.documents);
    const accounts = writeAllocationSheet(workbook, report, "account");
    const cloudspaces = writeAllocationSheet(workbook, report, "cloudspace", { parent: accounts });
    writeAllocationSheet(workbook, report, "machine", { parent: cloudspaces });
    if (options.hourly) await writeHourlySheet(workbook, report, hourly!, options.maxHourlyRows ?? EXCEL_MAX_ROWS - 1);
    writeAboutSheet(workbook, report);
  });
}

/**
 * Writes one account's workbook, what its customer receives, atomically: Invoice (with its
 * document: number, dates, lines, net, each tax line and the amount due, the gross; without one,
 * the lines and their net total), Cloud spaces and Machines (each line's allocated cost per cloud
 * space and machine, adding up to the lines), all values: no formula, no check row, no rule with
 * its constants (those are in the internal workbook, `writeBillingXlsx`). Without prices, its
 * Accounts sheet of units instead of the Invoice.
 */
export async function writeAccountXlsx(
  report: BillingReport,
  accountId: number,
  file: string,
  options: { document?: InvoiceDocument | DraftDocument } = {},
): Promise<void> {
  const own = accountReport(report, accountId);
  await writeWorkbook(file, own, async (workbook) => {
    const invoice = own.invoices?.[0];
    if (invoice) writeInvoiceSheet(workbook, own, invoice, options.document);
    else writeAllocationSheet(workbook, own, "account", { customer: true });
    writeAllocationSheet(workbook, own, "cloudspace", { customer: true });
    writeAllocationSheet(workbook, own, "machine", { customer: true });
  });
}

/** Letters that do not decompose into a base letter and an accent, as file names spell them. */
const FOLDED: Record<string, string> = { ø: "o", æ: "ae", œ: "oe", ß: "ss", đ: "d", ð: "d", ł: "l", þ: "th", ı: "i" };

/**
 * A file-name-safe form of a name: Latin letters without their accents (`Lumière` → `lumiere`),
 * every other script's letters as written, with their marks (`ドイツ` keeps its voicing mark, not
 * `トイツ`; Devanagari keeps its vowel signs), digits and `-`, at most 40 characters.
 * Compatibility forms are folded first (`ﬁ` → `fi`, half-width `ﾄﾞ` → `ド`).
 */
function slug(name: string): string {
  const folded = name
    .toLowerCase()
    .normalize("NFKD")
    .replace(/(\p{Script=Latin})\p{M}+/gu, "$1")
    .normalize("NFC")
    .replace(/[øæœßđðłþı]/gu, (c) => FOLDED[c]!)
    .replace(/[^\p{L}\p{M}\p{N}]+/gu, "-")
    .replace(/^-+|-+$/g, "");
  return [...folded].slice(0, 40).join("").replace(/-+$/, "");
}

/** The file name of an account's workbook in an invoice pack: `account-7-acme-corp.xlsx` (`account-7.xlsx` without a name). */
export function accountFileName(accountId: number, name: string): string {
  const s = slug(name);
  return `account-${accountId}${s ? `-${s}` : ""}.xlsx`;
}

/**
 * The invoice pack: into `dir` (created if needed), `summary.xlsx` (the internal workbook of
 * `writeBillingXlsx`, with the check rows) and one workbook per account for its customer
 * (`writeAccountXlsx`, with its document of `options.documents`), named by `accountFileName`.
 * Returns the files written, summary first.
 */
export async function writeInvoicePack(
  report: BillingReport,
  hourly: HourlyStream | undefined,
  dir: string,
  options: BillingXlsxOptions = {},
): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const files = [join(dir, "summary.xlsx")];
  await writeBillingXlsx(report, hourly, files[0]!, options);
  for (const line of report.lines) {
    if (line.level !== "account") continue;
    const file = join(dir, accountFileName(line.accountId!, line.name));
    await writeAccountXlsx(report, line.accountId!, file, {
      document: options.documents?.find((d) => d.accountId === line.accountId),
    });
    files.push(file);
  }
  return files;
}
