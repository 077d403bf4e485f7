import { describe, expect, expectTypeOf, it } from "vitest";
import { generateHours } from "../../src/generate/generateHours.js";
import { memoryWarehouse, OCT_1, HOUR } from "../helpers/warehouse.js";
import { hourlyLineCount, hourlyLines, parsePrices, UNIT_NAMES, type BillingLine } from "../../src/internal.js";
import { reportFrom, linesFrom } from "../helpers/billFrom.js";

const key = (l: BillingLine) => `${l.level}/${l.accountId}/${l.cloudspaceId}/${l.machineId}`;

describe("line items", () => {
  it("lines narrow by level: the ids above a level are numbers, those below null; quantities are numbers, a machine's NU null", async () => {
    const connection = await memoryWarehouse([
      ...generateHours({ accounts: 2, spaces: 2, machines: 3, hours: 4, start: OCT_1, seed: 5 }),
    ]);
    const report = await reportFrom(
      connection,
      { start: OCT_1, end: OCT_1 + 4 * HOUR },
      {},
      { prices: parsePrices({ currency: "EUR", prices: { NU: 1 } }) },
    );
    const seen = new Set<string>();
    for (const line of report.lines) {
      seen.add(line.level);
      const ids = [line.accountId, line.cloudspaceId, line.machineId].map((id) => (id === null ? "null" : typeof id));
      const own = UNIT_NAMES.filter((u) => !(u === "NU" && line.level === "machine"));
      expect(
        own.map((u) => typeof line.quantities[u]),
        `${key(line)} quantities`,
      ).toEqual(own.map(() => "number"));
      switch (line.level) {
        case "environment":
          expectTypeOf(line.accountId).toEqualTypeOf<null>();
          expect(ids).toEqual(["null", "null", "null"]);
          break;
        case "account":
          expectTypeOf(line.accountId).toEqualTypeOf<number>();
          expectTypeOf(line.quantities.NU).toEqualTypeOf<number>();
          expect(ids).toEqual(["number", "null", "null"]);
          break;
        case "cloudspace":
        case "gateway":
          expectTypeOf(line.cloudspaceId).toEqualTypeOf<number>();
          expectTypeOf(line.machineId).toEqualTypeOf<null>();
          expect(ids).toEqual(["number", "number", "null"]);
          break;
        case "machine":
          expectTypeOf(line.machineId).toEqualTypeOf<number>();
          expectTypeOf(line.quantities.CU).toEqualTypeOf<number>();
          expectTypeOf(line.quantities.NU).toEqualTypeOf<null>();
          expect(ids).toEqual(["number", "number", "number"]);
          expect(line.quantities.NU).toBeNull();
          break;
      }
    }
    expect([...seen].sort()).toEqual(["account", "cloudspace", "environment", "gateway", "machine"]);
  });

  // 60 hours from 05:00 span three UTC days, so the day-by-day queries of hourlyLines meet at two boundaries.
  it.each(["aggregate", "sum"] as const)(
    "hourly lines add up to the period lines, entity by entity, under %s",
    async (cuRollup) => {
      const connection = await memoryWarehouse([
        ...generateHours({ accounts: 2, spaces: 2, machines: 4, hours: 72, start: OCT_1, seed: 3 }),
      ]);
      const params = { start: OCT_1 + 5 * HOUR, end: OCT_1 + 65 * HOUR };
      const period = await linesFrom(connection, params, { cuRollup });
      const sums = new Map<string, { hours: number; units: Record<string, number> }>();
      let lastHour = -Infinity;
      for await (const batch of hourlyLines(connection, params, { cuRollup })) {
        for (const l of batch) {
          expect(l.hourEpoch!).toBeGreaterThanOrEqual(lastHour);
          lastHour = l.hourEpoch!;
          const s = sums.get(key(l)) ?? { hours: 0, units: {} };
          s.hours += 1;
          for (const u of UNIT_NAMES) s.units[u] = (s.units[u] ?? 0) + (l.quantities[u] ?? 0);
          sums.set(key(l), s);
        }
      }
      expect(lastHour).toBe(params.end - HOUR);
      expect(period.map(key).sort()).toEqual([...sums.keys()].sort());
      expect(await hourlyLineCount(connection, params, { cuRollup })).toBe(
        [...sums.values()].reduce((a, s) => a + s.hours, 0),
      );
      for (const line of period) {
        const s = sums.get(key(line))!;
        expect(line.sampleHours).toBe(s.hours);
        for (const u of UNIT_NAMES) expect(line.quantities[u] ?? 0).toBeCloseTo(s.units[u]!, 9);
      }
      expect(period[0]!.level).toBe("environment");
    },
  );

  it("under sum, every level's CU is the sum of its machines' CU; under aggregate, never more", async () => {
    const connection = await memoryWarehouse([
      ...generateHours({ accounts: 2, spaces: 3, machines: 5, hours: 6, start: OCT_1, seed: 9 }),
    ]);
    const params = { start: OCT_1, end: OCT_1 + 6 * HOUR };
    for (const line of await linesFrom(connection, params, { cuRollup: "sum" })) {
      if (line.level !== "machine") expect(line.quantities.CU).toBeCloseTo(line.cuSumOfMachines, 9);
    }
    for (const line of await linesFrom(connection, params)) {
      if (line.level !== "machine") expect(line.quantities.CU!).toBeLessThanOrEqual(line.cuSumOfMachines + 1e-9);
    }
  });
});
