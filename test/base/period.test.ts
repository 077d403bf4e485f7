import { describe, expect, it } from "vitest";
import { duckdbApi } from "../../src/base/duckdb.js";
import { UsageError } from "../../src/base/errors.js";
import { checkPeriod, inPeriod, paramTypes, paramValues, periodSql, type Period } from "../../src/base/period.js";

// One definition of which hours a period holds: [start, end), of its account if it names one.
// Files are selected by inPeriod, warehouse rows by periodSql: both must pick the same hours.
const H = 3600;
const cases: [string, Period, number, number, boolean][] = [
  ["the first hour is in", { start: 10 * H, end: 12 * H }, 1, 10 * H, true],
  ["the hour before is out", { start: 10 * H, end: 12 * H }, 1, 9 * H, false],
  ["the last hour is in", { start: 10 * H, end: 12 * H }, 1, 11 * H, true],
  ["the end hour is out", { start: 10 * H, end: 12 * H }, 1, 12 * H, false],
  ["another account's hour is out", { start: 10 * H, end: 12 * H, accountId: 2 }, 1, 10 * H, false],
  ["its account's hour is in", { start: 10 * H, end: 12 * H, accountId: 1 }, 1, 11 * H, true],
];

describe("a period", () => {
  it.each(cases)("%s (inPeriod)", (_name, period, accountId, hourEpoch, inside) => {
    expect(inPeriod(period, accountId, hourEpoch)).toBe(inside);
  });

  it("selects the same rows in SQL as inPeriod does, with and without a table alias", async () => {
    const instance = await duckdbApi().DuckDBInstance.create(":memory:");
    const connection = await instance.connect();
    try {
      await connection.run("CREATE TABLE t (account_id BIGINT, hour_epoch BIGINT)");
      await connection.run("INSERT INTO t SELECT a, h * 3600 FROM range(1, 3) r(a), range(8, 14) s(h)");
      for (const [, period, accountId, hourEpoch, inside] of cases) {
        for (const [sql, alias] of [
          [periodSql(), "t"],
          [periodSql("x"), "x"],
        ] as const) {
          const reader = await connection.runAndReadAll(
            `SELECT count(*)::INTEGER FROM t AS ${alias} WHERE ${sql} AND ${alias}.account_id = ${accountId} AND ${alias}.hour_epoch = ${hourEpoch}`,
            paramValues(period),
            paramTypes(),
          );
          expect(reader.getRowsJS()[0]![0]).toBe(inside ? 1 : 0);
        }
      }
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  });

  it("is refused when empty or not in whole epoch seconds", () => {
    expect(() => checkPeriod({ start: 12 * H, end: 12 * H })).toThrow(UsageError);
    expect(() => checkPeriod({ start: 1.5, end: 12 * H })).toThrow(UsageError);
    expect(() => checkPeriod({ start: 0, end: H, accountId: 1.5 })).toThrow(/bad account id/);
    expect(() => checkPeriod({ start: 0, end: H })).not.toThrow();
  });
});
