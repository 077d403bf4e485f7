import type { StatementConfig, StatementCustomer } from "./statementConfig.js";

/**
 * Whom an invoice is addressed to: a customer of the statement config. A customer of several
 * accounts (`customers.<customerId>.accounts: [ids]`) gets one invoice a month for all of them;
 * every other account is its own customer, whose id is the account id (`"7101"`).
 */
export interface Customer {
  /** The config's key: `acme` for a customer of several accounts, else the account id as text. */
  id: string;
  /** Its accounts, ascending (one for an account that is its own customer). */
  accountIds: number[];
  /** True when the config lists its accounts (`accounts: [...]`): its invoices have a section per account. */
  grouped: boolean;
  /** Its entry in the config (party, reference, tax), when it has one. */
  entry?: StatementCustomer;
}

/** The customer an account's consumption is invoiced to: the customer listing it, else the account itself. */
export function customerOf(config: StatementConfig, accountId: number): Customer {
  const entry = config.customers.get(accountId);
  const group = entry?.group;
  if (group === undefined)
    return { id: String(accountId), accountIds: [accountId], grouped: false, ...(entry ? { entry } : {}) };
  return { id: group.customerId, accountIds: [...group.accountIds], grouped: true, entry: entry! };
}

/**
 * The customers of these accounts, each once, in the order of their first account (the accounts
 * of a grouped customer are all of its accounts, also those not among `accountIds`).
 */
export function customersOf(config: StatementConfig, accountIds: readonly number[]): Customer[] {
  const out = new Map<string, Customer>();
  for (const accountId of [...accountIds].sort((a, b) => a - b)) {
    const customer = customerOf(config, accountId);
    if (!out.has(customer.id)) out.set(customer.id, customer);
  }
  return [...out.values()].sort((a, b) => a.accountIds[0]! - b.accountIds[0]!);
}

/** The customer id of an issued document: its `customerId`, else (a document of one account, or issued before customers) its account id. */
export function documentCustomerId(document: { accountId: number; customerId?: string }): string {
  return document.customerId ?? String(document.accountId);
}

/** The accounts an issued document bills: its `accountIds`, else its one account. */
export function documentAccountIds(document: { accountId: number; accountIds?: number[] }): number[] {
  return document.accountIds ?? [document.accountId];
}

/** Whose a document is, in words: `account 7101`, or `customer acme, accounts 7101, 7102, 7103`. */
export function documentWhose(document: { accountId: number; customerId?: string; accountIds?: number[] }): string {
  return document.accountIds === undefined
    ? `account ${document.accountId}`
    : `customer ${documentCustomerId(document)}, accounts ${document.accountIds.join(", ")}`;
}
