import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  EmptyPeriodError,
  makeNames,
  monthPeriod,
  open,
  parsePrices,
  parseTime,
  UsageError,
  writeDataset,
  type Store,
} from "../../src/index.js";

// Three accounts from 2026-09-30T20:00Z for 30 hours: September's last 4 hours and October's first 26.
// Account 2 has its own CU price, account 3 a CU price that changes on October 1st 12:00 (a price period inside the month).
const START = parseTime("2026-09-30T20:00Z");
const PRICES = parsePrices({
  currency: "EUR",
  prices: { CU: "0.05", SU: { perMonth: 40 }, TU: "0.002", NU: 20, PIU: { perMonth: 3 } },
  accounts: { "2": { CU: "0.04" }, "3": { CU: ["0.05", { from: "2026-10-01T12:00Z", price: "0.07" }] } },
});
const NAMES = makeNames([{ kind: "account", id: 2, name: "Acme" }]);

let dir: string;
let store: Store;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "cloudunits-invoices-"));
  const data = join(dir, "data.zip");
  await writeDataset({
    out: data,
    accounts: 3,
    spaces: 2,
    machines: 3,
    hours: 30,
    start: START,
    seed: 11,
    missingHours: [START + 3600 * 5],
  });
  store = await open([data]);
});
afterAll(async () => {
  store?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("store.accounts()", () => {
  it("lists every account held, with its name, its hours and the months they fall in", async () => {
    const accounts = await store.accounts({ names: NAMES });
    expect(accounts.map((a) => [a.accountId, a.name, a.start, a.end, a.months])).toEqual(
      [1, 2, 3].map((id) => [id, id === 2 ? "Acme" : "", START, START + 30 * 3600, ["2026-09", "2026-10"]]),
    );
    // one hour missing: 29 of the 30 hours of [start, end) are held
    expect(accounts.map((a) => a.hours)).toEqual([29, 29, 29]);
  });
});

describe("store.invoices()", () => {
  it("every account's invoice of several months, in one call: each the invoice of that account and month alone", async () => {
    const invoices = await store.invoices({ months: ["2026-09", "2026-10"] }, PRICES, { names: NAMES });
    expect(invoices.map((i) => [new Date(i.start * 1000).toISOString().slice(0, 7), i.accountId])).toEqual([
      ["2026-09", 1],
      ["2026-09", 2],
      ["2026-09", 3],
      ["2026-10", 1],
      ["2026-10", 2],
      ["2026-10", 3],
    ]);
    for (const invoice of invoices) {
      const alone = await store.invoice(
        { start: invoice.start, end: invoice.end, accountId: invoice.accountId },
        PRICES,
        { names: NAMES },
      );
      expect(JSON.stringify(invoice)).toBe(JSON.stringify(alone));
      expect(invoice.amountDue.toFixed(2)).toBe(alone.amountDue.toFixed(2));
      expect(invoice.amountDue.toNumber()).toBeGreaterThan(0);
    }
    // account 3's October has two CU lines, one per price; account 2 pays its own CU price; names are on the invoices
    const october3 = invoices.find((i) => i.accountId === 3 && i.start === monthPeriod("2026-10").start)!;
    expect(october3.lines.filter((l) => l.unit === "CU").map((l) => l.unitPrice)).toEqual(["0.05", "0.07"]);
    expect(
      invoices.filter((i) => i.accountId === 2).map((i) => [i.name, i.lines.find((l) => l.unit === "CU")?.unitPrice]),
    ).toEqual([
      ["Acme", "0.04"],
      ["Acme", "0.04"],
    ]);
  });

  it("one month, or a period in epoch seconds, gives the same invoices as the months", async () => {
    const both = await store.invoices({ months: ["2026-09", "2026-10"] }, PRICES);
    const october = await store.invoices({ month: "2026-10" }, PRICES);
    expect(JSON.stringify(october)).toBe(JSON.stringify(both.slice(3)));
    expect(JSON.stringify(await store.invoices(monthPeriod("2026-09"), PRICES))).toBe(JSON.stringify(both.slice(0, 3)));
  });

  it("a month the warehouse holds no hour of is refused, naming the hours it holds, where it gave an empty list or an invoice of 0", async () => {
    const error = await store.invoices({ month: "2026-11" }, PRICES).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EmptyPeriodError);
    expect((error as EmptyPeriodError).code).toBe("EMPTY_PERIOD");
    expect((error as EmptyPeriodError).message).toBe(
      "no hours held in 2026-11: the inputs hold none of it, so there is nothing to bill; " +
        "they hold [2026-09-30T20:00:00Z, 2026-10-02T02:00:00Z)",
    );
    const one = await store.invoice({ ...monthPeriod("2026-11"), accountId: 2 }, PRICES).catch((e: unknown) => e);
    expect(one).toBeInstanceOf(EmptyPeriodError);
    expect((one as EmptyPeriodError).held).toEqual({
      start: parseTime("2026-09-30T20:00:00Z"),
      end: parseTime("2026-10-02T02:00:00Z"),
    });
  });

  it.each([
    [{ month: "2026-13" }, "USAGE", /bad month: "2026-13"/],
    [{ months: [] }, "USAGE", /no months/],
    [{ start: START * 1000, end: (START + 3600) * 1000 }, "MILLISECOND_EPOCH", /bad start: .* is epoch milliseconds/],
    [{ start: START, end: START }, "USAGE", /the period is empty/],
  ])("refuses %j with a UsageError (code %s)", async (periods, code, message) => {
    const error = await store.invoices(periods, PRICES).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).code).toBe(code);
    expect((error as UsageError).message).toMatch(message);
  });
});
