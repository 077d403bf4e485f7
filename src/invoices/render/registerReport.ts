import { isoUtc } from "../../base/time.js";
import { Exact } from "../../billing/exact.js";
import type { DocumentStatus, ReceivableEntry } from "../receivables.js";
import { csvField } from "../../export/csvField.js";
import { documentAccountIds, documentCustomerId, documentWhose } from "../document/customers.js";
import { guardFormula } from "../../export/toBillingCsv.js";
import { amountDue } from "../document/contractLines.js";

/** A document of the register as `invoices list --format json` gives it (docs/cli.md). */
export interface RegisterListItem {
  number: string;
  kind: "invoice" | "creditNote";
  /** The account billed; null on a document of several accounts (a customer's: `accountIds`). */
  accountId: number | null;
  /** Whose invoice it is: the statement config's customer id (`customers.<id>.accounts`), else the account id as text. */
  customerId: string;
  /** The accounts it bills, ascending. */
  accountIds: number[];
  /** The billed period, half-open, ISO 8601 UTC. */
  start: string;
  end: string;
  issueDate: string;
  /** `YYYY-MM-DD`: the issue date plus the payment terms (a credit note: the terms of the invoice it cancels). */
  dueDate: string;
  currency: string;
  /** At the currency's decimals, as recorded (`"1105.23"` in JSON), negative on a credit note; gross is the amount due. */
  net: Exact;
  tax: Exact;
  gross: Exact;
  /** Prepaid credit consumed (an invoice) or given back (a credit note): the amount due is gross − prepaid. Only when there is some. */
  prepaid?: Exact;
  /** Σ of the payments recorded (reversals deducted). */
  paid: Exact;
  /** gross − prepaid − credit notes − payments (0 on a credit note; negative: paid too much). */
  outstanding: Exact;
  /** `open`, `paid`, `overdue` (past due with something outstanding) or `credited` (cancelled by credit notes; a credit note). */
  status: DocumentStatus;
  /** Whether an access point accepted its e-invoice (`invoices send`). */
  delivered: boolean;
  /** The invoice a credit note cancels or a new invoice replaces; the credit note that cancels a corrected invoice. */
  corrects: string | null;
  correctedBy: string | null;
  /** On an invoice: Σ of its credit notes' gross, positive; null on a credit note. */
  credited: Exact | null;
  /** On an invoice: gross − credited, what remains in force (partial credit notes leave the rest); null on a credit note. */
  remaining: Exact | null;
  /** Hours of the period accepted as missing, ISO 8601 UTC. */
  missingHours: string[];
  files: { name: string; sha256: string }[];
}

/** A register entry as a list item (the documented JSON shape, keys in that order). */
export function registerListItem(e: ReceivableEntry): RegisterListItem {
  const d = e.document;
  const r = e.receivable;
  return {
    number: d.number,
    kind: d.kind,
    accountId: documentAccountIds(d).length === 1 ? d.accountId : null,
    customerId: documentCustomerId(d),
    accountIds: documentAccountIds(d),
    start: isoUtc(d.start),
    end: isoUtc(d.end),
    issueDate: d.issueDate,
    dueDate: d.dueDate,
    currency: d.currency,
    net: d.net,
    tax: d.tax,
    gross: d.gross,
    ...(d.prepaid ? { prepaid: d.prepaid.amount } : {}),
    paid: r.paid,
    outstanding: r.outstanding,
    status: r.status,
    delivered: r.delivered,
    corrects: d.corrects?.number ?? null,
    correctedBy: e.correctedBy,
    credited: r.credited,
    remaining: r.remaining,
    missingHours: d.missingHours.map(isoUtc),
    files: e.files,
  };
}

/** The register as JSON: an array, one object per document, oldest first. */
export function registerToJson(entries: readonly ReceivableEntry[]): string {
  return `${JSON.stringify(entries.map(registerListItem), null, 2)}\n`;
}

const CSV_COLUMNS = [
  "number",
  "kind",
  "account_id",
  "start",
  "end",
  "issue_date",
  "due_date",
  "currency",
  "net",
  "tax",
  "gross",
  "paid",
  "outstanding",
  "status",
  "delivered",
  "corrects",
  "corrected_by",
  "credited",
  "remaining",
  "missing_hours",
  "files",
  "customer_id",
  "account_ids",
] as const;

/** The register as CSV (RFC 4180, CRLF): a row per document; missing hours and files (`name sha256`) separated by `;`. */
export function registerToCsv(entries: readonly ReceivableEntry[]): string {
  const rows = entries
    .map(registerListItem)
    .map((i) =>
      [
        guardFormula(i.number),
        i.kind,
        i.accountId === null ? "" : String(i.accountId),
        i.start,
        i.end,
        i.issueDate,
        i.dueDate,
        i.currency,
        i.net,
        i.tax,
        i.gross,
        i.paid,
        i.outstanding,
        i.status,
        String(i.delivered),
        guardFormula(i.corrects ?? ""),
        guardFormula(i.correctedBy ?? ""),
        i.credited ?? "",
        i.remaining ?? "",
        i.missingHours.join(";"),
        i.files.map((f) => `${guardFormula(f.name)} ${f.sha256}`).join(";"),
        guardFormula(i.customerId),
        i.accountIds.join(";"),
      ]
        .map((field) => csvField(String(field)))
        .join(","),
    );
  return `${[CSV_COLUMNS.join(","), ...rows].join("\r\n")}\r\n`;
}

/**
 * The register as text: a line per document, its amounts, what corrects what, its status (with
 * what is outstanding, and the days past due when overdue) and whether it was delivered; then the
 * amounts due added up per currency (credit notes negative).
 */
export function registerToText(entries: readonly ReceivableEntry[]): string {
  if (entries.length === 0) return "no document issued\n";
  const rows = entries.map((e) => {
    const d = e.document;
    const r = e.receivable;
    const status =
      r.status === "overdue"
        ? `overdue ${r.daysPastDue} d, ${r.outstanding} outstanding`
        : r.status === "open"
          ? `open, ${r.outstanding} outstanding`
          : r.status;
    const links = [
      ...(d.corrects
        ? [
            `${d.kind === "invoice" ? "replaces" : d.partialCredit ? "credits part of" : "cancels"} ${d.corrects.number}`,
          ]
        : []),
      ...(e.correctedBy ? [`corrected by ${e.correctedBy} and ${e.replacedBy}`] : []),
      ...(e.correctedBy === null && r.credited !== null && !r.credited.isZero()
        ? [`credited ${r.credited}, ${r.remaining} remains`]
        : []),
      ...(d.missingHours.length > 0 ? [`${d.missingHours.length} h missing accepted`] : []),
    ];
    return [
      d.number,
      d.kind === "invoice" ? "invoice" : "credit note",
      documentWhose(d),
      `${isoUtc(d.start).slice(0, 10)}..${isoUtc(d.end - 1).slice(0, 10)}`,
      d.issueDate,
      `due ${d.dueDate}`,
      `net ${d.net}`,
      `tax ${d.tax}`,
      d.prepaid
        ? `gross ${d.gross}, paid in advance ${d.prepaid.amount}, amount due ${amountDue(d)} ${d.currency}`
        : `amount due ${d.gross} ${d.currency}`,
      status,
      r.delivered ? "delivered" : "not delivered",
      links.join("; "),
    ];
  });
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const totals = new Map<string, { sum: Exact; decimals: number }>();
  for (const { document: d } of entries) {
    const total = totals.get(d.currency) ?? { sum: Exact.ZERO, decimals: d.decimals };
    totals.set(d.currency, { ...total, sum: total.sum.add(amountDue(d)) });
  }
  const sums = [...totals].map(([currency, t]) => `${t.sum.toFixed(t.decimals)} ${currency}`).join(", ");
  return (
    `${rows
      .map((r) =>
        r
          .map((c, i) => c.padEnd(widths[i]!))
          .join("  ")
          .trimEnd(),
      )
      .join("\n")}\n` +
    `${entries.length} document${entries.length === 1 ? "" : "s"}; amount due, credit notes deducted: ${sums}\n`
  );
}
