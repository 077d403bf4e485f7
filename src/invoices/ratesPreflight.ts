import { UsageError } from "../base/errors.js";
import { missingRate, needsAccountingCurrency } from "./document/accountingCurrency.js";
import { buildInvoiceDocument } from "./document/buildInvoiceDocument.js";
import type { Invoice } from "../billing/invoice.js";
import type { StatementConfig } from "./document/statementConfig.js";

/** An invoice about to be numbered, with its issue date `YYYY-MM-DD`. */
export interface RatedInvoice {
  invoice: Invoice;
  issueDate: string;
}

/**
 * Throws a UsageError (code STATEMENT_CONFIG, exit 2) naming every exchange rate missing to give
 * the VAT of these invoices in the issuer's accounting currency: an invoice in another currency on
 * which tax is due needs `fxRates.<currency>.<issue date>`. Checked before any number is given.
 */
export function checkRates(config: StatementConfig, invoices: readonly RatedInvoice[]): void {
  const missing = new Set<string>();
  const accounts: number[] = [];
  for (const { invoice, issueDate } of invoices) {
    const { currency, tax } = buildInvoiceDocument({ invoice, config, issueDate });
    if (!needsAccountingCurrency(config, currency, tax)) continue;
    const problem = missingRate(config, currency, issueDate);
    if (problem === undefined) continue;
    missing.add(problem);
    accounts.push(invoice.accountId);
  }
  if (missing.size === 0) return;
  throw new UsageError(
    `${config.source}: cannot issue the invoice${accounts.length === 1 ? "" : "s"} of account${accounts.length === 1 ? "" : "s"} ${accounts.join(", ")}: missing ${[...missing].join("; ")}; nothing was numbered`,
    { code: "STATEMENT_CONFIG" },
  );
}
