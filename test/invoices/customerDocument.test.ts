import { beforeAll, describe, expect, it } from "vitest";
import { Exact } from "../../src/billing/exact.js";
import type { InvoiceDocument } from "../../src/invoices/document/invoiceDocument.js";
import { parseStatementConfig } from "../../src/invoices/document/statementConfig.js";
import { customerOf } from "../../src/invoices/document/customers.js";
import { documentWords } from "../../src/invoices/document/documentWords.js";
import { renderUbl } from "../../src/internal.js";
import { sampleDocuments } from "../helpers/invoiceDocuments.js";
import { jsonOf } from "../helpers/jsonOf.js";

const ISSUER = { legalName: "Nordlicht", address: ["Hafenstraße 12", "20457 Hamburg"], country: "DE" };
const party = { legalName: "Acme", address: ["1 Main St", "1000 Brussels"], country: "BE" };

describe("a customer of several accounts in the statement config", () => {
  it("groups its accounts; an account listed nowhere, or under its own id, is its own customer", () => {
    const config = parseStatementConfig({
      issuer: ISSUER,
      customers: { acme: { ...party, accounts: [7103, 7101] }, "7200": party },
    });
    expect(customerOf(config, 7101)).toMatchObject({ id: "acme", accountIds: [7101, 7103], grouped: true });
    expect(customerOf(config, 7200)).toMatchObject({ id: "7200", accountIds: [7200], grouped: false });
    expect(customerOf(config, 9)).toEqual({ id: "9", accountIds: [9], grouped: false });
  });

  it("refuses an account listed by two customers, naming both keys", () => {
    expect(() =>
      parseStatementConfig({
        issuer: ISSUER,
        customers: { acme: { ...party, accounts: [7101, 7102] }, "7102": party },
      }),
    ).toThrow(
      "customers.acme.accounts: account 7102 is already listed by customers.7102: an account is of one customer",
    );
    expect(() =>
      parseStatementConfig({
        issuer: ISSUER,
        customers: { acme: { ...party, accounts: [7101] }, beta: { ...party, accounts: [7101] } },
      }),
    ).toThrow("customers.beta.accounts: account 7101 is already listed by customers.acme.accounts");
  });
});

describe("the invoice of a customer of three accounts", () => {
  let doc: InvoiceDocument;
  let credit: InvoiceDocument;
  beforeAll(async () => {
    const docs = await sampleDocuments();
    doc = docs.customerOfThreeAccounts!;
    credit = docs.customerOfThreeAccountsCredited!;
  });

  it("has a section per account whose subtotal is its lines', one tax breakdown, one total", () => {
    expect(doc.customerId).toBe("acme");
    expect(doc.accountIds).toEqual([7102, 7105, 7106]);
    expect(doc.accountId).toBe(7102);
    // 7105: CU 99.5 × 0.0125 = 1.24375 → 1.24; TU 10 × 0.004 = 0.04; subtotal 1.28
    // 7106: CU 10 × 0.0125 = 0.125 → 0.12 (half-even); NU 0.5 TiB × 5.99 = 2.995 → 3.00 (half-even); subtotal 3.12
    expect(jsonOf(doc.sections!.slice(1))).toEqual([
      { accountId: 7105, name: "Staging", net: "1.28" },
      { accountId: 7106, name: "", net: "3.12" },
    ]);
    // 7102: each line its shown quantity × unit price, rounded half-even to cents
    const own = doc.lines.filter((l) => l.accountId === 7102);
    const sum = own.reduce(
      (s, l) => s.add(Exact.parse(Exact.parse(l.quantity)!.mul(Exact.parse(l.unitPrice)!).toFixed(2))!),
      Exact.ZERO,
    );
    expect(jsonOf(doc.sections![0])).toEqual({ accountId: 7102, name: "Production", net: sum.toFixed(2) });
    const net = sum.add(Exact.parse("1.28")!).add(Exact.parse("3.12")!);
    expect(String(doc.net)).toBe(net.toFixed(2));
    // one tax line: 19 % of the whole net, rounded once
    expect(jsonOf(doc.taxes)).toEqual([
      { category: "S", ratePercent: "19", base: String(doc.net), amount: net.mul(Exact.parse("0.19")!).toFixed(2) },
    ]);
    expect(String(doc.gross)).toBe(doc.net.add(doc.tax).toFixed(2));
  });

  it("reads, on paper, a heading per account with its subtotal, and the accounts among the facts", () => {
    const w = documentWords(doc);
    expect(w.sections!.map((x) => [x.heading, x.subtotal.label, x.subtotal.amount])).toEqual([
      ["Account 7102 – Production", "Subtotal of account 7102 (EUR)", String(doc.sections![0]!.net)],
      ["Account 7105 – Staging", "Subtotal of account 7105 (EUR)", "1.28"],
      ["Account 7106", "Subtotal of account 7106 (EUR)", "3.12"],
    ]);
    expect(w.facts).toContainEqual(["Accounts", "7102, 7105, 7106"]);
    expect(w.footer).toContain("customer acme");
  });

  it("prints a contract's discount as a section of its own, so that the subtotals on paper add up to the net", () => {
    // a 10 % discount of 7105's CU line: 10 % of 1.24 = 0.124 → 0.12 (half-even); net 0.12 lower
    const discounted: InvoiceDocument = {
      ...doc,
      allowances: [
        {
          unit: "CU",
          start: doc.start,
          end: doc.end,
          reason: "Contract discount 10 % on CU",
          percent: "10",
          base: Exact.amount("1.24"),
          amount: Exact.amount("0.12"),
          taxCategory: "S",
          taxRatePercent: "19",
        },
      ],
      net: doc.net.sub(Exact.parse("0.12")!).fixed(2),
    };
    const w = documentWords(discounted);
    expect(w.sections!.map((x) => x.heading)).toEqual([
      "Account 7102 – Production",
      "Account 7105 – Staging",
      "Account 7106",
      "Contract",
    ]);
    expect(w.sections!.at(-1)!.lines.map((l) => [l.description, l.net])).toEqual([
      ["Contract discount 10 % on CU", "-0.12"],
    ]);
    expect(w.sections!.at(-1)!.subtotal).toEqual({ label: "Subtotal of the contract (EUR)", amount: "-0.12" });
    const printed = w.sections!.reduce((s, x) => s.add(Exact.parse(x.subtotal.amount.replace(/,/g, ""))!), Exact.ZERO);
    expect(printed.toFixed(2)).toBe(String(discounted.net));
    expect(documentWords(doc).sections!.map((x) => x.heading)).not.toContain("Contract");
  });

  it("says in the e-invoice each line's account; the credit note negates each section", () => {
    const xml = renderUbl(doc).toString("utf8");
    // a line per priced unit of each account: CU, SU, TU, NU
    expect(xml.match(/<cbc:Note>Account 7105 – Staging<\/cbc:Note>/g)).toHaveLength(4);
    expect(xml).toContain("<cbc:Note>Account 7106</cbc:Note>");
    expect(xml).toContain("<cbc:BuyerReference>acme</cbc:BuyerReference>");
    expect(credit.sections!.map((x) => String(x.net))).toEqual(["-" + doc.sections![0]!.net, "-1.28", "-3.12"]);
    expect(credit.accountIds).toEqual([7102, 7105, 7106]);
  });
});
