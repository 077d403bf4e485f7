import { Exact } from "../../billing/exact.js";
import { commitmentShortfall, contractAllowances, type ContractTerms } from "./contractTerms.js";
import { sumOf } from "./documentTaxes.js";
import type { Invoice } from "../../billing/invoice.js";
import type { DocumentLine, InvoiceDocument } from "./invoiceDocument.js";
import type { TaxRule } from "./taxRule.js";

/** What a net is taxed on beside the lines: an allowance (negative) or the shortfall line. */
type Taxed = Pick<DocumentLine, "taxCategory" | "taxRatePercent" | "net">;

/** A document's contract parts: its optional fields, and what they add to each tax category's base. */
export interface ContractParts {
  fields: Pick<InvoiceDocument, "allowances" | "commitment" | "prepaid">;
  taxed: Taxed[];
}

/**
 * A contract applied to an invoice's lines, in order: the discounts (allowances), then the
 * commitment's shortfall on the net after discounts. No contract, or nothing that applies: no
 * field at all, so a document without a contract keeps the shape (and the bytes) it had before.
 */
export function contractParts(
  terms: ContractTerms | undefined,
  invoice: Pick<Invoice, "start" | "end" | "decimals">,
  lines: readonly DocumentLine[],
  tax: TaxRule,
): ContractParts {
  if (terms === undefined) return { fields: {}, taxed: [] };
  const { decimals } = invoice;
  const allowances = contractAllowances(terms, lines, decimals);
  const discounted = allowances.map((a) => ({ ...a, net: Exact.amount(`-${a.amount}`) }));
  const afterDiscounts = sumOf(
    [...lines, ...discounted].map((l) => l.net),
    decimals,
  );
  const commitment = commitmentShortfall(terms, invoice, afterDiscounts, decimals, tax);
  return {
    fields: {
      ...(allowances.length > 0 ? { allowances } : {}),
      ...(commitment ? { commitment } : {}),
    },
    taxed: [...discounted, ...(commitment ? [{ ...commitment, net: commitment.amount }] : [])],
  };
}

/** The contract parts of a credit note cancelling `original`: its allowances, shortfall and prepaid credit negated. */
export function negatedContract(original: InvoiceDocument, negated: (amount: Exact) => Exact): ContractParts {
  const allowances = original.allowances?.map((a) => ({ ...a, base: negated(a.base), amount: negated(a.amount) }));
  const commitment = original.commitment && {
    ...original.commitment,
    committed: negated(original.commitment.committed),
    amount: negated(original.commitment.amount),
  };
  const prepaid = original.prepaid && {
    amount: negated(original.prepaid.amount),
    credits: original.prepaid.credits.map((c) => ({ id: c.id, amount: negated(c.amount) })),
  };
  return {
    fields: {
      ...(allowances ? { allowances } : {}),
      ...(commitment ? { commitment } : {}),
      ...(prepaid ? { prepaid } : {}),
    },
    // an allowance lowers its category's base: on a credit note, whose amounts are negative, it raises it
    taxed: [
      ...(allowances ?? []).map((a) => ({ ...a, net: negated(a.amount) })),
      ...(commitment ? [{ ...commitment, net: commitment.amount }] : []),
    ],
  };
}

/** Σ of the document's lines and its shortfall line: UBL's LineExtensionAmount (BT-106). */
export function linesTotal(doc: Pick<InvoiceDocument, "lines" | "commitment" | "decimals">): Exact {
  return sumOf([...doc.lines.map((l) => l.net), ...(doc.commitment ? [doc.commitment.amount] : [])], doc.decimals);
}

/** Σ of the document's allowances (BT-107), "0" at the decimals when none. */
export function allowancesTotal(doc: Pick<InvoiceDocument, "allowances" | "decimals">): Exact {
  return sumOf(
    (doc.allowances ?? []).map((a) => a.amount),
    doc.decimals,
  );
}

/** gross − prepaid: what is left to pay (BT-115, PayableAmount). */
export function amountDue(doc: Pick<InvoiceDocument, "gross" | "prepaid" | "decimals">): Exact {
  return doc.prepaid === undefined ? doc.gross : doc.gross.sub(doc.prepaid.amount).fixed(doc.decimals);
}
