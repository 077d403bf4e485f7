import { describe, expect, it } from "vitest";
import { accountHour, HOUR, memoryWarehouse, OCT_1, vm } from "../helpers/warehouse.js";
import { parsePrices, toFocusCsv, warehouseHourly, type BillingLine, type HourlyStream } from "../../src/internal.js";
import { reportFrom } from "../helpers/billFrom.js";

// Exporters take a report and its hourly lines, never a connection: the hourly lines may come
// from anywhere the engine ran, and a stream of another period is refused.
const hours = [0, 1, 2].map((h) =>
  accountHour(7, OCT_1 + h * HOUR, { 11: [vm(1, { mem: 4096, vcpus: 2 }), vm(2, { mem: 1024, vcpus: 1 })] }),
);
const prices = parsePrices({
  currency: "EUR",
  provider: "Example Cloud",
  prices: { CU: "0.01", SU: { perMonth: 36 } },
});
const params = { start: OCT_1, end: OCT_1 + 3 * HOUR };

async function text(chunks: AsyncIterable<string>): Promise<string> {
  let out = "";
  for await (const chunk of chunks) out += chunk;
  return out;
}

describe("an hourly stream", () => {
  it("feeds FOCUS the same rows from lines kept in memory, after the warehouse is closed, as read from it", async () => {
    const connection = await memoryWarehouse(hours);
    const report = await reportFrom(connection, params, {}, { prices });
    const live = warehouseHourly(connection, report);
    const fromWarehouse = await text(toFocusCsv(report, live));
    const kept: BillingLine[][] = [];
    for await (const batch of live.lines(["account", "cloudspace", "machine"])) kept.push(batch);
    const count = await live.count(["account", "cloudspace", "machine"]);
    connection.closeSync();
    const inMemory: HourlyStream = {
      report,
      lines: async function* () {
        yield* kept;
      },
      count: async () => count,
    };
    expect(kept.length).toBe(3); // one batch per hour
    expect(await text(toFocusCsv(report, inMemory))).toBe(fromWarehouse);
    expect(fromWarehouse.split("\r\n").length).toBeGreaterThan(6);
  });

  it("of another period is refused, not written under this report's period", async () => {
    const connection = await memoryWarehouse(hours);
    try {
      const report = await reportFrom(connection, params, {}, { prices });
      const other = await reportFrom(connection, { ...params, end: OCT_1 + 2 * HOUR }, {}, { prices });
      await expect(text(toFocusCsv(report, warehouseHourly(connection, other)))).rejects.toMatchObject({
        code: "USAGE",
      });
    } finally {
      connection.closeSync();
    }
  });
});
