import type { InvoiceDocument } from "./document/invoiceDocument.js";
import { Exact } from "../billing/exact.js";
import { documentWhose } from "./document/customers.js";

/** The figures of a document: what a customer pays and why, without its number, dates, parties or words. */
function figuresOf(d: InvoiceDocument): unknown {
  return {
    currency: d.currency,
    lines: d.lines.map((l) => [
      l.unit,
      l.start,
      l.end,
      l.quantity,
      l.unitPrice,
      l.net,
      l.taxCategory,
      l.taxRatePercent,
    ]),
    // a contract's lines (absent without a contract, so documents issued before compare as they did)
    allowances: d.allowances?.map((a) => [a.unit, a.start, a.end, a.percent, a.base, a.amount]),
    commitment: d.commitment && [d.commitment.start, d.commitment.end, d.commitment.committed, d.commitment.amount],
    taxes: d.taxes.map((t) => [t.category, t.ratePercent, t.base, t.amount]),
    totals: [d.net, d.tax, d.gross],
  };
}

/** True when two documents bill the same: the same lines, quantities, prices, taxes and totals, in one currency. */
export function sameFigures(a: InvoiceDocument, b: InvoiceDocument): boolean {
  return JSON.stringify(figuresOf(a)) === JSON.stringify(figuresOf(b));
}

/** `+166.30` / `-12.00`: `now − issued` of two amounts, at the currency's decimals. */
function change(issued: Exact, now: Exact, decimals: number): string {
  const difference = now.sub(issued);
  const text = difference.toFixed(decimals);
  return text.startsWith("-") ? text : `+${text}`;
}

/**
 * How an issued invoice and today's figures of it differ, in one line: the amount due issued and
 * now, by how much, net and tax beside it, and the lines whose quantity or price changed.
 */
export function differenceLine(issued: InvoiceDocument, now: InvoiceDocument): string {
  const money = (d: InvoiceDocument, amount: Exact) => `${amount} ${d.currency}`;
  if (issued.currency !== now.currency) {
    return `${issued.number} (${documentWhose(issued)}): issued in ${issued.currency} (amount due ${issued.gross}), the price list now gives ${money(now, now.gross)}`;
  }
  const parts = [
    `${issued.number} (${documentWhose(issued)}): amount due ${money(issued, issued.gross)} issued, ${now.gross} now (${change(issued.gross, now.gross, issued.decimals)})`,
    `net ${issued.net} → ${now.net}, tax ${issued.tax} → ${now.tax}`,
  ];
  const key = (l: InvoiceDocument["lines"][number]) => `${l.accountId ?? ""} ${l.unit} ${l.start} ${l.end}`;
  const before = new Map(issued.lines.map((l) => [key(l), l]));
  const changed = now.lines.flatMap((l) => {
    const was = before.get(key(l));
    const of = l.accountId === undefined ? "" : `account ${l.accountId} `;
    if (was === undefined) return [`${of}${l.unit} new line ${l.quantity} ${l.quantityUnit}`];
    if (was.quantity === l.quantity && was.unitPrice === l.unitPrice) return [];
    return [
      `${of}${l.unit} ${was.quantity} → ${l.quantity} ${l.quantityUnit}${was.unitPrice === l.unitPrice ? "" : ` at ${was.unitPrice} → ${l.unitPrice}`}`,
    ];
  });
  const gone = issued.lines
    .filter((l) => !now.lines.some((n) => key(n) === key(l)))
    .map(
      (l) =>
        `${l.accountId === undefined ? "" : `account ${l.accountId} `}${l.unit} line gone (${l.quantity} ${l.quantityUnit})`,
    );
  if (changed.length + gone.length > 0) parts.push([...changed, ...gone].join(", "));
  const contract = (d: InvoiceDocument) =>
    JSON.stringify([d.allowances?.map((a) => [a.reason, a.amount]), d.commitment?.amount]);
  if (contract(issued) !== contract(now)) {
    const words = (d: InvoiceDocument) =>
      [
        ...(d.allowances ?? []).map((a) => `${a.reason} −${a.amount}`),
        ...(d.commitment ? [`shortfall ${d.commitment.amount}`] : []),
      ].join(", ") || "none";
    parts.push(`contract lines ${words(issued)} → ${words(now)}`);
  }
  return parts.join("; ");
}
