import { describe, expect, it } from "vitest";
import { Exact } from "../../src/billing/exact.js";
import { receivableFacts, receivableOf } from "../../src/invoices/receivables.js";

// What a finance team reads of an invoice in `invoices list`: what is credited and what remains of
// it in force (tax included), what is still owed, and its status. Credit notes take the invoice's
// gross off what remains; what they give back in money (their gross less the prepaid credit they
// give back) comes off what is owed. Figures by hand in each row.

const NOW = Date.parse("2026-11-20T00:00:00Z") / 1000; // before the due date: open, not overdue
const invoice = (gross: string, prepaid?: string) => ({
  number: "INV-1",
  kind: "invoice" as const,
  gross: Exact.amount(gross),
  decimals: 2,
  dueDate: "2026-12-02",
  ...(prepaid === undefined ? {} : { prepaid: { amount: Exact.amount(prepaid) } }),
});

const CASES: {
  name: string;
  gross: string;
  prepaid?: string;
  credits: { gross: string; prepaid?: string }[];
  paid: string[];
  expect: { credited: string; remaining: string; outstanding: string; status: string };
}[] = [
  {
    // 606.60 − 10.00 = 596.60 in force; 606.60 − 100.00 prepaid − 10.00 = 496.60 owed
    name: "a partial credit note of an invoice that consumed prepaid credit",
    gross: "606.60",
    prepaid: "100.00",
    credits: [{ gross: "-10.00" }],
    paid: [],
    expect: { credited: "10.00", remaining: "596.60", outstanding: "496.60", status: "open" },
  },
  {
    // fully prepaid 100.00, 10.00 credited: 90.00 in force, 10.00 owed to the customer; not cancelled
    name: "a partial credit note of an invoice paid in full by prepaid credit",
    gross: "100.00",
    prepaid: "100.00",
    credits: [{ gross: "-10.00" }],
    paid: [],
    expect: { credited: "10.00", remaining: "90.00", outstanding: "-10.00", status: "paid" },
  },
  {
    // a correction gives the 614.19 of prepaid credit back: the invoice is cancelled (0 in force), nothing owed
    name: "a full correction of an invoice paid by prepaid credit",
    gross: "614.19",
    prepaid: "614.19",
    credits: [{ gross: "-614.19", prepaid: "-614.19" }],
    paid: [],
    expect: { credited: "614.19", remaining: "0.00", outstanding: "0.00", status: "credited" },
  },
  {
    // 275.15 − 11.90 − 78.30 = 184.95 in force and owed; 100.00 paid leaves 84.95
    name: "two partial credit notes and a payment",
    gross: "275.15",
    credits: [{ gross: "-11.90" }, { gross: "-78.30" }],
    paid: ["100.00"],
    expect: { credited: "90.20", remaining: "184.95", outstanding: "84.95", status: "open" },
  },
];

describe("an invoice's receivable after credit notes", () => {
  it.each(CASES)("$name", (c) => {
    const facts = receivableFacts(
      c.paid.map((amount) => ({ number: "INV-1", amount: Exact.amount(amount) }) as never),
      c.credits.map((cn, i) => ({ number: `CN-${i + 1}`, corrects: "INV-1", ...cn })),
      [],
    );
    const r = receivableOf(invoice(c.gross, c.prepaid), facts, NOW);
    // each amount an Exact, printed at the currency's decimals
    expect({
      credited: String(r.credited),
      remaining: String(r.remaining),
      outstanding: r.outstanding.toJSON(),
      status: r.status,
    }).toEqual(c.expect);
  });
});
