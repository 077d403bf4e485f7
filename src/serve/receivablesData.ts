import { Exact } from "../billing/exact.js";
import { clockNow } from "../base/clock.js";
import { readReceivables } from "../invoices/receivables.js";
import type { Warehouse } from "../store/types.js";

/** The ageing buckets of what is outstanding, by days past the due date. */
export const AGEING = ["not yet due", "0–30", "31–60", "61–90", "90+"] as const;

/** What one customer owes in one currency: in all, and by age. */
export interface CustomerReceivables {
  accountId: number;
  customer: string;
  currency: string;
  decimals: number;
  /** Outstanding in all (decimal text). */
  outstanding: string;
  /** Outstanding per bucket of `AGEING`, in its order (decimal texts). */
  ageing: string[];
  /** Documents with something outstanding. */
  documents: number;
}

/** The bucket of `AGEING` of a document this many days past its due date (0 on the due date). */
export function ageingBucket(daysPastDue: number): number {
  if (daysPastDue <= 0) return 0;
  if (daysPastDue <= 30) return 1;
  if (daysPastDue <= 60) return 2;
  return daysPastDue <= 90 ? 3 : 4;
}

/**
 * What each customer (an account's customer of the register) owes at `nowEpoch`, per currency:
 * the outstanding of its invoices not paid or credited (what they were paid too much is left
 * out), in all and by age; most owed first.
 */
export async function receivablesData(store: Warehouse, nowEpoch = clockNow()): Promise<CustomerReceivables[]> {
  const entries = await readReceivables(store.connection, {}, nowEpoch);
  const rows = new Map<string, { row: CustomerReceivables; sums: Exact[] }>();
  for (const { document: d, receivable: r } of entries) {
    const outstanding = r.outstanding;
    if (d.kind !== "invoice" || outstanding.compare(Exact.ZERO) <= 0) continue;
    const key = `${d.accountId}|${d.currency}`;
    const held = rows.get(key) ?? {
      row: {
        accountId: d.accountId,
        customer: d.customer.legalName,
        currency: d.currency,
        decimals: d.decimals,
        outstanding: "",
        ageing: [],
        documents: 0,
      },
      sums: AGEING.map(() => Exact.ZERO),
    };
    const bucket = ageingBucket(r.daysPastDue);
    held.sums[bucket] = held.sums[bucket]!.add(outstanding);
    held.row.documents++;
    rows.set(key, held);
  }
  const result = [...rows.values()].map(({ row, sums }) => ({
    ...row,
    outstanding: sums.reduce((a, b) => a.add(b), Exact.ZERO).toFixed(row.decimals),
    ageing: sums.map((s) => s.toFixed(row.decimals)),
  }));
  return result.sort((a, b) => Number(b.outstanding) - Number(a.outstanding) || a.accountId - b.accountId);
}
