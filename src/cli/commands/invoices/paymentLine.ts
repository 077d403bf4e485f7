import type { PaymentOutcome } from "../../../invoices/recordPayment.js";

const FIT_WORDS = {
  exact: "paid in full",
  partial: "a partial payment",
  over: "an over-payment",
  reversal: "a reversal",
} as const;

/** A payment recorded, as `pay` and `payments` print it: how it fits the invoice, and what is outstanding or paid too much. */
export const paymentLine = (p: PaymentOutcome): string =>
  `${p.number}: ${p.amount} ${p.currency} recorded, ${FIT_WORDS[p.fit]}` +
  (String(p.outstanding).startsWith("-")
    ? `: paid ${String(p.outstanding).slice(1)} ${p.currency} too much`
    : p.fit === "exact"
      ? ""
      : `: ${p.outstanding} ${p.currency} outstanding`);
