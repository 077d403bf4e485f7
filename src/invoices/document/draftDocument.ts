import type { BillingReport } from "../../billing/billingReport.js";
import { buildInvoiceDocument } from "./buildInvoiceDocument.js";
import type { DraftDocument } from "./invoiceDocument.js";
import type { StatementConfig } from "./statementConfig.js";
import { clockNow } from "../../base/clock.js";

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
