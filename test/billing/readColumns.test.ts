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

  it("reads texts as node-api does: NULLs, short and long, accented, more distinct ones in a chunk than it looks among", async () => {
    const instance = await DuckDBInstance.create(":memory:");
    const connection = await instance.connect();
    // 5,000 rows (3 chunks): a NULL every 7th, 40 distinct texts (12 bytes or fewer, longer, accented), repeating
    const sql = `SELECT CASE WHEN range % 7 = 0 THEN NULL
        WHEN range % 3 = 0 THEN 'short-' || (range % 40)
        WHEN range % 3 = 1 THEN 'Windows Server 2022 Datacenter édition ' || (range % 40)
        ELSE 'zoné' || (range % 40) END AS t FROM range(5000)`;
    const [texts] = (await readColumns(connection, sql, {})) as [(string | null)[]];
    const expected = (await connection.runAndReadAll(sql)).getRowsJS().map(([t]) => t);
    expect(texts).toEqual(expected);
    // row 1: range 1 → 1 % 3 = 1, the long text; row 7 NULL; row 3 the short one
    expect([texts[1], texts[7], texts[3]]).toEqual(["Windows Server 2022 Datacenter édition 1", null, "short-3"]);
    connection.closeSync();
    instance.closeSync();
  });
});
