import type { DuckDBConnection } from "@duckdb/node-api";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openWarehouse, top, type BillingOptions } from "../../src/internal.js";
import { machineFigures } from "../../src/forecast/topMachines.js";
import { writeWarehouseMeta } from "../../src/store/warehouseMeta.js";
import { encodeAccount } from "../../src/generate/encodeAccount.js";
import { hourPath } from "../../src/generate/hourPath.js";
import { linesFrom } from "../helpers/billFrom.js";
import { GROWING_OCTOBER, NOV_1, OCT_1 as SCENARIO_OCT_1, scenarioWarehouse } from "../helpers/scenarioWarehouse.js";
import { HOUR, OCT_1, accountHour, gateway, nic, vm } from "../helpers/warehouse.js";

/**
 * `top` ranks machines by a unit from their configurations grouped in DuckDB (`topMachines.ts`),
 * not from every machine-hour through the billing engine: the same figures as `bill`'s machine
 * lines, to the bit, or the ranking would not be billing's.
 */

/** Hour `h` of account 2: VM 9 with 2 vCPUs and 4 GB until hour 3, then 4 vCPUs; VM 10 (1 vCPU, 1 GB) with an external NIC; a gateway; a machine that is no VM. */
const hour = (h: number) =>
  accountHour(2, OCT_1 + h * HOUR, {
    5: [
      gateway([nic("external", 100, 100)]),
      vm(9, { vcpus: h < 3 ? 2 : 4, mem: 4096 }),
      vm(10, { networks: [nic("external", 1000 * (h + 1), 24)] }),
      vm(11, { type: "container", vcpus: 64 }),
    ],
  });

/** The figures `top` ranks every machine of a period by, and those of `bill`'s machine lines, as [machine, CU, SU, TU, NU]. */
async function bothRoads(connection: DuckDBConnection, start: number, end: number, rules: BillingOptions = {}) {
  const ranked = await top(connection, { start, end, by: "CU", limit: 1000, options: rules });
  const lines = await linesFrom(connection, { start, end }, rules, ["machine"]);
  const billed = lines
    .flatMap((l) =>
      l.level === "machine" ? [[l.machineId, l.quantities.CU, l.quantities.SU, l.quantities.TU, l.ownNicNu]] : [],
    )
    .sort((a, b) => b[1]! - a[1]! || a[0]! - b[0]!);
  return {
    ranked: ranked.rows.map((r) => [r.machineId, r.figures.CU, r.figures.SU, r.figures.TU, r.figures.NU]),
    billed,
    entities: ranked.entities,
  };
}

describe("top's machines from their configurations", () => {
  let root: string;
  let warehouse: Awaited<ReturnType<typeof openWarehouse>>;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "cloudunits-top-machines-"));
    for (let h = 0; h < 5; h++) {
      const file = join(root, hourPath(2, OCT_1 + h * HOUR), "account_capnp.bin");
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, encodeAccount(hour(h).account));
    }
    warehouse = await openWarehouse([root]);
  });
  afterAll(async () => {
    warehouse?.close();
    await rm(root, { recursive: true, force: true });
  });

  it("counts each configuration's hours: a machine reconfigured midway, ranked with billing's figures", async () => {
    const period = { start: OCT_1, end: OCT_1 + 5 * HOUR };
    // the grouped road answers here (else this test would compare the engine with itself)
    const grouped = await machineFigures(warehouse.connection, period, {});
    expect(grouped?.map((m) => [m.machineId, m.figures.CU])).toEqual([
      // VM 9: 3 hours of max(4096/1024/4, 2/2) = 1 CU, then 2 hours of max(1, 4/2) = 2 CU: 3 + 4 = 7
      [9, 7],
      // VM 10: 5 hours of max(1024/1024/4, 1/2) = 0.5 CU: 2.5; the container (11) is not billed
      [10, 2.5],
    ]);
    const { ranked, billed, entities } = await bothRoads(warehouse.connection, period.start, period.end);
    expect(entities).toBe(2);
    expect(ranked).toEqual(billed);
    expect(ranked.map((r) => r.slice(0, 2))).toEqual([
      [9, 7],
      [10, 2.5],
    ]);
  });

  it("gives the machines of a month with machines added midway, and its accounts, the engine's figures, under either CU rule and per month", async () => {
    const connection = await scenarioWarehouse(GROWING_OCTOBER);
    try {
      // its facts are stored (machine_facts): said as ingest says it, so that the grouped road may read them
      await writeWarehouseMeta(connection);
      expect(await machineFigures(connection, { start: SCENARIO_OCT_1, end: NOV_1 }, {})).toBeDefined();
      for (const rules of [{}, { cuRollup: "sum" as const }, { per: "month" as const }]) {
        const { ranked, billed, entities } = await bothRoads(connection, SCENARIO_OCT_1, NOV_1, rules);
        expect(entities, JSON.stringify(rules)).toBe(20); // 2 accounts × 2 cloud spaces × (3 + 2) machines
        expect(ranked, JSON.stringify(rules)).toEqual(billed);
      }
      // accounts by a unit are billed at their level alone (grouped, no machine): every level's bill gives them the same figures
      const accounts = await top(connection, { start: SCENARIO_OCT_1, end: NOV_1, by: "TU", level: "account" });
      const billedAccounts = (await linesFrom(connection, { start: SCENARIO_OCT_1, end: NOV_1 }))
        .flatMap((l) =>
          l.level === "account"
            ? [[l.accountId, l.quantities.CU, l.quantities.SU, l.quantities.TU, l.quantities.NU]]
            : [],
        )
        .sort((a, b) => b[3]! - a[3]! || a[0]! - b[0]!);
      expect(accounts.rows.map((r) => [r.accountId, r.figures.CU, r.figures.SU, r.figures.TU, r.figures.NU])).toEqual(
        billedAccounts,
      );
      // one account alone: its machines only
      const one = await machineFigures(connection, { start: SCENARIO_OCT_1, end: NOV_1, accountId: 1 }, {});
      expect(new Set(one!.map((m) => m.accountId))).toEqual(new Set([1]));
      expect(one).toHaveLength(10);
    } finally {
      connection.closeSync();
    }
  }, 120_000);
});
