import { DuckDBInstance } from "@duckdb/node-api";
import { describe, expect, it } from "vitest";
import { readColumns } from "../../src/billing/readColumns.js";

describe("readColumns", () => {
  it("gives every row of a query run again with more rows than its last run, then with far fewer", async () => {
    const instance = await DuckDBInstance.create(":memory:");
    const connection = await instance.connect();
    // the same query, window after window: room is made from the last run's rows, so the second
    // run outgrows it (30,000 > 1.1 × 10,000) and the third fills a sliver of it (50 of 33,000)
    const sql = "SELECT range::DOUBLE AS x, (range * 2)::INTEGER AS y FROM range($start::BIGINT, $end::BIGINT)";
    for (const [start, end] of [
      [0, 10_000],
      [10_000, 40_000],
      [40_000, 40_050],
    ] as const) {
      const [x, y] = (await readColumns(connection, sql, { start: BigInt(start), end: BigInt(end) })) as [
        Float64Array,
        Int32Array,
      ];
      expect(x.length).toBe(end - start);
      expect(y.length).toBe(end - start);
      // first and last rows: start and end - 1, doubled in y
      expect([x[0], x.at(-1), y[0], y.at(-1)]).toEqual([start, end - 1, 2 * start, 2 * (end - 1)]);
      expect(x.every((v, i) => v === start + i)).toBe(true);
    }
    connection.closeSync();
    instance.closeSync();
  });
});
