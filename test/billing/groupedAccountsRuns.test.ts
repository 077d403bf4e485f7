import type { DuckDBConnection } from "@duckdb/node-api";
import { describe, expect, it } from "vitest";
import { BillingEngine } from "../../src/billing/billingEngine.js";
import { resolveOptions } from "../../src/billing/billingOptions.js";
import { billingPass } from "../../src/billing/billingPass.js";
import { linesOf, partsOf } from "../../src/billing/engineLines.js";
import { addGroupedAccounts } from "../../src/billing/groupedFeed.js";
import type { Level } from "../../src/billing/levels.js";
import { storedFacts } from "../../src/billing/warehouseFacts.js";
import type { VMachine } from "../../src/capnp/records.js";
import { writeWarehouseMeta } from "../../src/store/warehouseMeta.js";
import { seenAsHours } from "../helpers/seenHours.js";
import { HOUR, OCT_1, accountHour, gateway, memoryWarehouse, nic, vm } from "../helpers/warehouse.js";

/**
 * The overview's bill (the environment and the accounts, cut at every midnight) reads each
 * account's VM configurations grouped in DuckDB and feeds them to the engine as they come, in runs
 * of whole hours, keeping none: its lines, parts and what data quality reads are those of the
 * engine fed every account-hour of the stored facts, to the bit, however the period is cut in runs.
 */
const HOURS = 8;
const LEVELS: Level[] = ["environment", "account"];
const PERIOD = { start: OCT_1, end: OCT_1 + HOURS * HOUR };
/** Cut at hour 3 and hour 6: three parts, as a month is cut at midnights. */
const CUTS = [OCT_1 + 3 * HOUR, OCT_1 + 6 * HOUR];

/** Account 1's machines in hour `h`: a gateway, a VM resized at hour 2 and stopped from hour 5, a Windows VM, a container. */
const accountOne = (h: number): VMachine[] => [
  gateway([nic("external", 1000 * (h + 1), 500)]),
  vm(9, {
    vcpus: h < 2 ? 2 : 4,
    mem: h < 2 ? 2048 : 4096,
    status: h < 5 ? "RUNNING" : "STOPPED",
    networks: [nic("external", 300, 200 * h)],
  }),
  vm(10, { vcpus: 2, mem: 8192, imageName: "windows-2022" }),
  vm(11, { type: "container" }),
];

/** Account 1 every hour (`odd` adds machines to it); account 2 all but hour 4, its VM in two cloud spaces by turns. */
async function warehouse(odd: (h: number) => VMachine[] = () => []): Promise<DuckDBConnection> {
  const hours = Array.from({ length: HOURS }, (_, h) => OCT_1 + h * HOUR);
  const connection = await memoryWarehouse([
    ...hours.map((at, h) => accountHour(1, at, { 5: [...accountOne(h), ...odd(h)] })),
    ...hours.flatMap((at, h) =>
      h === 4 ? [] : [accountHour(2, at, { [h % 2 === 0 ? 7 : 8]: [vm(20, { vcpus: 8, mem: 8192 })] })],
    ),
  ]);
  await writeWarehouseMeta(connection);
  return connection;
}

/** The figures of an engine (the environment and the accounts, cut at `CUTS`) fed by `feed`. */
async function billed(feed: (engine: BillingEngine) => Promise<unknown>) {
  const options = resolveOptions({});
  const engine = new BillingEngine(options.units, options.cuRollup, undefined, false, CUTS);
  await feed(engine);
  return {
    lines: linesOf(engine.finish(), options, LEVELS),
    parts: partsOf(engine, PERIOD, CUTS, options, LEVELS),
    seen: seenAsHours(engine.seenData()),
  };
}

/** The engine fed every account-hour of the stored facts (the road every grouped one must equal). */
const everyHour = (connection: DuckDBConnection) =>
  billed(async (engine) => {
    for await (const hour of storedFacts(connection, PERIOD, resolveOptions({}).units.externalNicType))
      engine.add(hour);
  });

describe("the environment and the accounts from --db, grouped, in runs of hours", () => {
  it("gives the lines, parts and data quality of every account-hour fed, in runs of one hour, three account-hours, or one run", async () => {
    const connection = await warehouse();
    const rows = await everyHour(connection);
    // 2 accounts and the environment over the period, each in its 3 parts
    expect(rows.lines).toHaveLength(3);
    expect(rows.parts!.map((p) => p.lines.length)).toEqual([3, 3, 3]);
    // account 2: every hour but hour 4
    expect(rows.seen.accountHours.get(2)).toEqual([0, 1, 2, 3, 5, 6, 7].map((h) => OCT_1 + h * HOUR));
    const units = resolveOptions({}).units;
    for (const perQuery of [1, 3, 50_000]) {
      const grouped = await billed(async (engine) =>
        expect(await addGroupedAccounts(connection, PERIOD, units, CUTS, engine, perQuery)).toBe(true),
      );
      expect(grouped, `runs of ${perQuery} account-hours`).toEqual(rows);
    }
  });

  it("answers by the next road, into an engine of its own, when a value that is not whole turns up after runs were fed", async () => {
    // a VM of 1000.5 MB in the last hour: read in runs of an hour, its run comes after 7 were fed to the engine
    const connection = await warehouse((h) => (h === HOURS - 1 ? [vm(12, { mem: 1000.5 })] : []));
    const units = resolveOptions({}).units;
    await billed(async (engine) =>
      expect(await addGroupedAccounts(connection, PERIOD, units, CUTS, engine, 1)).toBe(false),
    );
    const pass = await billingPass(connection, PERIOD, {}, LEVELS, CUTS);
    expect(pass.road).toBe("stored facts");
    const rows = await everyHour(connection);
    expect({ lines: pass.lines, parts: pass.parts, seen: seenAsHours(pass.seen) }).toEqual(rows);
  });

  it("bills a period of more account-hours than a run holds by the next road when the last run has a value that is not whole", async () => {
    // 305 accounts × 24 hours = 7,320 account-hours: a run of 7,200 (23 hours: 7,015) is fed before the last hour's
    const ACCOUNTS = 305;
    const out = [];
    for (let h = 0; h < 24; h++)
      for (let a = 1; a <= ACCOUNTS; a++)
        out.push(
          accountHour(a, OCT_1 + h * HOUR, { [a]: [vm(a, { mem: h === 23 && a === ACCOUNTS ? 1000.5 : 1024 })] }),
        );
    const connection = await memoryWarehouse(out);
    await writeWarehouseMeta(connection);
    const day = { start: OCT_1, end: OCT_1 + 24 * HOUR };
    const cuts = [OCT_1 + 12 * HOUR];
    const pass = await billingPass(connection, day, {}, LEVELS, cuts);
    expect(pass.road).toBe("stored facts");
    // each account: 24 hours of 1 vCPU and 1,024 MB (the last account's last hour 1,000.5 MB)
    expect(pass.lines.filter((l) => l.level === "account")).toHaveLength(ACCOUNTS);
    const options = resolveOptions({});
    const engine = new BillingEngine(options.units, options.cuRollup, undefined, false, cuts);
    for await (const hour of storedFacts(connection, day, options.units.externalNicType)) engine.add(hour);
    expect(pass.lines).toEqual(linesOf(engine.finish(), options, LEVELS));
  });
});
