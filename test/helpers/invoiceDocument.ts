import type { InvoiceDocument } from "../../src/invoices/document/invoiceDocument.js";
import { withAmounts, type Recorded } from "../../src/invoices/document/documentAmounts.js";
import { jsonOf } from "./jsonOf.js";
import { HOUR, OCT_1 } from "./warehouse.js";

/**
 * An issued invoice of account 7 for October 2026, made by hand: two lines (CU 100 CU-hours at 0.05
 * = 5.00, SU 1.5 SU-months at 40 = 60.00), standard VAT 19% of 65.00 = 12.35, amount due 77.35 EUR,
 * computed from `hours` (default: the first three hours of October, their files' SHA-256 made up).
 */
export function invoiceFixture(
  overrides: Partial<Recorded<InvoiceDocument>> | Partial<InvoiceDocument> = {},
  hours: number[] = [OCT_1, OCT_1 + HOUR, OCT_1 + 2 * HOUR],
): InvoiceDocument {
  const end = Date.UTC(2026, 10, 1) / 1000;
  // as the register records it (amounts as their texts), then read as the library hands it out
  const recorded: Recorded<InvoiceDocument> = {
    number: "INV-2026-00001",
    kind: "invoice",
    accountId: 7,
    start: OCT_1,
    end,
    issueDate: "2026-11-02",
    dueDate: "2026-12-02",
    currency: "EUR",
    decimals: 2,
    issuer: {
      legalName: "Nordlicht Cloud Services GmbH",
      address: ["Hafenstraße 12", "20457 Hamburg"],
      country: "DE",
      vatId: "DE123456789",
    },
    customer: {
      legalName: "Lumière Énergie SARL",
      address: ["12 rue de la Gare", "69001 Lyon"],
      country: "FR",
      reference: "PO-2026-118",
    },
    lines: [
      {
        unit: "CU",
        description: "Compute units (CU)",
        start: OCT_1,
        end,
        quantity: "100",
        quantityUnit: "CU-hours",
        unitPrice: "0.05",
        priceUnit: "CU-hour",
        net: "5.00",
        taxCategory: "S",
        taxRatePercent: "19",
      },
      {
        unit: "SU",
        description: "Storage units (SU)",
        start: OCT_1,
        end,
        quantity: "1.5",
        quantityUnit: "SU-months",
        unitPrice: "40",
        priceUnit: "SU-month",
        net: "60.00",
        taxCategory: "S",
        taxRatePercent: "19",
      },
    ],
    taxes: [{ category: "S", ratePercent: "19", base: "65.00", amount: "12.35" }],
    net: "65.00",
    tax: "12.35",
    gross: "77.35",
    notes: [],
    missingHours: [],
    payment: ["IBAN DE89 3704 0044 0532 0130 00"],
    basis: {
      hours,
      hourSha256: hours.map((h) => `${(h % 997).toString(16).padStart(4, "0")}`.repeat(16)),
      pricesSha256: "a".repeat(64),
      statementSha256: "b".repeat(64),
      rules: { cuRollup: "aggregate" },
    },
    ...(jsonOf(overrides) as Partial<Recorded<InvoiceDocument>>),
  };
  return withAmounts<InvoiceDocument>(recorded);
}
