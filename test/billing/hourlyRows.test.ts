import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DuckDBConnection } from "@duckdb/node-api";
import {
  makeNames,
  openWarehouse,
  toBillingCsv,
  warehouseHourly,
  writeDataset,
  type BillingLine,
  type BillingOptions,
  type HourlyStream,
  type Period,
} from "../../src/internal.js";
import { BillingEngine, type EngineLine } from "../../src/billing/billingEngine.js";
import { resolveOptions } from "../../src/billing/billingOptions.js";
import { toLine } from "../../src/billing/engineLines.js";
import type { HourlyRows } from "../../src/billing/hourlyRows.js";
import { levelsFor } from "../../src/billing/levels.js";
import { inReportOrder, HourlyRowLines } from "../../src/billing/hourlyRowLines.js";
import { warehouseFacts } from "../../src/billing/warehouseFacts.js";
import { reportFrom } from "../helpers/billFrom.js";
import { HOUR, OCT_1 } from "../helpers/warehouse.js";

// The hourly outputs write the engine's rows (numbers in columns) through one line object
// rewritten row after row; what they write must be what the engine's line objects made, to
// the byte: the same lines (names, per-month quantities, a machine's NU null, ids null below
// the level), in the same order, and the same CSV.

let root: string;
let connection: DuckDBConnection;
let close: () => void;
// names that a CSV quotes or guards, and one of each kind
const names = makeNames([
  { kind: "account", id: 2, name: 'Acme, "Inc."' },
  { kind: "cloudspace", id: 3, name: "=cmd" },
  { kind: "machine", id: 5, name: "web-01" },
]);
const CASES: [string, Period, BillingOptions][] = [
  ["every level", { start: OCT_1, end: OCT_1 + 6 * HOUR }, { names }],
  [
    "one account from an unaligned start, per month, sum rollup, every unit",
    { start: OCT_1 + 1800, end: OCT_1 + 5 * HOUR, accountId: 2 },
    { names, per: "month", cuRollup: "sum", allUnits: true },
  ],
];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "cloudunits-hourrows-"));
  await writeDataset({
    accounts: 3,
    spaces: 2,
    machines: 4,
    hours: 6,
    start: OCT_1,
    seed: 11,
    missingHours: 0.2,
    out: root,
  });
  const warehouse = await openWarehouse([root], { workers: 0 });
  connection = warehouse.connection;
  close = () => warehouse.close();
});
afterAll(async () => {
  close();
  await rm(root, { recursive: true, force: true });
});

/** The engine's hours both ways: its line objects (as `toLine` makes them) and its rows in report order (as the hourly outputs read them). */
async function bothWays(
  period: Period,
  options: BillingOptions,
): Promise<{ objects: BillingLine[][]; rows: HourlyRows[] }> {
  const resolved = resolveOptions(options);
  const levels = levelsFor(period);
  const objects: BillingLine[][] = [];
  const rows: HourlyRows[] = [];
  const byObjects = new BillingEngine(resolved.units, resolved.cuRollup, (lines: EngineLine[]) => {
    objects.push(lines.filter((l) => levels.includes(l.level)).map((l) => toLine(l, resolved)));
  });
  const byRows = new BillingEngine(resolved.units, resolved.cuRollup, {
    rows: (hour) => rows.push(inReportOrder(hour, levels)),
  });
  byRows.keepLevels(levels, []);
  for (const engine of [byObjects, byRows]) {
    for await (const facts of warehouseFacts(connection, period, resolved.units.externalNicType)) engine.add(facts);
    engine.finish();
  }
  return { objects, rows };
}

describe("an engine's hourly rows", () => {
  it.each(CASES)(
    "are its line objects, key for key and in order, made anew or rewritten in place: %s",
    async (_, period, options) => {
      const { objects, rows } = await bothWays(period, options);
      expect(rows.length).toBe(objects.length);
      expect(rows.length).toBeGreaterThan(3);
      const reader = new HourlyRowLines(resolveOptions(options), rows[0]!.names);
      const reused = reader.empty();
      rows.forEach((hour, h) => {
        const fresh: string[] = [];
        const inPlace: string[] = [];
        for (let i = 0; i < hour.count; i++) {
          fresh.push(JSON.stringify(reader.line(hour, i)));
          inPlace.push(JSON.stringify(reader.fill(reused, hour, i)));
        }
        const expected = objects[h]!.map((l) => JSON.stringify(l));
        expect(fresh).toEqual(expected);
        expect(inPlace).toEqual(expected);
      });
      const machines = objects.flat().filter((l) => l.level === "machine");
      expect(machines.length).toBeGreaterThan(10);
      expect(machines.every((l) => l.quantities.NU === null && l.unitHours.NU === null)).toBe(true);
      expect(objects.flat().some((l) => l.name === 'Acme, "Inc."')).toBe(true);
    },
  );

  it.each(CASES)("write the hourly CSV of the line objects, byte for byte: %s", async (_, period, options) => {
    const report = await reportFrom(connection, period, options);
    const stream = warehouseHourly(connection, report);
    const { objects } = await bothWays(period, options);
    const fromRows = await text(toBillingCsv(report, { hourly: stream }));
    const fromObjects = await text(
      toBillingCsv(report, {
        hourly: (async function* () {
          yield* objects;
        })(),
      }),
    );
    expect(fromRows).toBe(fromObjects);
    expect(fromRows.split("\r\n").length).toBe(objects.flat().length + 2);
    // a stream without rows is written from its lines, the same
    const linesOnly: HourlyStream = { report, lines: stream.lines, count: stream.count };
    expect(await text(toBillingCsv(report, { hourly: linesOnly }))).toBe(fromRows);
  });
});

async function text(chunks: AsyncIterable<string>): Promise<string> {
  let out = "";
  for await (const c of chunks) out += c;
  return out;
}
