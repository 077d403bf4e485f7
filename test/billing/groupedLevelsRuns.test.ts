import { describe, expect, it } from "vitest";
import { BillingEngine } from "../../src/billing/billingEngine.js";
import { resolveOptions } from "../../src/billing/billingOptions.js";
import { linesOf, partsOf } from "../../src/billing/engineLines.js";
import { addGroupedAccount } from "../../src/billing/groupedLevels.js";
import { levelsFor } from "../../src/billing/levels.js";
import { storedFacts } from "../../src/billing/warehouseFacts.js";
import { HOUR, OCT_1, accountHour, gateway, memoryWarehouse, nic, vm } from "../helpers/warehouse.js";

/**
 * An account's levels from `--db` are read from the classes of its identical account-hours and
 * its entities' bytes in runs of whole hours, so DuckDB's hash tables (a row per account-hour)
 * stay those of a run: a class found in several runs is weighted by its hours in each, the bytes
 * summed over the runs, and the figures are those of the whole period read at once, and of every
 * account-hour fed to the engine.
 */
const HOURS = 8;

/** Account 1: a VM resized at hour 2 and back at hour 6 (hours 0-1 and 6-7 are one class), a stopped VM from hour 4, a gateway; bytes every hour. */
function hours() {
  return Array.from({ length: HOURS }, (_, h) => {
    const big = h >= 2 && h < 6;
    return accountHour(1, OCT_1 + h * HOUR, {
      5: [
        gateway([nic("external", 1000 * (h + 1), 500)]),
        vm(9, { vcpus: big ? 4 : 2, mem: big ? 4096 : 2048, networks: [nic("external", 300, 200 * h)] }),
        ...(h >= 4 ? [vm(10, { status: "STOPPED" })] : []),
      ],
    });
  });
}

describe("an account's levels from --db in runs of hours", () => {
  it("gives the same lines and parts in runs of one hour, three account-hours, one run, and fed hour by hour", async () => {
    const connection = await memoryWarehouse(hours());
    const options = resolveOptions({});
    const period = { start: OCT_1, end: OCT_1 + HOURS * HOUR, accountId: 1 };
    const levels = levelsFor(period);
    for (const cuts of [[], [OCT_1 + 3 * HOUR]]) {
      const engineOf = () => new BillingEngine(options.units, options.cuRollup, undefined, false, cuts);
      const billed = (engine: BillingEngine) => ({
        lines: linesOf(engine.finish(), options, levels),
        parts: partsOf(engine, period, cuts, options, levels),
      });
      const grouped = async (perQuery?: number) => {
        const engine = engineOf();
        expect(await addGroupedAccount(connection, period, options.units, cuts, engine, perQuery)).toBe(true);
        return billed(engine);
      };
      const byHour = engineOf();
      for await (const facts of storedFacts(connection, period, options.units.externalNicType)) byHour.add(facts);
      const whole = await grouped();
      // the account, its cloud space, its gateway's space line and its two VMs: lines of every level
      expect(whole.lines.map((l) => l.level)).toContain("machine");
      expect(whole).toEqual(billed(byHour));
      for (const perQuery of [1, 3]) expect(await grouped(perQuery), `runs of ${perQuery}`).toEqual(whole);
    }
  });
});
