import { describe, expect, it } from "vitest";
import { BillingEngine } from "../../src/billing/billingEngine.js";
import { resolveOptions } from "../../src/billing/billingOptions.js";
import { linesOf, partsOf } from "../../src/billing/engineLines.js";
import { hourRuns, queryValues } from "../../src/billing/groupedFacts.js";
import { addGroupedFacts } from "../../src/billing/groupedFeed.js";
import { seenAsHours } from "../helpers/seenHours.js";
import { HOUR, OCT_1, accountHour, gateway, memoryWarehouse, nic, vm } from "../helpers/warehouse.js";

/**
 * Billing the environment of a long period from `--db` reads its grouped facts in runs of whole
 * hours, so DuckDB's hash tables (a row per account-hour) stay those of a run: the figures, the
 * parts of the period and what data quality reports are the same however the period is cut.
 */
const HOURS = 6;

/** Account 1 every hour (a VM resized at hour 2, a stopped one, a machine of another type, a gateway); account 2 all but hour 3. */
function hours() {
  const out = [];
  for (let h = 0; h < HOURS; h++) {
    const at = OCT_1 + h * HOUR;
    out.push(
      accountHour(1, at, {
        5: [
          gateway([nic("external", 1000 * (h + 1), 500)]),
          vm(9, { vcpus: h < 2 ? 2 : 4, mem: h < 2 ? 2048 : 4096, networks: [nic("external", 300, 200 * h)] }),
          vm(10, { status: "STOPPED" }),
          vm(11, { type: "container" }),
        ],
      }),
    );
    if (h !== 3) out.push(accountHour(2, at, { 7: [vm(20, { vcpus: 8, mem: 8192 })] }));
  }
  return out;
}

describe("billing the environment from --db in runs of hours", () => {
  it("gives the same lines, parts and data quality in runs of one hour, three account-hours, or one run", async () => {
    const connection = await memoryWarehouse(hours());
    const options = resolveOptions({});
    const period = { start: OCT_1, end: OCT_1 + HOURS * HOUR };
    for (const cuts of [[], [OCT_1 + 3 * HOUR]]) {
      const billed = async (perQuery?: number) => {
        const engine = new BillingEngine(options.units, options.cuRollup, undefined, true, cuts);
        expect(await addGroupedFacts(connection, period, options.units, cuts, engine, perQuery)).toBe(true);
        return {
          lines: linesOf(engine.finish(), options, ["environment"]),
          parts: partsOf(engine, period, cuts, options, ["environment"]),
          seen: seenAsHours(engine.seenData()),
        };
      };
      const whole = await billed();
      // 11 account-hours: 2 in every hour but hour 3 (1)
      expect(whole.seen.accountHours).toEqual(
        new Map([
          [1, [0, 1, 2, 3, 4, 5].map((h) => OCT_1 + h * HOUR)],
          [2, [0, 1, 2, 4, 5].map((h) => OCT_1 + h * HOUR)],
        ]),
      );
      // the container: one machine-hour in each of the 6 hours
      expect(whole.seen.unbilledTypes).toEqual(new Map([["container", 6]]));
      expect(whole.lines).toHaveLength(1);
      for (const perQuery of [1, 3]) {
        expect(await billed(perQuery), `runs of ${perQuery}`).toEqual(whole);
      }
    }
  });

  it("cuts the period into runs of whole hours holding at most the account-hours asked, an hour alone when it holds more", async () => {
    const connection = await memoryWarehouse(hours());
    const options = resolveOptions({});
    const values = queryValues({ start: OCT_1, end: OCT_1 + HOURS * HOUR }, options.units, []);
    const runs = async (perQuery: number) =>
      (await hourRuns(connection, values, perQuery)).map((v) => [
        (Number(v.start) - OCT_1) / HOUR,
        (Number(v.end) - OCT_1) / HOUR,
      ]);
    // account-hours per hour: 2, 2, 2, 1, 2, 2
    expect(await runs(1)).toEqual([
      [0, 1],
      [1, 2],
      [2, 3],
      [3, 4],
      [4, 5],
      [5, 6],
    ]);
    // 2 + 2 > 3, so hour by hour until hour 3's 1 joins hour 2's 2
    expect(await runs(3)).toEqual([
      [0, 1],
      [1, 2],
      [2, 4],
      [4, 5],
      [5, 6],
    ]);
    expect(await runs(50_000)).toEqual([[0, 6]]);
  });
});
