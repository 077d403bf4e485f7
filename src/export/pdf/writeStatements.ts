import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { BillingReport } from "../../billing/billingReport.js";
import type { StatementConfig } from "../../billing/statementConfig.js";
import { openDatabaseFile } from "../../store/openDatabaseFile.js";
import { registerStatementNumbers, type StatementNumber } from "../../store/statementNumbers.js";
import { accountFileName } from "../writeBillingXlsx.js";
import { writeAtomic } from "../writeAtomic.js";
import { statementContent } from "./statementContent.js";
import { renderStatementPdf } from "./statementPdf.js";

/** The accounts of a report that have an invoice (a report made with a price list), in report order. */
function invoicedAccounts(report: BillingReport): number[] {
  if (!report.invoices) throw new RangeError("statements need a billing report with a price list");
  return report.invoices.map((inv) => inv.accountId);
}

/** The issue date of statements numbered now: the config's, else today (UTC). */
export function issueDateOf(config: StatementConfig, nowMs = Date.now()): string {
  return config.issueDate ?? new Date(nowMs).toISOString().slice(0, 10);
}

/**
 * Numbers the statements of a report's accounts in a warehouse file (opened to write, so
 * after a `sync` or `ingest` writing it commits, waiting up to `waitSeconds`): an account and period already numbered keeps
 * its number and first issue date; the others get the next numbers of the sequence.
 * Returns the numbers by account id.
 */
export async function numberStatements(
  dbFile: string, report: BillingReport, config: StatementConfig, options: { nowMs?: number; waitSeconds?: number } = {},
): Promise<Map<number, StatementNumber>> {
  const accounts = invoicedAccounts(report);
  const nowMs = options.nowMs ?? Date.now();
  const { instance, connection } = await openDatabaseFile(dbFile, { waitSeconds: options.waitSeconds });
  try {
    const byId = new Map(report.invoices!.map((inv) => [inv.accountId, inv]));
    const numbers = await registerStatementNumbers(connection, accounts.map((accountId) => {
      const invoice = byId.get(accountId)!;
      return {
        accountId, start: report.params.start, end: report.params.end, issueDate: issueDateOf(config, nowMs), pattern: config.numberPattern,
        currency: invoice.currency, amountDue: invoice.amountDue.toFixed(invoice.decimals),
      };
    }));
    return new Map(accounts.map((id, i) => [id, numbers[i]!]));
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** Where statements go: a directory (one file per account, named like the pack's workbooks), or one file for one account. */
export type StatementTarget = { dir: string } | { file: string };

/**
 * Writes the PDF statement of every invoiced account of a report (atomically), numbered by
 * `numbers` (from `numberStatements`); an account without a number gets a draft, marked as
 * such on every page. Returns the files written.
 */
export async function writeStatements(
  report: BillingReport, config: StatementConfig, target: StatementTarget, numbers: ReadonlyMap<number, StatementNumber> = new Map(), nowMs = Date.now(),
): Promise<string[]> {
  const accounts = invoicedAccounts(report);
  if ("file" in target && accounts.length !== 1) throw new RangeError(`one statement file holds one account; the report has ${accounts.length}: write to a directory`);
  if ("dir" in target) await mkdir(target.dir, { recursive: true });
  const files: string[] = [];
  for (const accountId of accounts) {
    const number = numbers.get(accountId);
    const content = statementContent(report, accountId, { config, number: number?.number, issueDate: number?.issueDate ?? issueDateOf(config, nowMs) });
    const name = report.lines.find((l) => l.level === "account" && l.accountId === accountId)?.name ?? "";
    const file = "file" in target ? target.file : join(target.dir, accountFileName(accountId, name).replace(/\.xlsx$/, ".pdf"));
    await writeAtomic(file, await renderStatementPdf(content));
    files.push(file);
  }
  return files;
}
