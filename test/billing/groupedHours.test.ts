import type { DuckDBConnection } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DecodedAccountHour, VMachine } from "../../src/capnp/records.js";
import { resolveOptions, type BillingOptions } from "../../src/billing/billingOptions.js";
import { groupedAccountHours } from "../../src/billing/groupedHours.js";
import type { HourlyRows } from "../../src/billing/hourlyRows.js";
import { DEFAULT_UNITS } from "../../src/billing/units.js";
import { forecast, forecastToJson, forecastToText, parsePrices } from "../../src/internal.js";
import { usagePass } from "../../src/forecast/usagePass.js";
import { writeWarehouseMeta } from "../../src/store/warehouseMeta.js";
import { accountHour, disk, gateway, HOUR, memoryWarehouse, nic, OCT_1, vm } from "../helpers/warehouse.js";

// The forecast reads the accounts' hours grouped in DuckDB (each VM's runs of hours in one
// configuration) where it can; these tests hold it to the figures of the engine fed every
// machine-hour, to the bit, on a warehouse whose machines come, go, come back and change.

const GIB = 2 ** 30;
/** The hours held: Oct 1 00:00 to Oct 7 05:00 (150), but account 2's 80–89 (no file). */
const HOURS = 150;
const WINDOWS = new Set([31, 32, 63, 64, 127]);

/**
 * VM 102 is away in hours 41–70, VM 106 in 64–127; VM 103 grows from 2 to 8 GB at hour 64 and is
 * STOPPED in 100–119; VM 104 (Windows) runs in the hours of `WINDOWS` alone (the grouped road
 * reads a VM's hours 64 to a row, in two words of 32: these come, go and change at their edges).
 */
function accountOne(h: number): VMachine[] {
  const machines = [
    vm(101, { vcpus: 2, mem: 4096, disks: [disk(1, 1024)], networks: [nic("external", GIB, 0)] }),
    vm(103, { vcpus: 1, mem: h < 64 ? 2048 : 8192, status: h >= 100 && h < 120 ? "STOPPED" : "RUNNING" }),
    gateway([nic("external", GIB, 0)]),
  ];
  if (h <= 40 || h >= 71) machines.push(vm(102, { vcpus: 4, mem: 8192, disks: [disk(1, 512)] }));
  if (WINDOWS.has(h)) machines.push(vm(104, { vcpus: 2, mem: 4096, imageName: "windows-2022" }));
  if (h < 64 || h >= 128) machines.push(vm(106, { vcpus: 1, mem: 1024, disks: [disk(1, 256)] }));
  return machines;
}

/** Three accounts: 1 (above), 2 (one VM with a 800-IOPS disk, no file in hours 80–89), 3 (a VM and a container in a DISABLED cloud space). */
function hours(odd?: (h: number) => VMachine[]): DecodedAccountHour[] {
  const out: DecodedAccountHour[] = [];
  for (let h = 0; h < HOURS; h++) {
    const t = OCT_1 + h * HOUR;
    out.push(accountHour(1, t, { 11: [...accountOne(h), ...(odd?.(h) ?? [])] }));
    if (h < 80 || h >= 90)
      out.push(accountHour(2, t, { 21: [vm(201, { vcpus: 2, mem: 2048, disks: [disk(1, 100, { total: 800 })] })] }));
    const container = { ...vm(302), type: "container" };
    out.push(
      accountHour(3, t, { 31: [vm(301, { networks: [nic("external", 1000 * h, 0)] }), container] }, { 31: "DISABLED" }),
    );
  }
  return out;
}

/** A warehouse of these hours whose facts are stored (as ingest leaves them): the grouped road may read it. */
async function warehouse(odd?: (h: number) => VMachine[]): Promise<DuckDBConnection> {
  const connection = await memoryWarehouse(hours(odd));
  await writeWarehouseMeta(connection);
  return connection;
}

/** Every hour's rows as text, every figure to the bit (a double's exact value, and -0 apart from 0). */
function rowsText(rows: HourlyRows): string[] {
  const out: string[] = [];
  for (let r = 0; r < rows.count; r++) {
    const figures = [...rows.figures.subarray(rows.width * r, rows.width * (r + 1))];
    const bits = figures.map((x) => (Object.is(x, -0) ? "-0" : x.toString(16)));
    out.push(`${rows.hourEpoch} ${rows.rank[r]} ${rows.accountId[r]} ${bits.join(" ")}`);
  }
  return out.sort();
}

const EUR_JPY_USD = parsePrices(
  {
    currency: "EUR",
    prices: { CU: [0.05, { from: "2026-10-04T07:00:00Z", price: 0.055 }], SU: { perMonth: 40 }, TU: 0.002, NU: 20 },
    customers: {
      "2": { currency: "JPY", prices: { CU: 8, SU: { perMonth: 6000 }, TU: 0.3, NU: 3000, PIU: { perMonth: 450 } } },
      "3": { currency: "USD", prices: { CU: 0.07, SU: { perMonth: 41 }, TU: 0.003, NU: 22 } },
    },
  },
  "test prices",
);
const RUNNING_ONLY: BillingOptions = { units: { ...DEFAULT_UNITS, billableStatuses: ["RUNNING"] } };

let db: DuckDBConnection;
beforeAll(async () => {
  db = await warehouse();
}, 60_000);
afterAll(() => db?.closeSync());

describe("the accounts' hours read grouped", () => {
  it("gives every hour's lines of the environment and the accounts, and the month billed, as the engine fed every machine-hour", async () => {
    for (const [options, billed, before] of [
      [{}, { start: OCT_1 + 24 * HOUR, splitAt: [OCT_1 + 79 * HOUR] }, 0],
      [{ ...RUNNING_ONLY, cuRollup: "sum" }, undefined, 2],
      [RUNNING_ONLY, { start: OCT_1, splitAt: [] }, 32],
    ] as const) {
      const resolved = resolveOptions(options);
      // read from `before` hours before the first: the rows of 64 hours begin elsewhere
      const request = { start: OCT_1 - before * HOUR, end: OCT_1 + HOURS * HOUR, billed, options: resolved };
      const grouped: string[] = [];
      const read = await groupedAccountHours(db, { ...request, onHour: (rows) => grouped.push(...rowsText(rows)) });
      const engine: string[] = [];
      const passed = await usagePass(db, {
        ...request,
        levelsAt: () => ["environment", "account"],
        onHour: (rows) => engine.push(...rowsText(rows)),
      });
      expect(read, "read grouped").toBeDefined();
      // an hour is the environment and the accounts held then: 150 + 140 + 150 account-hours
      expect(grouped).toHaveLength(HOURS + 440);
      expect(grouped).toEqual(engine);
      expect(read!.billed).toEqual(passed);
    }
  });

  it("forecasts what the forecast read machine-hour by machine-hour forecasts, in JSON and text, and the figures by hand", async () => {
    const asOfs = [undefined, OCT_1 + 64 * HOUR, OCT_1 + 85 * HOUR];
    const requests = asOfs.flatMap((asOf) =>
      [EUR_JPY_USD, undefined].flatMap((prices) =>
        [{}, RUNNING_ONLY].map((options) => ({ month: "2026-10", asOf, prices, options })),
      ),
    );
    const read = [];
    for (const request of requests) read.push(await forecast(db, request));
    // the same warehouse without its facts' record: every machine-hour through the engine
    await db.run("DELETE FROM warehouse_meta");
    try {
      for (const [k, request] of requests.entries()) {
        const engine = await forecast(db, request);
        expect(forecastToJson(read[k]!), `request ${k}`).toBe(forecastToJson(engine));
        expect(forecastToText(read[k]!), `request ${k}`).toBe(forecastToText(engine));
      }
    } finally {
      await writeWarehouseMeta(db);
    }
    const whole = read[0]!;
    const account = (id: number) => whole.entries.find((e) => e.accountId === id)!;
    // account 1's SU: VM 101's 1,024 GB (1 SU) × 150 h + VM 102's 512 GB (0.5 SU) × (41 + 79) h
    // + VM 106's 256 GB (0.25 SU) × (64 + 22) h = 150 + 60 + 21.5 = 231.5
    expect(account(1).monthToDate.SU).toBe(231.5);
    // its NU: VM 101's and the gateway's 1 GiB an hour, 150 h: 300 GiB = 300 / 1,024 TiB
    expect(account(1).monthToDate.NU).toBe(0.29296875);
    // account 2: 140 hours held of max(2,048 / 1,024 / 4, 2 / 2) = 1 CU and 800 / 400 = 2 TU
    expect([account(2).hoursHeld, account(2).monthToDate.CU, account(2).monthToDate.TU]).toEqual([140, 140, 280]);
    expect(account(2).currency).toBe("JPY");
    expect(whole.amounts!.map((a) => a.currency)).toEqual(["EUR", "JPY", "USD"]);
  });

  it("is not taken when a count would not be exact, and the forecast is the same", async () => {
    for (const odd of [
      // half a byte in hour 5: sums of bytes that are not whole numbers depend on their order
      (h: number) => (h === 5 ? [vm(105, { networks: [nic("external", 0.5, 0)] })] : []),
      // VM 101 twice in hour 70 (both records are billed): its hours' bitmap holds it once
      (h: number) => (h === 70 ? [vm(101, { vcpus: 2, mem: 4096, disks: [disk(1, 1024)] })] : []),
    ]) {
      const connection = await warehouse(odd);
      try {
        const read = await groupedAccountHours(connection, {
          start: OCT_1,
          end: OCT_1 + HOURS * HOUR,
          options: resolveOptions({}),
          onHour: () => expect.unreachable("no hour is given"),
        });
        expect(read).toBeUndefined();
        const f = await forecast(connection, { month: "2026-10", prices: EUR_JPY_USD });
        await connection.run("DELETE FROM warehouse_meta");
        const engine = await forecast(connection, { month: "2026-10", prices: EUR_JPY_USD });
        expect(forecastToJson(f)).toBe(forecastToJson(engine));
      } finally {
        connection.closeSync();
      }
    }
  });
});
