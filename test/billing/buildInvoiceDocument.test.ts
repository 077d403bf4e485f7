import { describe, expect, it } from "vitest";
import {
  bill,
  buildInvoiceDocument,
  creditNoteOf,
  DEFAULT_UNITS,
  invoiceOf,
  monthPeriod,
  parsePrices,
  parseStatementConfig,
  type AccountLine,
  type Quantities,
} from "../../src/internal.js";
import { accountHour, HOUR, memoryWarehouse, OCT_1, vm } from "../helpers/warehouse.js";
import { jsonOf } from "../helpers/jsonOf.js";

const OCTOBER = monthPeriod("2026-10");

function account(unitHours: Partial<Quantities>, accountId = 7): AccountLine {
  const q = { CU: 0, SU: 0, TU: 0, NU: 0, VCU: 0, MU: 0, WU: 0, PIU: 0, ...unitHours } as Quantities;
  return {
    level: "account",
    accountId,
    cloudspaceId: null,
    machineId: null,
    hourEpoch: null,
    name: "Lumière",
    sampleHours: 1,
    quantities: q,
    cuSumOfMachines: q.CU,
    gatewayPiuHours: 0,
    unitHours: q,
    cuAllocated: q.CU,
    cuAllocatedHours: q.CU,
    ownNicNu: 0,
  };
}

const issuer = {
  legalName: "Nordlicht Cloud Services GmbH",
  address: ["Hafenstraße 12", "20457 Hamburg"],
  country: "DE",
  vatId: "DE123456789",
  peppolId: "9930:DE123456789",
  bank: ["IBAN DE89 3704 0044 0532 0130 00", "BIC HASPDEHHXXX"],
};
const customer = {
  legalName: "Lumière Énergie SARL",
  address: ["12 rue de la Gare", "69001 Lyon"],
  country: "FR",
  vatId: "FR12345678901",
  peppolId: "9957:FR12345678901",
};

/** A config whose customer 7 is taxed by `tax`. */
function configWith(tax: object, currencyIssuerTax: object = { category: "S", ratePercent: 19 }) {
  return parseStatementConfig(
    {
      issuer: { ...issuer, tax: currencyIssuerTax },
      customers: { 7: { ...customer, tax } },
      // an invoice in JPY also gives its VAT in EUR, at the rate of its issue date
      fxRates: { JPY: { "2026-11-02": "0.0061" } },
    },
    "statement.yaml",
  );
}

// CU 1234.5 CU-hours × 0.0125 = 15.43125 → 15.43; SU 1800 SU-hours = 2.5 SU-months × 36 = 90.00; NU 0.75 TiB × 5.99 = 4.4925 → 4.49.
// Net 15.43 + 90.00 + 4.49 = 109.92.
const EUR = parsePrices({ currency: "EUR", prices: { CU: "0.0125", SU: { perMonth: 36 }, NU: "5.99" } }, "prices.yaml");
const eurInvoice = invoiceOf(account({ CU: 1234.5, SU: 1800, NU: 0.75 }), EUR, DEFAULT_UNITS, OCTOBER);
const REVERSE =
  "Reverse charge: VAT to be accounted for by the customer (Article 196 of Council Directive 2006/112/EC).";
const HOSPITAL = "Article 132(1)(b) of Directive 2006/112/EC (hospital care)";

describe("an invoice document: tax per category, gross = net + tax", () => {
  it("carries the lines as the invoice rounded them, with the quantities a reader multiplies", () => {
    const doc = buildInvoiceDocument({
      invoice: eurInvoice,
      config: configWith({ category: "S", ratePercent: 19 }),
      issueDate: "2026-11-02",
      number: "INV-2026-00001",
    });
    expect(
      jsonOf(doc.lines.map((l) => [l.description, l.quantity, l.quantityUnit, l.unitPrice, l.priceUnit, l.net])),
    ).toEqual([
      ["Compute units (CU)", "1234.5", "CU-hours", "0.0125", "CU-hour", "15.43"],
      ["Storage units (SU, allocated disk)", "2.5", "SU-months", "36", "SU-month", "90.00"],
      ["Network units (NU, external traffic)", "0.75", "TiB", "5.99", "TiB", "4.49"],
    ]);
    expect(doc).toMatchObject({
      number: "INV-2026-00001",
      kind: "invoice",
      accountId: 7,
      start: OCTOBER.start,
      end: OCTOBER.end,
      issueDate: "2026-11-02",
      dueDate: "2026-12-02",
      currency: "EUR",
      decimals: 2,
      customer: { ...customer, reference: "7" },
      issuer: { legalName: issuer.legalName, country: "DE", peppolId: issuer.peppolId },
      payment: issuer.bank,
      missingHours: [],
    });
  });

  it.each([
    // 109.92 × 19% = 20.8848 → 20.88
    {
      what: "standard rated 19%",
      tax: { category: "S", ratePercent: 19 },
      taxes: [["S", "19", "109.92", "20.88", undefined]],
      total: "20.88",
      gross: "130.80",
      notes: [],
    },
    // 109.92 × 7.7% = 8.46384 → 8.46
    {
      what: "a rate with a decimal, 7.7%",
      tax: { category: "S", ratePercent: "7.7" },
      taxes: [["S", "7.7", "109.92", "8.46", undefined]],
      total: "8.46",
      gross: "118.38",
      notes: [],
    },
    {
      what: "reverse charge",
      tax: { category: "AE" },
      taxes: [["AE", "0", "109.92", "0.00", "Reverse charge"]],
      total: "0.00",
      gross: "109.92",
      notes: [REVERSE],
    },
    {
      what: "exempt, with its reason",
      tax: { category: "E", exemptionReason: HOSPITAL },
      taxes: [["E", "0", "109.92", "0.00", HOSPITAL]],
      total: "0.00",
      gross: "109.92",
      notes: [`Exempt from VAT: ${HOSPITAL}.`],
    },
    {
      what: "zero rated",
      tax: { category: "Z" },
      taxes: [["Z", "0", "109.92", "0.00", undefined]],
      total: "0.00",
      gross: "109.92",
      notes: [],
    },
    {
      what: "outside the scope of VAT",
      tax: { category: "O" },
      taxes: [["O", "0", "109.92", "0.00", "Not subject to VAT"]],
      total: "0.00",
      gross: "109.92",
      notes: ["Not subject to VAT: outside the scope of VAT."],
    },
  ])("EUR, $what", ({ tax, taxes, total, gross, notes }) => {
    const doc = buildInvoiceDocument({
      invoice: eurInvoice,
      config: configWith(tax),
      issueDate: "2026-11-02",
      number: "INV-2026-00001",
    });
    expect(
      doc.taxes.map((t) => [t.category, t.ratePercent, String(t.base), String(t.amount), t.exemptionReason]),
    ).toEqual(taxes);
    expect(doc.lines.every((l) => l.taxCategory === taxes[0]![0] && l.taxRatePercent === taxes[0]![1])).toBe(true);
    expect(jsonOf([doc.net, doc.tax, doc.gross])).toEqual(["109.92", total, gross]);
    expect(doc.notes).toEqual(notes);
  });

  it.each([
    // 84 × 0.125 = 10.50; 21% = 2.205, a tie: half-even keeps 2.20 (half-up would say 2.21)
    {
      what: "EUR, a tie rounds to the even cent, down",
      currency: "EUR",
      price: "0.125",
      cu: 84,
      rate: 21,
      net: "10.50",
      tax: "2.20",
      gross: "12.70",
    },
    // 92 × 0.125 = 11.50; 21% = 2.415, a tie: 2.42
    {
      what: "EUR, a tie rounds to the even cent, up",
      currency: "EUR",
      price: "0.125",
      cu: 92,
      rate: 21,
      net: "11.50",
      tax: "2.42",
      gross: "13.92",
    },
    // 105 × 1 = 105 yen; 10% = 10.5, a tie: 10
    {
      what: "JPY, a tie rounds to the even yen, down",
      currency: "JPY",
      price: "1",
      cu: 105,
      rate: 10,
      net: "105",
      tax: "10",
      gross: "115",
    },
    // 115 yen; 10% = 11.5: 12
    {
      what: "JPY, a tie rounds to the even yen, up",
      currency: "JPY",
      price: "1",
      cu: 115,
      rate: 10,
      net: "115",
      tax: "12",
      gross: "127",
    },
  ])("$what", ({ currency, price, cu, rate, net, tax, gross }) => {
    const invoice = invoiceOf(
      account({ CU: cu }),
      parsePrices({ currency, prices: { CU: price } }),
      DEFAULT_UNITS,
      OCTOBER,
    );
    const doc = buildInvoiceDocument({
      invoice,
      config: configWith({ category: "S", ratePercent: rate }),
      issueDate: "2026-11-02",
      number: "X-1",
    });
    expect(jsonOf([doc.net, doc.tax, doc.gross, doc.taxes[0]!.amount])).toEqual([net, tax, gross, tax]);
  });

  it("JPY: whole yen per line, tax and gross", () => {
    // CU 1234.5 × 1.9 = 2345.55 → 2346; SU 2.5 SU-months × 5400 = 13500; net 15846; 10% = 1584.6 → 1585; gross 17431
    const invoice = invoiceOf(
      account({ CU: 1234.5, SU: 1800 }),
      parsePrices({ currency: "JPY", prices: { CU: "1.9", SU: { perMonth: 5400 } } }),
      DEFAULT_UNITS,
      OCTOBER,
    );
    const doc = buildInvoiceDocument({
      invoice,
      config: configWith({ category: "S", ratePercent: 10 }),
      issueDate: "2026-11-02",
      number: "INV-2026-00002",
    });
    expect(doc.decimals).toBe(0);
    expect(jsonOf(doc.lines.map((l) => [l.quantity, l.net]))).toEqual([
      ["1234.5", "2346"],
      ["2.5", "13500"],
    ]);
    expect(jsonOf([doc.net, doc.tax, doc.gross])).toEqual(["15846", "1585", "17431"]);
  });

  it("three price periods in a month: a line each, taxed together", async () => {
    // One VM of 6 GiB and 1 vCPU: 6144 / 1024 / 4 = 1.5 CU an hour. Six hours, the CU price changing at 02:00 and 04:00:
    // 3 CU-hours × 0.10 = 0.30, 3 × 0.20 = 0.60, 3 × 0.35 = 1.05; net 1.95; 19% = 0.3705 → 0.37; gross 2.32.
    const connection = await memoryWarehouse(
      [0, 1, 2, 3, 4, 5].map((h) => accountHour(7, OCT_1 + h * HOUR, { 11: [vm(1, { mem: 6144, vcpus: 1 })] })),
    );
    const prices = parsePrices(
      {
        currency: "EUR",
        prices: {
          CU: ["0.10", { from: "2026-10-01T02:00Z", price: "0.20" }, { from: "2026-10-01T04:00Z", price: "0.35" }],
        },
      },
      "prices.yaml",
    );
    const { report } = await bill({
      source: { connection },
      period: { start: OCT_1, end: OCT_1 + 6 * HOUR, accountId: 7 },
      prices,
      produce: { levels: ["account"] },
    });
    const invoice = report.invoices![0]!;
    const doc = buildInvoiceDocument({
      invoice,
      config: configWith({ category: "S", ratePercent: 19 }),
      issueDate: "2026-11-02",
      number: "INV-2026-00003",
    });
    expect(jsonOf(doc.lines.map((l) => [l.start - OCT_1, l.end - OCT_1, l.quantity, l.unitPrice, l.net]))).toEqual([
      [0, 2 * HOUR, "3", "0.1", "0.30"],
      [2 * HOUR, 4 * HOUR, "3", "0.2", "0.60"],
      [4 * HOUR, 6 * HOUR, "3", "0.35", "1.05"],
    ]);
    expect(jsonOf(doc.taxes)).toEqual([{ category: "S", ratePercent: "19", base: "1.95", amount: "0.37" }]);
    expect(jsonOf([doc.net, doc.tax, doc.gross])).toEqual(["1.95", "0.37", "2.32"]);
    connection.closeSync();
  });

  it("prints the hours accepted as missing, in words, and records them", () => {
    const missing = [OCT_1 + 14 * 86_400 + 3 * HOUR, OCT_1 + 14 * 86_400 + 4 * HOUR, OCT_1 + 20 * 86_400];
    const doc = buildInvoiceDocument({
      invoice: eurInvoice,
      config: configWith({ category: "S", ratePercent: 19 }),
      issueDate: "2026-11-02",
      number: "N-1",
      missingHours: missing,
    });
    expect(doc.missingHours).toEqual(missing);
    expect(doc.notes).toEqual([
      "3 hours of the period had no consumption data and are not charged: 15 Oct 2026 03:00 UTC – 15 Oct 2026 05:00 UTC, 21 Oct 2026 00:00 UTC.",
    ]);
  });

  it("a draft has no number, and addresses an account missing from the config by its name", () => {
    const config = parseStatementConfig(
      { issuer: { legalName: "Nordlicht", tax: { category: "S", ratePercent: 19 } } },
      "statement.yaml",
    );
    const draft = buildInvoiceDocument({ invoice: eurInvoice, config, issueDate: "2026-11-02" });
    expect(draft.number).toBeUndefined();
    expect(draft.customer).toEqual({ legalName: "Lumière", address: [], country: "", reference: "7" });
    expect(String(draft.gross)).toBe("130.80");
    // issuing needs what EN 16931 needs
    expect(() =>
      buildInvoiceDocument({ invoice: eurInvoice, config, issueDate: "2026-11-02", number: "INV-1" }),
    ).toThrow(
      "statement.yaml: cannot issue the invoice of account 7: missing issuer.country (ISO 3166-1 alpha-2, e.g. DE); issuer.vatId;",
    );
  });
});

describe("a credit note cancels an invoice in full", () => {
  const original = buildInvoiceDocument({
    invoice: eurInvoice,
    config: configWith({ category: "S", ratePercent: 19 }),
    issueDate: "2026-11-02",
    number: "INV-2026-00001",
  });
  const credit = creditNoteOf(original, {
    number: "CN-2026-00001",
    issueDate: "2026-11-20",
    reason: "late hours of 31 Oct arrived",
  });

  it("negates every line, tax and total, and refers to the invoice", () => {
    expect(jsonOf(credit)).toMatchObject({
      number: "CN-2026-00001",
      kind: "creditNote",
      accountId: 7,
      start: original.start,
      end: original.end,
      issueDate: "2026-11-20",
      dueDate: "2026-12-20",
      net: "-109.92",
      tax: "-20.88",
      gross: "-130.80",
      corrects: { number: "INV-2026-00001", issueDate: "2026-11-02" },
      reason: "late hours of 31 Oct arrived",
    });
    expect(jsonOf(credit.lines.map((l) => [l.quantity, l.net]))).toEqual([
      ["-1234.5", "-15.43"],
      ["-2.5", "-90.00"],
      ["-0.75", "-4.49"],
    ]);
    expect(jsonOf(credit.taxes)).toEqual([{ category: "S", ratePercent: "19", base: "-109.92", amount: "-20.88" }]);
    expect(credit.notes).toEqual([
      "This credit note cancels invoice INV-2026-00001 of 2 Nov 2026 in full. Reason: late hours of 31 Oct arrived",
    ]);
    expect(original.number).toBe("INV-2026-00001"); // the original is left as it was
  });

  it("keeps the legal mention of a reverse-charged invoice", () => {
    const ae = buildInvoiceDocument({
      invoice: eurInvoice,
      config: configWith({ category: "AE" }),
      issueDate: "2026-11-02",
      number: "INV-2026-00004",
    });
    const cn = creditNoteOf(ae, { number: "CN-2026-00002", issueDate: "2026-11-20", reason: "wrong customer" });
    expect(cn.notes).toEqual([
      "This credit note cancels invoice INV-2026-00004 of 2 Nov 2026 in full. Reason: wrong customer",
      REVERSE,
    ]);
    expect(jsonOf(cn.taxes)).toEqual([
      { category: "AE", ratePercent: "0", base: "-109.92", amount: "0.00", exemptionReason: "Reverse charge" },
    ]);
  });

  it("the new invoice names the one it replaces and why", () => {
    const replacement = buildInvoiceDocument({
      invoice: eurInvoice,
      config: configWith({ category: "S", ratePercent: 19 }),
      issueDate: "2026-11-20",
      number: "INV-2026-00009",
      corrects: { number: "INV-2026-00001", issueDate: "2026-11-02" },
      reason: "late hours of 31 Oct arrived",
    });
    expect(replacement.notes).toEqual([
      "This invoice replaces invoice INV-2026-00001 of 2 Nov 2026, cancelled by a credit note. Reason: late hours of 31 Oct arrived",
    ]);
    expect(() => creditNoteOf(credit, { number: "CN-9", issueDate: "2026-11-21", reason: "x" })).toThrow(
      "CN-2026-00001 is a credit note",
    );
  });
});
