// The e-invoices against the official rules a receiving Peppol access point applies: EN 16931's
// UBL rules and Peppol BIS Billing 3.0's, compiled to XSLT and run with Saxon-HE, as released
// (scripts/prerequisites.mjs pins them and `npm run test:all` fetches them).
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, expect, it } from "vitest";
import { EINVOICE_RULES_RELEASE } from "../../../scripts/prerequisites.mjs";
import { validate, type Failure } from "../../helpers/einvoiceRules.js";
import { paymentReferenceOf, renderUbl } from "../../../src/internal.js";
import { partialCreditNoteOf } from "../../../src/index.js";
import { roundingDocuments, sampleDocuments } from "../../helpers/invoiceDocuments.js";
import { describeWith } from "../../helpers/prerequisites.js";
import { categoryDocuments } from "../../helpers/taxCategoryDocuments.js";

/** The documents of the samples (and the partial credit notes made of them) each asserted by name below. */
const SAMPLES = [
  "standard",
  "reverseCharge",
  "exempt",
  "outsideScope",
  "creditNote",
  "yen",
  "threePrices",
  "belgianReference",
  "referenceWithoutIban",
  "partialByAmount",
  "partialByLine",
  "partialYen",
  "customerOfThreeAccounts",
  "customerOfThreeAccountsCredited",
  "dollar",
  "yenOutsideScope",
];

describeWith("saxon", "e-invoices and the official EN 16931 and Peppol BIS 3.0 rules", () => {
  describeWith("einvoice-rules", "as a receiving access point checks them", () => {
    let failures: Failure[];
    let names: string[];
    let input: string;

    beforeAll(async () => {
      input = join(mkdtempSync(join(tmpdir(), "cu-ubl-")), "in");
      mkdirSync(input);
      const docs = await sampleDocuments();
      // the payment reference (BT-83) as a Belgian issuer gives it, and on an invoice without an IBAN (payment means not defined)
      docs.belgianReference = { ...docs.standard!, paymentReference: paymentReferenceOf(docs.standard!.number, "BE") };
      docs.referenceWithoutIban = { ...docs.standard!, payment: [] };
      // partial credit notes (invoices credit): 10.00 before tax of the standard invoice; the CU line of the price from 11 Oct
      const partial = { issueDate: "2026-11-20", reason: "one machine was down on 3 Oct" };
      docs.partialByAmount = partialCreditNoteOf(docs.standard!, [], {
        ...partial,
        number: "CN-2026-00002",
        credit: { amount: "10.00" },
      });
      docs.partialByLine = partialCreditNoteOf(docs.threePrices!, [], {
        ...partial,
        number: "CN-2026-00003",
        credit: { lines: ["CU@2026-10-11"] },
      });
      docs.partialYen = partialCreditNoteOf(docs.yen!, [], {
        ...partial,
        number: "CN-2026-00004",
        credit: { amount: "333" },
      });
      names = Object.keys(docs);
      for (const [name, doc] of Object.entries(docs)) writeFileSync(join(input, `${name}.xml`), renderUbl(doc));
      // one invoice per category of the tax catalog, so a category added to it is checked here
      for (const [category, doc] of Object.entries(categoryDocuments()))
        writeFileSync(join(input, `category-${category}.xml`), renderUbl(doc));
      for (const [name, { document }] of Object.entries(roundingDocuments()))
        writeFileSync(join(input, `${name}.xml`), renderUbl(document));
      // a control of the rounding: the category's tax rounded per line (3 × 0.01), the document's total left per category (0.02)
      const perLine = renderUbl(roundingDocuments().roundingCents!.document)
        .toString("utf8")
        .replace(
          /(<cac:TaxSubtotal>\s*<cbc:TaxableAmount currencyID="EUR">0\.09<\/cbc:TaxableAmount>\s*<cbc:TaxAmount currencyID="EUR">)0\.02</,
          "$10.03<",
        );
      expect(perLine).toContain(">0.03</cbc:TaxAmount>");
      writeFileSync(join(input, "perLine.xml"), perLine);
      // a control of the release: a Danish ERSTORG number (0198) that is not DK and 8 digits, which only 3.0.21's rules check (PEPPOL-COMMON-R053)
      const erstorg = renderUbl(docs.standard!)
        .toString("utf8")
        .replace('<cbc:EndpointID schemeID="9930">DE987654321<', '<cbc:EndpointID schemeID="0198">12345678<');
      expect(erstorg).toContain('schemeID="0198"');
      writeFileSync(join(input, "release.xml"), erstorg);
      // a control, to show the rules are live: the standard invoice without its buyer reference, its amount due 1 cent off
      const broken = renderUbl(docs.standard!)
        .toString("utf8")
        .replace(/\s*<cbc:BuyerReference>[^<]*<\/cbc:BuyerReference>/, "")
        .replace(
          /<cbc:PayableAmount currencyID="EUR">([\d.]+)</,
          (_, v: string) => `<cbc:PayableAmount currencyID="EUR">${(Number(v) + 0.01).toFixed(2)}<`,
        );
      writeFileSync(join(input, "broken.xml"), broken);
      failures = validate(input);
    }, 300_000);

    it("invoices carry their structured payment reference as remittance information (BT-83)", () => {
      const standard = readFileSync(join(input, "standard.xml"), "utf8");
      expect(standard).toMatch(
        /<cac:PaymentMeans>\s*<cbc:PaymentMeansCode>30<\/cbc:PaymentMeansCode>\s*<cbc:PaymentID>RF\d{2}INV\w+<\/cbc:PaymentID>/,
      );
      expect(readFileSync(join(input, "belgianReference.xml"), "utf8")).toMatch(
        /<cbc:PaymentID>\+\+\+\d{3}\/\d{4}\/\d{5}\+\+\+<\/cbc:PaymentID>/,
      );
      expect(readFileSync(join(input, "referenceWithoutIban.xml"), "utf8")).toMatch(
        /<cbc:PaymentMeansCode>1<\/cbc:PaymentMeansCode>\s*<cbc:PaymentID>RF/,
      );
    });

    it.each(SAMPLES)("%s passes both rule sets with no fatal error", (name) => {
      expect(names).toContain(name);
      expect(failures.filter((f) => f.file === `${name}.xml` && f.flag === "fatal")).toEqual([]);
    });

    it("asserts every sample it checks: a document added to the samples is named here, not checked in silence", () => {
      expect([...names].sort()).toEqual([...SAMPLES].sort());
    });

    it.each(Object.keys(categoryDocuments()))(
      "a customer taxed %s, as the tax catalog says, passes both rule sets with no fatal error",
      (category) => {
        expect(failures.filter((f) => f.file === `category-${category}.xml` && f.flag === "fatal")).toEqual([]);
      },
    );

    it.each(Object.entries(roundingDocuments()))(
      "%s: tax per category, not per line, and no rule on totals or rounding fails",
      (name, { document, tax }) => {
        const xml = renderUbl(document).toString("utf8");
        expect(xml).toContain(`<cbc:TaxAmount currencyID="${document.currency}">${tax}</cbc:TaxAmount>`);
        expect(
          failures.filter((f) => f.file === `${name}.xml` && (f.flag === "fatal" || /^BR-CO-1[4-7]$/.test(f.id))),
        ).toEqual([]);
      },
    );

    it("a category's tax rounded per line, against its document's total, fails the rule that the total is their sum (BR-CO-14)", () => {
      expect(
        failures.filter((f) => f.file === "perLine.xml" && f.flag === "fatal").map((f) => `${f.rules} ${f.id}`),
      ).toContain("EN16931-UBL BR-CO-14");
    });

    it("the rules are OpenPeppol's release pinned, BIS Billing 3.0.21 (2026.5): a Danish ERSTORG address it checks fails it", () => {
      expect(EINVOICE_RULES_RELEASE.bis).toBe("3.0.21");
      expect(
        failures.filter((f) => f.file === "release.xml" && f.flag === "fatal").map((f) => `${f.rules} ${f.id}`),
      ).toEqual(["PEPPOL-EN16931-UBL PEPPOL-COMMON-R053"]);
    });

    it("a document without its buyer reference, and whose amount due is off by a cent, fails them", () => {
      const fatal = failures
        .filter((f) => f.file === "broken.xml" && f.flag === "fatal")
        .map((f) => `${f.rules} ${f.id}`);
      expect(fatal).toEqual(expect.arrayContaining(["PEPPOL-EN16931-UBL PEPPOL-EN16931-R003", "EN16931-UBL BR-CO-16"]));
    });
  });
});
