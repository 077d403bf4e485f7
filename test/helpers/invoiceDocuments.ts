// Issued documents of every kind an e-invoice must carry, built as the register builds them (an
// account's invoice as billing computes it, the statement config, a number): the UBL, PDF and
// official-rules tests render these.
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
  type InvoiceDocument,
  type Quantities,
} from "../../src/internal.js";
import { accountHour, disk, memoryWarehouse, vm } from "./warehouse.js";

export const OCTOBER = monthPeriod("2026-10");

/** An account's period line with these unit-hours (the invoice is priced from it). */
export function accountLine(unitHours: Partial<Quantities>, accountId: number, name = ""): AccountLine {
  const q = { CU: 0, SU: 0, TU: 0, NU: 0, VCU: 0, MU: 0, WU: 0, PIU: 0, ...unitHours } as Quantities;
  return {
    level: "account",
    accountId,
    cloudspaceId: null,
    machineId: null,
    hourEpoch: null,
    name,
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

export const HOSPITAL = "Exempt under Article 132(1)(b) of Directive 2006/112/EC (hospital care)";

/** The issuer of Hamburg and its customers: 7102 German (the default 19%), 7101 French (reverse charge), 7103 Dutch (exempt), 7104 Japanese (outside the scope). */
export const sampleConfig = parseStatementConfig(
  {
    issuer: {
      legalName: "Nordlicht Cloud Services GmbH",
      address: ["Hafenstraße 12", "20457 Hamburg"],
      country: "DE",
      vatId: "DE123456789",
      peppolId: "9930:DE123456789",
      contact: ["billing@nordlicht.example", "+49 40 1234567"],
      bank: ["Hamburger Sparkasse", "IBAN DE89 3704 0044 0532 0130 00", "BIC HASPDEHHXXX"],
      tax: { category: "S", ratePercent: 19 },
    },
    // one JPY and one USD in EUR, the issuer's VAT accounting currency, on the issue date of the samples
    fxRates: { JPY: { "2026-11-02": "0.0061" }, USD: { "2026-11-02": "0.9215" } },
    customers: {
      7101: {
        legalName: "Lumière Énergie SARL",
        address: ["12 rue de la Gare", "69001 Lyon"],
        country: "FR",
        vatId: "FR12345678901",
        peppolId: "9957:FR12345678901",
        reference: "PO-2026-118",
        tax: { category: "AE" },
      },
      7102: {
        legalName: "Hafenkontor Logistik GmbH",
        address: ["Am Sandtorkai 5", "20457 Hamburg"],
        country: "DE",
        vatId: "DE987654321",
        peppolId: "9930:DE987654321",
      },
      7103: {
        legalName: "Stichting Zorgcentrum Noord",
        address: ["Grote Markt 1", "9711 LV Groningen"],
        country: "NL",
        peppolId: "0106:12345678",
        tax: { category: "E", exemptionReason: HOSPITAL },
      },
      7104: {
        legalName: "株式会社さくらクラウド",
        address: ["1-2-3 Marunouchi", "100-0005 Tokyo"],
        country: "JP",
        peppolId: "0188:1234567890123",
        tax: { category: "O", exemptionReason: "Services supplied outside the EU" },
      },
    },
  },
  "statement.yaml",
);

const EUR = parsePrices(
  { currency: "EUR", prices: { CU: "0.0125", SU: { perMonth: 36 }, TU: "0.004", NU: "5.99" } },
  "prices.yaml",
);
const JPY = parsePrices({ currency: "JPY", prices: { CU: "1.9", SU: { perMonth: 5400 }, NU: 899 } }, "prices.yaml");
/** A list in EUR pricing customer 7102 in USD (all its prices in USD) and 7104 in JPY. */
const PER_CUSTOMER = parsePrices(
  {
    currency: "EUR",
    prices: { CU: "0.0125", SU: { perMonth: 36 } },
    customers: {
      7102: { currency: "USD", prices: { CU: "0.0135", SU: { perMonth: 39 } } },
      7104: { currency: "JPY", prices: { CU: "2", SU: { perMonth: 6000 } } },
    },
  },
  "prices.yaml",
);

function issued(accountId: number, unitHours: Partial<Quantities>, number: string, prices = EUR): InvoiceDocument {
  const invoice = invoiceOf(accountLine(unitHours, accountId), prices, DEFAULT_UNITS, OCTOBER);
  return buildInvoiceDocument({ invoice, config: sampleConfig, issueDate: "2026-11-02", number });
}

/**
 * The documents: standard VAT (DE), reverse charge (FR), exempt (NL), outside the scope (JP), a
 * credit note of the standard one, one in JPY, and a month with three CU prices (from a warehouse).
 */
export async function sampleDocuments(): Promise<Record<string, InvoiceDocument>> {
  const standard = issued(7102, { CU: 1234.5, SU: 1800, TU: 3333.3, NU: 0.75 }, "INV-2026-00001");
  // one VM of 6 GiB, 1 vCPU (1.5 CU) and a 2048 GB disk at seven hours of October; CU 0.10, from 11 Oct 0.20, from 21 Oct 12:00 0.35
  const connection = await memoryWarehouse(
    [0, 5, 12, 15, 22, 25, 30].map((d) =>
      accountHour(7102, OCTOBER.start + d * 86_400 + 3600, {
        11: [vm(1, { mem: 6144, vcpus: 1, disks: [disk(1, 2048)] })],
      }),
    ),
  );
  const changing = parsePrices(
    {
      currency: "EUR",
      prices: {
        CU: ["0.10", { from: "2026-10-11", price: "0.20" }, { from: "2026-10-21T12:00Z", price: "0.35" }],
        SU: { perMonth: 36 },
      },
    },
    "prices.yaml",
  );
  const { report } = await bill({
    source: { connection },
    period: { start: OCTOBER.start, end: OCTOBER.end, accountId: 7102 },
    prices: changing,
    produce: { levels: ["account"] },
  });
  const invoice = report.invoices![0]!;
  connection.closeSync();
  return {
    standard,
    reverseCharge: issued(7101, { CU: 59299.5, SU: 21000, NU: 2.25 }, "INV-2026-00002"),
    exempt: issued(7103, { CU: 744, SU: 744 }, "INV-2026-00003"),
    outsideScope: issued(7104, { CU: 100 }, "INV-2026-00004"),
    creditNote: creditNoteOf(standard, {
      number: "CN-2026-00001",
      issueDate: "2026-11-20",
      reason: "late hours of 31 Oct 2026 arrived",
    }),
    yen: issued(7102, { CU: 1234.567, SU: 1799.3, NU: 0.3333 }, "INV-2026-00005", JPY),
    // USD at 19%: the VAT total also in EUR (BT-6, BT-111); JPY outside the scope: no VAT, no second total
    dollar: issued(7102, { CU: 1234.5, SU: 1800 }, "INV-2026-00007", PER_CUSTOMER),
    yenOutsideScope: issued(7104, { CU: 1234.5, SU: 1800 }, "INV-2026-00008", PER_CUSTOMER),
    threePrices: buildInvoiceDocument({
      invoice,
      config: sampleConfig,
      issueDate: "2026-11-02",
      number: "INV-2026-00006",
    }),
  };
}

/**
 * Invoices whose tax rounded per line would differ from their tax rounded per category, as EN 16931
 * asks (BR-CO-17: a category's tax is its base × rate, rounded; BR-CO-14 and 15: the totals are
 * their sums): three lines of 0.03 EUR at 19% (per line 3 × 0.01, per category 0.09 × 19% = 0.02);
 * three lines of 1 JPY at 19% (per line 0, per category 1); a base whose tax is a half cent
 * (2.50 EUR × 19% = 0.475, half-even 0.48).
 */
export function roundingDocuments(): Record<string, { document: InvoiceDocument; tax: string }> {
  const cents = parsePrices({ currency: "EUR", prices: { CU: "0.01", TU: "0.01", NU: "0.03" } }, "prices.yaml");
  const yen = parsePrices({ currency: "JPY", prices: { CU: "1", TU: "1", NU: "1" } }, "prices.yaml");
  const half = parsePrices({ currency: "EUR", prices: { CU: "0.5" } }, "prices.yaml");
  return {
    roundingCents: { document: issued(7102, { CU: 3, TU: 3, NU: 1 }, "INV-2026-00011", cents), tax: "0.02" },
    roundingYen: { document: issued(7102, { CU: 1, TU: 1, NU: 1 }, "INV-2026-00012", yen), tax: "1" },
    roundingHalf: { document: issued(7102, { CU: 5 }, "INV-2026-00013", half), tax: "0.48" },
  };
}
