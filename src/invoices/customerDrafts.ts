import { buildInvoiceDocument } from "./document/buildInvoiceDocument.js";
import { customersOf, type Customer } from "./document/customers.js";
import type { DocumentBasis, InvoiceDocument } from "./document/invoiceDocument.js";
import type { StatementConfig } from "./document/statementConfig.js";
import { basisOf, type AccountDraft } from "./accountDrafts.js";
import type { IssueInputs } from "./issueInputs.js";

/** A customer's figures of a period today: the drafts of each of its accounts, ascending. */
export interface CustomerDraft {
  customer: Customer;
  accounts: AccountDraft[];
  /** Its first account: the `accountId` of its invoice, the `{account}` of its number. */
  accountId: number;
  /** The hours of the period not held of any of its accounts (epoch seconds), ascending. */
  missingHours: number[];
}

/** Every account of the customers of these accounts (a customer of several accounts is invoiced for all of them). */
export function customersAccounts(config: StatementConfig, accountIds: readonly number[]): number[] {
  return [...new Set(customersOf(config, accountIds).flatMap((c) => c.accountIds))].sort((a, b) => a - b);
}

/** Accounts' drafts grouped by customer (`customerOf`), in the order of the customers' first accounts. */
export function customerDrafts(config: StatementConfig, drafts: readonly AccountDraft[]): CustomerDraft[] {
  const byAccount = new Map(drafts.map((d) => [d.accountId, d]));
  return customersOf(
    config,
    drafts.map((d) => d.accountId),
  ).map((customer) => {
    const accounts = customer.accountIds.map((id) => byAccount.get(id)).filter((d): d is AccountDraft => !!d);
    const missing = [...new Set(accounts.flatMap((d) => d.missingHours))].sort((a, b) => a - b);
    return { customer, accounts, accountId: accounts[0]!.accountId, missingHours: missing };
  });
}

/** What a customer's document was computed from: one account's hours, or each account's. */
export function customerBasis(draft: CustomerDraft, inputs: IssueInputs): DocumentBasis {
  if (!draft.customer.grouped) return basisOf(draft.accounts[0]!, inputs);
  return {
    ...basisOf({ ...draft.accounts[0]!, held: [] }, inputs),
    accounts: draft.accounts.map((d) => ({
      accountId: d.accountId,
      hours: d.held.map((h) => h.hourEpoch),
      hourSha256: d.held.map((h) => h.filesSha256),
    })),
  };
}

/** A customer's invoice of today's figures: of its one account as before, or a section per account. */
export function customerDocument(
  draft: CustomerDraft,
  inputs: IssueInputs,
  document: { number: string; issueDate: string; corrects?: { number: string; issueDate: string }; reason?: string },
): InvoiceDocument {
  const grouped = draft.customer.grouped;
  return buildInvoiceDocument({
    ...document,
    invoice: draft.accounts[0]!.invoice,
    config: inputs.config,
    units: inputs.units,
    basis: customerBasis(draft, inputs),
    missingHours: grouped ? draft.missingHours : draft.accounts[0]!.missingHours,
    ...(grouped
      ? {
          customer: {
            id: draft.customer.id,
            invoices: draft.accounts.map((d) => d.invoice),
            missingHours: new Map(draft.accounts.map((d) => [d.accountId, d.missingHours])),
          },
        }
      : {}),
  });
}
