import { mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { BillingReport } from "../../../billing/billingReport.js";
import { draftDocument, issueDateOf } from "../../document/draftDocument.js";
import type { StatementConfig } from "../../document/statementConfig.js";
import { writeAtomic } from "../../../export/writeAtomic.js";
import { renderInvoicePdf, type InvoicePdfOptions } from "./invoicePdf.js";

/** The accounts of a report that have an invoice (a report made with a price list), in report order. */
function invoicedAccounts(report: BillingReport): number[] {
  if (!report.invoices) throw new RangeError("drafts need a billing report with a price list");
  return report.invoices.map((inv) => inv.accountId);
}

/** The file name of a draft: `draft-7101-2026-10.pdf` for a calendar month, else `draft-7101-20261001T0000-20261015T1200.pdf`. */
export function draftFileName(accountId: number, start: number, end: number): string {
  const s = new Date(start * 1000);
  const next = new Date(Date.UTC(s.getUTCFullYear(), s.getUTCMonth() + 1, 1)).getTime() / 1000;
  const month = s.getUTCDate() === 1 && start % 86_400 === 0 && end === next;
  const compact = (t: number) => new Date(t * 1000).toISOString().slice(0, 16).replace(/[-:]/g, "");
  return `draft-${accountId}-${month ? new Date(start * 1000).toISOString().slice(0, 7) : `${compact(start)}-${compact(end)}`}.pdf`;
}

/** Where drafts go: a directory (one file per account, `draftFileName`), or one file for one account. */
export type StatementTarget = { dir: string } | { file: string };

/**
 * Writes the draft PDF of every invoiced account of a report (atomically): DRAFT on every page,
 * no number (only `invoices issue` numbers invoices). A missing folder is made. Returns the
 * files written.
 */
export async function writeStatements(
  report: BillingReport,
  config: StatementConfig,
  target: StatementTarget,
  options: InvoicePdfOptions & { nowMs?: number } = {},
): Promise<string[]> {
  const accounts = invoicedAccounts(report);
  if ("file" in target && accounts.length !== 1)
    throw new RangeError(`one draft file holds one account; the report has ${accounts.length}: write to a directory`);
  await mkdir("dir" in target ? target.dir : dirname(target.file), { recursive: true });
  const files: string[] = [];
  for (const accountId of accounts) {
    const document = draftDocument(report, accountId, config, issueDateOf(config, options.nowMs));
    const file =
      "file" in target
        ? target.file
        : join(target.dir, draftFileName(accountId, report.params.start, report.params.end));
    await writeAtomic(file, await renderInvoicePdf(document, options));
    files.push(file);
  }
  return files;
}
