import { mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { BillingReport } from "../../billing/billingReport.js";
import { buildInvoiceDocument } from "../../billing/buildInvoiceDocument.js";
import type { DraftDocument } from "../../billing/invoiceDocument.js";
import type { StatementConfig } from "../../billing/statementConfig.js";
import { writeAtomic } from "../writeAtomic.js";
import { renderInvoicePdf, type InvoicePdfOptions } from "./invoicePdf.js";
import { clockNow } from "../../base/clock.js";

/** The accounts of a report that have an invoice (a report made with a price list), in report order. */
function invoicedAccounts(report: BillingReport): number[] {
  if (!report.invoices) throw new RangeError("drafts need a billing report with a price list");
  return report.invoices.map((inv) => inv.accountId);
}

/** The date of drafts made now: the config's issue date, else today (UTC). */
export function issueDateOf(config: StatementConfig, nowMs = clockNow() * 1000): string {
  return config.issueDate ?? new Date(nowMs).toISOString().slice(0, 10);
}

/** The hours of an account a report found missing in its period, ascending (epoch seconds). */
export function missingHoursOf(report: BillingReport, accountId: number): number[] {
  const runs = report.quality.missingHours.find((m) => m.accountId === accountId)?.runs ?? [];
  return runs.flatMap((r) =>
    Array.from({ length: (r.endHour - r.startHour) / 3600 + 1 }, (_, k) => r.startHour + k * 3600),
  );
}

/**
 * The draft invoice of an account of a report with prices: its invoice, taxed by the config, its
 * missing hours printed, no number. Throws a RangeError when the report has no invoice for it.
 */
export function draftDocument(
  report: BillingReport,
  accountId: number,
  config: StatementConfig,
  issueDate = issueDateOf(config),
): DraftDocument {
  const invoice = report.invoices?.find((inv) => inv.accountId === accountId);
  if (!invoice) throw new RangeError(`no invoice for account ${accountId} in the report (a draft needs a price list)`);
  return buildInvoiceDocument({
    invoice,
    config,
    issueDate,
    units: report.options.units,
    missingHours: missingHoursOf(report, accountId),
  });
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
