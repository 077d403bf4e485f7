import { describe, expect, it } from "vitest";
import type { DocumentLine, InvoiceDocument } from "../../src/invoices/document/invoiceDocument.js";
import { partialCreditNoteOf, remainderCreditNoteOf } from "../../src/invoices/document/partialCreditNote.js";
import { invoiceFixture } from "../helpers/invoiceDocument.js";
import { jsonOf, type JsonOf } from "../helpers/jsonOf.js";
import { OCT_1 } from "../helpers/warehouse.js";

// A partial credit note by hand: the amount (before tax) spread over the tax categories by largest
// remainder, tax per category, never more in total than the invoice.

const OCT_16 = Date.UTC(2026, 9, 16) / 1000;
const NOV_1 = Date.UTC(2026, 10, 1) / 1000;

const line = (over: Partial<JsonOf<DocumentLine>>): JsonOf<DocumentLine> => ({
  unit: "CU",
  description: "Compute units (CU)",
  start: OCT_1,
  end: NOV_1,
  quantity: "2000",
  quantityUnit: "CU-hours",
  unitPrice: "0.05",
  priceUnit: "CU-hour",
  net: "100.00",
  taxCategory: "S",
  taxRatePercent: "19",
  ...over,
});

/** Two rates: CU 100.00 at 19 % (tax 19.00), SU 50.00 at 7 % (tax 3.50): net 150.00, tax 22.50, gross 172.50. */
const twoRates = invoiceFixture({
  lines: [
    line({}),
    line({
      unit: "SU",
      description: "Storage units (SU)",
      quantity: "1.25",
      quantityUnit: "SU-months",
      unitPrice: "40",
      priceUnit: "SU-month",
      net: "50.00",
      taxRatePercent: "7",
    }),
  ],
  taxes: [
    { category: "S", ratePercent: "19", base: "100.00", amount: "19.00" },
    { category: "S", ratePercent: "7", base: "50.00", amount: "3.50" },
  ],
  net: "150.00",
  tax: "22.50",
  gross: "172.50",
});

let seq = 0;
const credit = (invoice: InvoiceDocument, before: InvoiceDocument[], asked: { amount: string } | { lines: string[] }) =>
  partialCreditNoteOf(invoice, before, {
    number: `CN-2026-${String(++seq).padStart(5, "0")}`,
    issueDate: "2026-11-20",
    reason: "one machine was down on 3 Oct",
    credit: asked,
  });
/** A document's figures as the register records them (texts at the currency's decimals). */
const figures = (d: InvoiceDocument) =>
  jsonOf({
    taxes: d.taxes.map((t) => [t.ratePercent, t.base, t.amount]),
    net: d.net,
    tax: d.tax,
    gross: d.gross,
  });

describe("a partial credit note by amount", () => {
  it("spreads 10.00 over 19 % and 7 % in proportion to their net; the cent left goes to the larger remainder", () => {
    // 10.00 × 100/150 = 6.666… → 6.66 (remainder .666), 10.00 × 50/150 = 3.333… → 3.33 (remainder .333):
    // 9.99, the cent left to 19 % → 6.67 and 3.33. Tax 6.67 × 19 % = 1.2673 → 1.27; 3.33 × 7 % = 0.2331 → 0.23
    const note = credit(twoRates, [], { amount: "10.00" });
    expect(figures(note)).toEqual({
      taxes: [
        ["19", "-6.67", "-1.27"],
        ["7", "-3.33", "-0.23"],
      ],
      net: "-10.00",
      tax: "-1.50",
      gross: "-11.50",
    });
    expect(note.kind).toBe("creditNote");
    expect(note.partialCredit).toBe("amount");
    expect(note.corrects).toEqual({ number: "INV-2026-00001", issueDate: "2026-11-02" });
    expect(note.reason).toBe("one machine was down on 3 Oct");
    expect(note.paymentReference).toBeUndefined();
    expect(note.notes[0]).toBe(
      "This credit note credits 10.00 EUR before tax of invoice INV-2026-00001 of 2 Nov 2026, spread over its VAT rates " +
        "in proportion to their net, VAT added per rate; the rest of the invoice stays in force. Reason: one machine was down on 3 Oct",
    );
    expect(jsonOf(note.lines.map((l) => [l.description, l.quantity, l.unitPrice, l.net]))).toEqual([
      ["Credit on invoice INV-2026-00001, before tax at VAT 19 %", "-1", "6.67", "-6.67"],
      ["Credit on invoice INV-2026-00001, before tax at VAT 7 %", "-1", "3.33", "-3.33"],
    ]);
  });

  it("one cent: all of it to the category of the larger remainder, ties to the first", () => {
    // 0.01 × 100/150 = 0.0066… and × 50/150 = 0.0033…: both 0, the cent to 19 %; tax 0.01 × 19 % = 0.0019 → 0.00
    expect(figures(credit(twoRates, [], { amount: "0.01" }))).toEqual({
      taxes: [["19", "-0.01", "0.00"]],
      net: "-0.01",
      tax: "0.00",
      gross: "-0.01",
    });
  });

  it("never more than the invoice: 150.01 before tax of 150.00 is refused, naming what remains", () => {
    expect(() => credit(twoRates, [], { amount: "150.01" })).toThrow(
      /a credit of 150.01 EUR before tax is more than what remains of INV-2026-00001: 172.50 EUR with tax \(150.00 before tax\)/,
    );
    expect(() => credit(twoRates, [], { amount: "150.01" })).toThrow(
      expect.objectContaining({ code: "CREDIT_EXCEEDS" }),
    );
  });

  it.each(["0", "-5", "10.001", "ten", "1e3"])("refuses the amount %s", (amount) => {
    expect(() => credit(twoRates, [], { amount })).toThrow(expect.objectContaining({ code: "BAD_AMOUNT" }));
  });

  it("in a currency of 0 decimals, whole yen only", () => {
    const yen = invoiceFixture({
      currency: "JPY",
      decimals: 0,
      lines: [line({ net: "1000", unitPrice: "0.5" })],
      taxes: [{ category: "S", ratePercent: "10", base: "1000", amount: "100" }],
      net: "1000",
      tax: "100",
      gross: "1100",
      taxInAccountingCurrency: { currency: "EUR", rate: "0.0061", amount: "0.61" },
    });
    expect(() => credit(yen, [], { amount: "10.5" })).toThrow(expect.objectContaining({ code: "BAD_AMOUNT" }));
    // 333 × 10 % = 33.3 → 33
    expect(figures(credit(yen, [], { amount: "333" }))).toEqual({
      taxes: [["10", "-333", "-33"]],
      net: "-333",
      tax: "-33",
      gross: "-366",
    });
    // its VAT in EUR at the invoice's rate: −33 × 0.0061 = −0.2013 → −0.20
    expect(jsonOf(credit(yen, [], { amount: "333" }).taxInAccountingCurrency)).toEqual({
      currency: "EUR",
      rate: "0.0061",
      amount: "-0.20",
    });
  });

  it("credits in pieces add up to the invoice exactly: the tax of a category never goes below what remains", () => {
    // one line of 0.12 at 19 %: tax 0.0228 → 0.02, gross 0.14. Three credits of 0.03: 0.0057 → 0.01, 0.01, then
    // 0.01 > the 0.00 left → 0.00; the fourth takes the last 0.03 and the last tax, 0.00: 0.04 + 0.04 + 0.03 + 0.03 = 0.14
    const small = invoiceFixture({
      lines: [line({ quantity: "2.4", net: "0.12" })],
      taxes: [{ category: "S", ratePercent: "19", base: "0.12", amount: "0.02" }],
      net: "0.12",
      tax: "0.02",
      gross: "0.14",
    });
    const notes: InvoiceDocument[] = [];
    for (let i = 0; i < 4; i++) notes.push(credit(small, [...notes], { amount: "0.03" }));
    expect(notes.map((n) => String(n.gross))).toEqual(["-0.04", "-0.04", "-0.03", "-0.03"]);
    expect(() => credit(small, notes, { amount: "0.01" })).toThrow(
      /0.00 EUR with tax \(0.00 before tax\), 0.14 credited before/,
    );
  });
});

describe("a partial credit note by line", () => {
  it("credits the SU line whole, at its own rate; then 100.00 by amount goes all to 19 %, and nothing more", () => {
    // SU 50.00 × 7 % = 3.50: gross 53.50
    const su = credit(twoRates, [], { lines: ["SU"] });
    expect(su.partialCredit).toBe("lines");
    expect(jsonOf(su.lines.map((l) => [l.unit, l.quantity, l.net]))).toEqual([["SU", "-1.25", "-50.00"]]);
    expect(figures(su)).toEqual({ taxes: [["7", "-50.00", "-3.50"]], net: "-50.00", tax: "-3.50", gross: "-53.50" });
    expect(() => credit(twoRates, [su], { lines: ["SU"] })).toThrow(
      "SU of INV-2026-00001 was credited already, by " + su.number + ": a line is credited once",
    );
    // what remains is 100.00 at 19 %: 100.00 × 19 % = 19.00
    const rest = credit(twoRates, [su], { amount: "100.00" });
    expect(figures(rest)).toEqual({
      taxes: [["19", "-100.00", "-19.00"]],
      net: "-100.00",
      tax: "-19.00",
      gross: "-119.00",
    });
    expect(() => credit(twoRates, [su, rest], { lines: ["CU"] })).toThrow(
      expect.objectContaining({ code: "CREDIT_EXCEEDS" }),
    );
  });

  it("with a price period: UNIT@YYYY-MM-DD names the line; an unknown or ambiguous one names the lines there are", () => {
    const periods = invoiceFixture({
      lines: [line({ end: OCT_16, net: "40.00" }), line({ start: OCT_16, net: "60.00" })],
      taxes: [{ category: "S", ratePercent: "19", base: "100.00", amount: "19.00" }],
      net: "100.00",
      tax: "19.00",
      gross: "119.00",
    });
    for (const name of ["SU", "CU@2026-10-02"])
      expect(() => credit(periods, [], { lines: [name] })).toThrow(
        `INV-2026-00001 has no line "${name}": its lines are CU@2026-10-01, CU@2026-10-16`,
      );
    // CU alone fits both lines: refused naming them as they are typed
    expect(() => credit(periods, [], { lines: ["CU"] })).toThrow(
      expect.objectContaining({
        code: "AMBIGUOUS_LINE",
        message: expect.stringContaining(
          `"CU" names 2 lines of INV-2026-00001: CU@2026-10-01, CU@2026-10-16: name one of them`,
        ),
      }),
    );
    // 60.00 × 19 % = 11.40
    expect(figures(credit(periods, [], { lines: ["CU@2026-10-16"] }))).toEqual({
      taxes: [["19", "-60.00", "-11.40"]],
      net: "-60.00",
      tax: "-11.40",
      gross: "-71.40",
    });
  });
});

describe("a correction of an invoice credited in part", () => {
  it("cancels what remains: with the partial credit notes, the whole invoice", () => {
    // 10.00 credited (-11.50); what remains: 93.33 at 19 % (tax 19.00 − 1.27 = 17.73) and 46.67 at 7 % (3.50 − 0.23 = 3.27)
    const part = credit(twoRates, [], { amount: "10.00" });
    const rest = remainderCreditNoteOf(twoRates, [part], {
      number: "CN-2026-09999",
      issueDate: "2026-11-21",
      reason: "late hours",
    });
    expect(figures(rest)).toEqual({
      taxes: [
        ["19", "-93.33", "-17.73"],
        ["7", "-46.67", "-3.27"],
      ],
      net: "-140.00",
      tax: "-21.00",
      gross: "-161.00",
    });
    // 11.50 + 161.00 = 172.50, the invoice's gross
    expect(rest.partialCredit).toBeUndefined();
    expect(rest.notes[0]).toMatch(
      /^This credit note cancels what remains of invoice INV-2026-00001 of 2 Nov 2026 after credit note CN-/,
    );
  });
});
