import { describe, expect, it } from "vitest";
import { HourlyRows } from "../../src/billing/hourlyRows.js";
import { LEVEL_RANK } from "../../src/billing/engineSums.js";
import { hourFigures, UsageTable } from "../../src/forecast/usageTable.js";

const HOUR = 3600;
const START = Date.UTC(2026, 9, 1) / 1000;

/** An hour's rows: the environment's, then account 1's and one machine of cloud space 10 per id given, CU = 2 each. */
function hourOf(hourEpoch: number, machineIds: number[]): HourlyRows {
  const rows = new HourlyRows(["CU", "SU", "TU", "NU", "ownNicNu"]);
  rows.begin(hourEpoch);
  const figures = Float64Array.of(2, 0, 0, 0, 0);
  rows.setRow(0, LEVEL_RANK.environment, Number.NaN, Number.NaN, Number.NaN, figures, 0);
  rows.push(LEVEL_RANK.account, 1, Number.NaN, Number.NaN, figures, 0);
  for (const id of machineIds) rows.push(LEVEL_RANK.machine, 1, 10, id, figures, 0);
  return rows;
}

function filled(table: UsageTable, hours: number[][]): UsageTable {
  let scratch: Float64Array = new Float64Array(0);
  hours.forEach((machineIds, h) => {
    const rows = hourOf(START + h * HOUR, machineIds);
    table.add(rows, (scratch = hourFigures(rows, undefined, scratch)));
  });
  return table;
}

describe("UsageTable", () => {
  it("holds none of the figures of the table whose memory it took (`release`): an hour without a line is not held", () => {
    // machine 7 has a line in both hours of the first table, machine 8 only in the second hour of the next
    const first = filled(new UsageTable(START, START + 2 * HOUR, ["account", "machine"], undefined), [[7], [7]]);
    expect(first.entities.map((e) => e.key)).toEqual(["account:1", "machine:1:10:7"]);
    const spare = first.release();
    expect(first.entities).toEqual([]);
    const next = filled(new UsageTable(START, START + 2 * HOUR, ["account", "machine"], undefined, spare), [[], [8]]);
    const machine = next.entities.find((e) => e.key === "machine:1:10:8")!;
    // the same memory (the two arrays of the first table), every figure of the first table gone
    expect(spare).toContain(machine.values);
    expect([next.held(machine, 0), next.held(machine, 1)]).toEqual([false, true]);
    expect(next.value(machine, 0, 1)).toBe(2);
    expect(next.entities.map((e) => e.key)).toEqual(["account:1", "machine:1:10:8"]);
  });
});
