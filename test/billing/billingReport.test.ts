import { describe, expect, it } from "vitest";
import { generateHours } from "../../src/generate/generateHours.js";
import { billWarehouse, parsePrices, reportOf, UsageError } from "../../src/index.js";
import { HOUR, memoryWarehouse, OCT_1 } from "../helpers/warehouse.js";

const PRICES = parsePrices({ currency: "EUR", prices: { CU: "0.05" } });

/** The error `work` rejects with (or fails the test). */
async function rejected(work: Promise<unknown>): Promise<UsageError> {
  const error = await work.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(UsageError);
  return error as UsageError;
}

describe("a report carries the period its figures were billed for", () => {
  it("reportOf takes the billed period by default, and refuses another period, account or rule (code PERIOD_MISMATCH)", async () => {
    const connection = await memoryWarehouse([...generateHours({ accounts: 2, spaces: 1, machines: 2, hours: 6, start: OCT_1, seed: 4 })]);
    const first = { start: OCT_1, end: OCT_1 + 3 * HOUR };
    const billed = await billWarehouse(connection, { ...first, accountId: 1 });
    expect(billed.period).toEqual({ ...first, accountId: 1 });

    const report = await reportOf(billed, { prices: PRICES });
    expect(report.params).toEqual({ ...first, accountId: 1 });
    expect(report.invoices!.map((i) => [i.accountId, i.start, i.end])).toEqual([[1, first.start, first.end]]);
    expect(report.invoices![0]!.amountDue.toNumber()).toBeGreaterThan(0);
    // the same figures with the billed period given again
    expect((await reportOf(billed, { ...first, accountId: 1 }, {}, { prices: PRICES })).amountDue).toEqual(report.amountDue);

    for (const [params, options, says] of [
      [{ start: OCT_1 + 3 * HOUR, end: OCT_1 + 6 * HOUR, accountId: 1 }, {}, /the report's period \(2026-10-01T03:00:00Z to 2026-10-01T06:00:00Z, account 1\) is not the one billed \(2026-10-01T00:00:00Z to 2026-10-01T03:00:00Z, account 1\)/],
      [{ ...first, accountId: 2 }, {}, /account 2\) is not the one billed .*account 1\)/],
      [first, {}, /every account\) is not the one billed/],
      [{ ...first, accountId: 1 }, { per: "month" as const }, /the report's per differ/],
      [{ ...first, accountId: 1 }, { cuRollup: "sum" as const }, /the report's cuRollup differ/],
    ] as const) {
      const error = await rejected(reportOf(billed, params, options, { prices: PRICES }));
      expect(error.code).toBe("PERIOD_MISMATCH");
      expect(error.message).toMatch(says);
    }
  });
});
