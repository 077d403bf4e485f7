import type { BillingReport } from "./billingReport.js";
import { qualityWarnings, type DataQuality } from "./dataQuality.js";
import { Exact } from "./exact.js";
import type { PriceList } from "./prices.js";

/**
 * The part of a report about one account, for a statement made for that account alone
 * (docs/formulas.md): its lines, money and invoice; of the data quality only what is its own (its
 * missing hours, its impossible values) and the warnings of those; its own price override
 * only; no inputs, file counts or fingerprints of the whole load (they count other
 * accounts' files). Whatever a statement renders from this holds nothing of another account.
 */
export function accountReport(report: BillingReport, accountId: number): BillingReport {
  const keep = report.lines.map((l, i) => [l, i] as const).filter(([l]) => l.accountId === accountId);
  const invoices = report.invoices?.filter((inv) => inv.accountId === accountId);
  const params = { ...report.params, accountId };
  const quality: DataQuality = {
    missingHours: report.quality.missingHours.filter((m) => m.accountId === accountId),
    impossibleValues: report.quality.impossibleValues.filter((v) => v.accountId === accountId),
    emptyPeriod: keep.length === 0,
    // Not per account: machine types and empty records are counted over the load, skipped files and duplicates are its files.
    unbilledMachineTypes: [],
    emptyRecords: { machineHours: 0, cloudSpaceHours: 0 },
    skipped: [],
    duplicates: [],
  };
  return {
    ...report,
    params,
    lines: keep.map(([l]) => l),
    money: report.money ? keep.map(([, i]) => report.money![i]) : undefined,
    invoices,
    amountDue: invoices?.reduce((a, inv) => a.add(inv.amountDue), Exact.ZERO),
    prices: report.prices ? ownPrices(report.prices, accountId) : undefined,
    quality,
    warnings: qualityWarnings(quality, params),
    load: undefined,
    inputs: [],
    data: undefined,
    statementOf: accountId,
  };
}

/** A price list with the account's own override alone (the others' are other accounts' terms). */
function ownPrices(list: PriceList, accountId: number): PriceList {
  const own = list.accounts.get(accountId);
  return { ...list, accounts: new Map(own ? [[accountId, own]] : []) };
}
