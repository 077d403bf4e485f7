import { describe, expect, it } from "vitest";
import { invoiceOf } from "../../src/billing/invoice.js";
import { currencyOf, parsePrices } from "../../src/billing/prices.js";
import { DEFAULT_UNITS } from "../../src/billing/units.js";
import { accountLine, OCTOBER } from "../helpers/invoiceDocuments.js";

// A customer priced in its own currency in the one price list: all its prices given in it, never converted.

const LIST = {
  currency: "EUR",
  prices: { CU: "0.0125", SU: { perMonth: 36 } },
  customers: { "7": { currency: "JPY", prices: { CU: "2", SU: { perMonth: 6000 } } } },
};

describe("customers.<id> in a price list", () => {
  it("bills the customer in its currency at its own prices, whole yen; the other accounts in the list's", () => {
    const list = parsePrices(LIST, "prices.yaml");
    expect([currencyOf(list, 7), currencyOf(list, 8)]).toEqual([
      { currency: "JPY", decimals: 0 },
      { currency: "EUR", decimals: 2 },
    ]);
    // account 7: CU 1234.5 × 2 = 2469; SU 1800 SU-hours = 2.5 SU-months × 6000 = 15000; amount due 17469 JPY
    const yen = invoiceOf(accountLine({ CU: 1234.5, SU: 1800 }, 7), list, DEFAULT_UNITS, OCTOBER);
    expect([yen.currency, yen.lines.map((l) => l.amount.toFixed(0)), yen.amountDue.toFixed(0)]).toEqual([
      "JPY",
      ["2469", "15000"],
      "17469",
    ]);
    // account 8: CU 1234.5 × 0.0125 = 15.43125 → 15.43; SU 2.5 × 36 = 90.00; amount due 105.43 EUR
    const eur = invoiceOf(accountLine({ CU: 1234.5, SU: 1800 }, 8), list, DEFAULT_UNITS, OCTOBER);
    expect([eur.currency, eur.amountDue.toFixed(2)]).toEqual(["EUR", "105.43"]);
  });

  it("refuses a customer in another currency without a price of a unit the list prices (never a conversion)", () => {
    const lacking = { ...LIST, customers: { "7": { currency: "JPY", prices: { CU: "2" } } } };
    expect(() => parsePrices(lacking, "prices.yaml")).toThrow(
      "prices.yaml: customers.7: no JPY price of SU: a customer in its own currency gives every price in it (a price is never converted)",
    );
    expect(() => parsePrices({ ...LIST, customers: { "7": { currency: "yen!", prices: {} } } }, "p")).toThrow(
      "currency must be an ISO 4217 code",
    );
  });
});
