import { describe, expect, it } from "vitest";
import { BillingEngine, type EngineLine } from "../../src/billing/billingEngine.js";
import { warehouseFacts } from "../../src/billing/warehouseFacts.js";
import { DEFAULT_UNITS, generateHours } from "../../src/internal.js";
import { HOUR, memoryWarehouse, OCT_1 } from "../helpers/warehouse.js";

/** Every hourly line and period line of an engine fed the hours of `connection`, keeping `keep(hour)` levels. */
async function feed(
  connection: Awaited<ReturnType<typeof memoryWarehouse>>,
  keep?: (hourEpoch: number) => EngineLine["level"][],
) {
  const hourly: EngineLine[] = [];
  const engine = new BillingEngine(DEFAULT_UNITS, "aggregate", (lines) => hourly.push(...lines));
  for await (const facts of warehouseFacts(
    connection,
    { start: OCT_1, end: OCT_1 + 24 * HOUR },
    DEFAULT_UNITS.externalNicType,
  )) {
    if (keep) engine.keepLevels(keep(facts.hourEpoch));
    engine.add(facts);
  }
  return { hourly, period: engine.finish() };
}

const key = (l: EngineLine) => `${l.level}/${l.hourEpoch}/${l.accountId}/${l.cloudspaceId}/${l.machineId}`;

describe("BillingEngine.keepLevels", () => {
  it("leaves out the levels not kept, and gives the others' figures to the bit, also when they change between hours", async () => {
    const connection = await memoryWarehouse([
      ...generateHours({ accounts: 2, spaces: 2, machines: 4, hours: 24, seed: 5 }),
    ]);
    try {
      const all = await feed(connection);
      const noon = OCT_1 + 12 * HOUR;
      // accounts alone until noon, then every level
      const some = await feed(connection, (hour) =>
        hour < noon ? ["environment", "account"] : ["environment", "account", "cloudspace", "machine"],
      );
      const expected = all.hourly.filter(
        (l) => l.level === "environment" || l.level === "account" || l.hourEpoch! >= noon,
      );
      expect(some.hourly.map(key)).toEqual(expected.map(key));
      expect(some.hourly.map((l) => l.figures)).toEqual(expected.map((l) => l.figures));
      expect(some.hourly.some((l) => l.level === "machine" && l.hourEpoch! < noon)).toBe(false);
      // the accounts' and the environment's period sums are every hour's; a machine's, the hours it was kept in
      const periodOf = (lines: EngineLine[], level: EngineLine["level"]) => lines.filter((l) => l.level === level);
      expect(periodOf(some.period, "account")).toEqual(periodOf(all.period, "account"));
      expect(periodOf(some.period, "environment")).toEqual(periodOf(all.period, "environment"));
      const machine = some.period.find((l) => l.level === "machine")!;
      expect(machine.sampleHours).toBe(
        all.hourly.filter(
          (l) => key(l).startsWith("machine/") && l.machineId === machine.machineId && l.hourEpoch! >= noon,
        ).length,
      );
    } finally {
      connection.closeSync();
    }
  });
});
