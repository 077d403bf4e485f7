import { create } from "xmlbuilder2";
import { beforeAll, describe, expect, it } from "vitest";
import { Exact, renderUbl, type InvoiceDocument } from "../../../src/internal.js";
import { HOSPITAL, sampleDocuments } from "../../helpers/invoiceDocuments.js";
import { jsonOf, readBack } from "../../helpers/jsonOf.js";

type Node = Record<string, unknown>;
let docs: Record<string, InvoiceDocument>;

/** The UBL of a document read back as xmlbuilder2's object form: its root element. */
function ubl(doc: InvoiceDocument): Node {
  const object = create(renderUbl(doc).toString("utf8")).end({ format: "object" }) as Node;
  return (object.Invoice ?? object.CreditNote) as Node;
}

const list = (value: unknown): Node[] => (Array.isArray(value) ? value : value === undefined ? [] : [value]) as Node[];
const at = (node: unknown, path: string): unknown =>
  path.split("/").reduce<unknown>((n, key) => (n as Node | undefined)?.[key], node);
const text = (node: unknown, path: string): string => {
  const value = at(node, path);
  return typeof value === "object" && value !== null ? String((value as Node)["#"]) : String(value);
};
const dec = (s: string) => Exact.parse(s)!;

beforeAll(async () => {
  docs = await sampleDocuments();
});

describe("UBL invoices of Peppol BIS Billing 3.0", () => {
  it("the standard invoice: Peppol's identifiers, both parties' electronic addresses, PayableAmount is the gross", () => {
    const doc = docs.standard!;
    const x = ubl(doc);
    expect(x["@xmlns"]).toBe("urn:oasis:names:specification:ubl:schema:xsd:Invoice-2");
    expect(x["cbc:CustomizationID"]).toBe("urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0");
    expect(x["cbc:ProfileID"]).toBe("urn:fdc:peppol.eu:2017:poacc:billing:01:1.0");
    expect([
      x["cbc:ID"],
      x["cbc:IssueDate"],
      x["cbc:DueDate"],
      x["cbc:InvoiceTypeCode"],
      x["cbc:DocumentCurrencyCode"],
      x["cbc:BuyerReference"],
    ]).toEqual(["INV-2026-00001", "2026-11-02", "2026-12-02", "380", "EUR", "7102"]);
    expect(at(x, "cac:InvoicePeriod")).toEqual({ "cbc:StartDate": "2026-10-01", "cbc:EndDate": "2026-10-31" });
    const seller = at(x, "cac:AccountingSupplierParty/cac:Party") as Node;
    expect(seller["cbc:EndpointID"]).toEqual({ "@schemeID": "9930", "#": "DE123456789" });
    expect(seller["cac:PostalAddress"]).toEqual({
      "cbc:StreetName": "Hafenstraße 12",
      "cbc:CityName": "Hamburg",
      "cbc:PostalZone": "20457",
      "cac:Country": { "cbc:IdentificationCode": "DE" },
    });
    expect(text(seller, "cac:PartyTaxScheme/cbc:CompanyID")).toBe("DE123456789");
    expect(seller["cac:Contact"]).toEqual({
      "cbc:Name": "Nordlicht Cloud Services GmbH",
      "cbc:Telephone": "+49 40 1234567",
      "cbc:ElectronicMail": "billing@nordlicht.example",
    });
    expect(at(x, "cac:AccountingCustomerParty/cac:Party/cbc:EndpointID")).toEqual({
      "@schemeID": "9930",
      "#": "DE987654321",
    });
    expect(at(x, "cac:PaymentMeans")).toEqual({
      "cbc:PaymentMeansCode": "30",
      "cbc:PaymentID": "RF76INV202600001",
      "cac:PayeeFinancialAccount": {
        "cbc:ID": "DE89370400440532013000",
        "cac:FinancialInstitutionBranch": { "cbc:ID": "HASPDEHHXXX" },
      },
    });
    expect(at(x, "cac:TaxTotal/cac:TaxSubtotal/cac:TaxCategory")).toEqual({
      "cbc:ID": "S",
      "cbc:Percent": "19",
      "cac:TaxScheme": { "cbc:ID": "VAT" },
    });
    // CU 1234.5 × 0.0125 = 15.43, SU 2.5 × 36 = 90.00, TU 3333.3 × 0.004 = 13.33, NU 0.75 × 5.99 = 4.49: 123.25; 19% = 23.4175 → 23.42
    expect(jsonOf([doc.net, doc.tax, doc.gross])).toEqual(["123.25", "23.42", "146.67"]);
    expect(text(x, "cac:LegalMonetaryTotal/cbc:PayableAmount")).toBe(String(doc.gross));
    expect(text(x, "cac:TaxTotal/cbc:TaxAmount")).toBe(String(doc.tax));
    expect(
      list(x["cac:InvoiceLine"]).map((l) => [
        text(l, "cbc:InvoicedQuantity"),
        (l["cbc:InvoicedQuantity"] as Node)["@unitCode"],
        text(l, "cbc:LineExtensionAmount"),
        text(l, "cac:Item/cbc:Name"),
      ]),
    ).toEqual(
      doc.lines.map((l) => [
        l.quantity,
        l.quantityUnit.endsWith("-hours") ? "HUR" : l.quantityUnit.endsWith("-months") ? "MON" : "C62",
        String(l.net),
        l.description,
      ]),
    );
  });

  it.each([
    "standard",
    "reverseCharge",
    "exempt",
    "outsideScope",
    "creditNote",
    "yen",
    "threePrices",
    "dollar",
    "yenOutsideScope",
  ])("%s: the figures add up as a receiver checks them", (name) => {
    const doc = docs[name]!;
    const x = ubl(doc);
    const lines = list(x["cac:InvoiceLine"] ?? x["cac:CreditNoteLine"]);
    const total = (path: string) => dec(text(x, `cac:LegalMonetaryTotal/${path}`));
    // BR-CO-10: Σ line net = the total's line extension amount; BR-CO-15: with VAT = without + VAT
    expect(
      lines
        .reduce((a, l) => a.add(dec(text(l, "cbc:LineExtensionAmount"))), Exact.ZERO)
        .equals(total("cbc:LineExtensionAmount")),
    ).toBe(true);
    expect(
      total("cbc:TaxExclusiveAmount")
        .add(dec(text(list(x["cac:TaxTotal"])[0], "cbc:TaxAmount")))
        .equals(total("cbc:TaxInclusiveAmount")),
    ).toBe(true);
    expect(total("cbc:PayableAmount").equals(dec(String(doc.gross).replace(/^-/, "")))).toBe(true);
    for (const line of lines) {
      // PEPPOL-EN16931-R120: net = quantity × price + charges − allowances, within 0.02
      const quantity = dec(text(line, x["cac:InvoiceLine"] ? "cbc:InvoicedQuantity" : "cbc:CreditedQuantity"));
      const charge = line["cac:AllowanceCharge"]
        ? dec(text(line, "cac:AllowanceCharge/cbc:Amount")).mul(
            Exact.of(at(line, "cac:AllowanceCharge/cbc:ChargeIndicator") === "true" ? 1n : -1n),
          )
        : Exact.ZERO;
      const off = quantity
        .mul(dec(text(line, "cac:Price/cbc:PriceAmount")))
        .add(charge)
        .add(dec(text(line, "cbc:LineExtensionAmount")).mul(Exact.of(-1n)));
      expect(Math.abs(off.toNumber())).toBeLessThanOrEqual(0.02);
      expect(quantity.num >= 0n).toBe(true);
    }
    // BR-DEC: amounts have at most 2 decimals
    expect(
      renderUbl(doc)
        .toString("utf8")
        .match(/<cbc:(?!PriceAmount)\w+ currencyID="[A-Z]+">-?\d+\.\d{3,}</g),
    ).toBeNull();
  });

  it("reverse charge: category AE with its exemption code, both VAT ids, the legal mention as the note", () => {
    const x = ubl(docs.reverseCharge!);
    expect(at(x, "cac:TaxTotal/cac:TaxSubtotal/cac:TaxCategory")).toEqual({
      "cbc:ID": "AE",
      "cbc:Percent": "0",
      "cbc:TaxExemptionReasonCode": "VATEX-EU-AE",
      "cbc:TaxExemptionReason": "Reverse charge",
      "cac:TaxScheme": { "cbc:ID": "VAT" },
    });
    expect(text(x, "cac:AccountingCustomerParty/cac:Party/cac:PartyTaxScheme/cbc:CompanyID")).toBe("FR12345678901");
    expect(x["cbc:Note"]).toBe(
      "Reverse charge: VAT to be accounted for by the customer (Article 196 of Council Directive 2006/112/EC).",
    );
    expect(x["cbc:BuyerReference"]).toBe("PO-2026-118");
    expect(text(x, "cac:TaxTotal/cbc:TaxAmount")).toBe("0.00");
  });

  it("exempt: category E with the config's reason; outside the scope: no rate and no VAT id, the party known by its address", () => {
    const exempt = ubl(docs.exempt!);
    expect(at(exempt, "cac:TaxTotal/cac:TaxSubtotal/cac:TaxCategory")).toEqual({
      "cbc:ID": "E",
      "cbc:Percent": "0",
      "cbc:TaxExemptionReason": HOSPITAL,
      "cac:TaxScheme": { "cbc:ID": "VAT" },
    });
    const outside = ubl(docs.outsideScope!);
    expect(at(outside, "cac:TaxTotal/cac:TaxSubtotal/cac:TaxCategory")).toEqual({
      "cbc:ID": "O",
      "cbc:TaxExemptionReasonCode": "VATEX-EU-O",
      "cbc:TaxExemptionReason": "Services supplied outside the EU",
      "cac:TaxScheme": { "cbc:ID": "VAT" },
    });
    const seller = at(outside, "cac:AccountingSupplierParty/cac:Party") as Node;
    expect(seller["cac:PartyTaxScheme"]).toBeUndefined();
    expect(at(seller, "cac:PartyIdentification/cbc:ID")).toBe("DE123456789");
    expect(at(outside, "cac:AccountingCustomerParty/cac:Party/cac:PartyLegalEntity/cbc:RegistrationName")).toBe(
      "株式会社さくらクラウド",
    );
  });

  it("a credit note: CreditNote 381, positive amounts, and the invoice it cancels with its issue date", () => {
    const doc = docs.creditNote!;
    const x = ubl(doc);
    expect(x["@xmlns"]).toBe("urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2");
    expect([x["cbc:ID"], x["cbc:CreditNoteTypeCode"], x["cbc:DueDate"]]).toEqual(["CN-2026-00001", "381", undefined]);
    expect(at(x, "cac:BillingReference/cac:InvoiceDocumentReference")).toEqual({
      "cbc:ID": "INV-2026-00001",
      "cbc:IssueDate": "2026-11-02",
    });
    expect(text(x, "cac:LegalMonetaryTotal/cbc:PayableAmount")).toBe(String(doc.gross).slice(1));
    expect(
      list(x["cac:CreditNoteLine"]).map((l) => [text(l, "cbc:CreditedQuantity"), text(l, "cbc:LineExtensionAmount")]),
    ).toEqual(docs.standard!.lines.map((l) => [l.quantity, String(l.net)]));
    // nothing is paid on a credit note: no payment reference of its own, nor its invoice's
    expect(doc.paymentReference).toBeUndefined();
    expect((x["cac:PaymentMeans"] as Record<string, unknown>)["cbc:PaymentID"]).toBe(doc.number);
    expect(String(x["cbc:Note"])).toContain(
      "This credit note cancels invoice INV-2026-00001 of 2 Nov 2026 in full. Reason: late hours of 31 Oct 2026 arrived",
    );
  });

  it("JPY: whole yen, and a line's rounding to the yen as a charge or allowance", () => {
    const doc = docs.yen!;
    const x = ubl(doc);
    expect(text(x, "cac:LegalMonetaryTotal/cbc:PayableAmount")).toMatch(/^\d+$/);
    const cu = list(x["cac:InvoiceLine"])[0]!;
    // 1234.57 CU-hours × 1.9 = 2345.683 rounds to 2346: the line is 0.317 above, a charge of 0.32
    expect([text(cu, "cbc:InvoicedQuantity"), text(cu, "cbc:LineExtensionAmount")]).toEqual(["1234.57", "2346"]);
    expect(cu["cac:AllowanceCharge"]).toEqual({
      "cbc:ChargeIndicator": "true",
      "cbc:AllowanceChargeReason": "Rounding of the line to whole JPY",
      "cbc:Amount": { "@currencyID": "JPY", "#": "0.32" },
    });
    // in EUR no line needs one: the quantity shown already multiplies to the cent
    expect(list(ubl(docs.standard!)["cac:InvoiceLine"]).some((l) => l["cac:AllowanceCharge"] !== undefined)).toBe(
      false,
    );
  });

  it("USD at 19%: the VAT total also in EUR (BT-6, BT-111); a JPY invoice outside the scope has none", () => {
    // USD prices of customer 7102: CU 1234.5 × 0.0135 = 16.66575 → 16.67; SU 1800 h = 2.5 SU-months × 39 = 97.50;
    // net 114.17; VAT 19% = 21.6923 → 21.69 USD; in EUR at 0.9215: 21.69 × 0.9215 = 19.987335 → 19.99 EUR
    const x = ubl(docs.dollar!);
    expect([x["cbc:DocumentCurrencyCode"], x["cbc:TaxCurrencyCode"]]).toEqual(["USD", "EUR"]);
    const totals = list(x["cac:TaxTotal"]);
    expect(totals.map((t) => [at(t, "cbc:TaxAmount/@currencyID"), text(t, "cbc:TaxAmount")])).toEqual([
      ["USD", "21.69"],
      ["EUR", "19.99"],
    ]);
    expect(totals[1]!["cac:TaxSubtotal"]).toBeUndefined();
    // JPY outside the scope (customer 7104): CU 1234.5 × 2 = 2469; SU 2.5 × 6000 = 15000; net 17469, no VAT due
    const y = ubl(docs.yenOutsideScope!);
    expect([y["cbc:DocumentCurrencyCode"], y["cbc:TaxCurrencyCode"], list(y["cac:TaxTotal"]).length]).toEqual([
      "JPY",
      undefined,
      1,
    ]);
    expect(text(y, "cac:LegalMonetaryTotal/cbc:PayableAmount")).toBe("17469");
  });

  it("a month of three prices: a line each, its price period as dates and in words", () => {
    const lines = list(ubl(docs.threePrices!)["cac:InvoiceLine"]).filter(
      (l) => text(l, "cac:Item/cbc:Name") === "Compute units (CU)",
    );
    expect(
      lines.map((l) => [
        at(l, "cac:InvoicePeriod/cbc:StartDate"),
        at(l, "cac:InvoicePeriod/cbc:EndDate"),
        text(l, "cac:Price/cbc:PriceAmount"),
        at(l, "cac:Item/cbc:Description"),
      ]),
    ).toEqual([
      ["2026-10-01", "2026-10-10", "0.1", "Compute units (CU), 1 Oct 2026 – 10 Oct 2026"],
      ["2026-10-11", "2026-10-21", "0.2", "Compute units (CU), 11 Oct 2026 00:00 – 21 Oct 2026 12:00 UTC"],
      ["2026-10-21", "2026-10-31", "0.35", "Compute units (CU), 21 Oct 2026 12:00 – 31 Oct 2026 24:00 UTC"],
    ]);
  });

  it("a hostile name is text: markup escaped, characters XML cannot hold replaced; the same document gives the same bytes", () => {
    const doc = {
      ...docs.standard!,
      customer: {
        ...docs.standard!.customer,
        legalName: "</cbc:RegistrationName><x>&amp; \u0001 Ω",
        reference: "<PO>",
      },
    };
    const xml = renderUbl(doc).toString("utf8");
    expect(xml).toContain(
      "<cbc:RegistrationName>&lt;/cbc:RegistrationName&gt;&lt;x&gt;&amp;amp; \uFFFD Ω</cbc:RegistrationName>",
    );
    expect(xml).toContain("<cbc:BuyerReference>&lt;PO&gt;</cbc:BuyerReference>");
    expect(renderUbl(docs.standard!).equals(renderUbl(readBack(docs.standard!)))).toBe(true);
  });
});
