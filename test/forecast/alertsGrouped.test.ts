import type { DuckDBConnection } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DecodedAccountHour, VMachine } from "../../src/capnp/records.js";
import { resolveOptions } from "../../src/billing/billingOptions.js";
import { groupedAccountHours } from "../../src/billing/groupedHours.js";
import { alertsToJson } from "../../src/export/alertsReport.js";
import { alerts, parseBudgets, parsePrices, type AlertsRequest } from "../../src/internal.js";
import { writeWarehouseMeta } from "../../src/store/warehouseMeta.js";
import { usagePass } from "../../src/forecast/usagePass.js";
import type { HourlyRows } from "../../src/billing/hourlyRows.js";
import { accountHour, disk, gateway, HOUR, memoryWarehouse, nic, OCT_1, vm } from "../helpers/warehouse.js";

// Alerts read for anomalies a group of accounts at a time (a warehouse too large for one pass)
// read the forecast's accounts' hours grouped in DuckDB (each VM's runs of hours in one
// configuration), not through the engine: these tests hold the alerts to those of the engine
// fed every machine-hour, byte for byte, on a fortnight whose machines come, go and change.

const GIB = 2 ** 30;
/** Oct 1 00:00 to Oct 15 00:00 (336 hours), but account 2's hours 200–209 (no file). */
const HOURS = 336;

/**
 * Account 1: VM 102 away in hours 41–70, VM 103 from 2 to 8 GB at hour 64 and STOPPED in
 * 100–119, VM 104 in hours 150–160 alone, and VM 101's traffic 40 times its own in the last 6
 * hours (an anomaly of the last day); account 2: one VM of 1 CU (2 GB, 2 vCPUs); account 3: a VM
 * and a container in a DISABLED cloud space.
 */
function accountOne(h: number): VMachine[] {
  const bytes = h >= HOURS - 6 ? 40 * GIB : GIB;
  const machines = [
    vm(101, { vcpus: 2, mem: 4096, disks: [disk(1, 1024)], networks: [nic("external", bytes, 0)] }),
    vm(103, { vcpus: 1, mem: h < 64 ? 2048 : 8192, status: h >= 100 && h < 120 ? "STOPPED" : "RUNNING" }),
    gateway([nic("external", GIB, 0)]),
  ];
  if (h <= 40 || h >= 71) machines.push(vm(102, { vcpus: 4, mem: 8192, disks: [disk(1, 512)] }));
  if (h >= 150 && h <= 160) machines.push(vm(104, { vcpus: 2, mem: 4096, imageName: "windows-2022" }));
  return machines;
}

function hours(): DecodedAccountHour[] {
  const out: DecodedAccountHour[] = [];
  for (let h = 0; h < HOURS; h++) {
    const t = OCT_1 + h * HOUR;
    out.push(accountHour(1, t, { 11: accountOne(h) }));
    if (h < 200 || h >= 210) out.push(accountHour(2, t, { 21: [vm(201, { vcpus: 2, mem: 2048 })] }));
    const container = { ...vm(302), type: "container" };
    out.push(
      accountHour(3, t, { 31: [vm(301, { networks: [nic("external", 1000 * h, 0)] }), container] }, { 31: "DISABLED" }),
    );
  }
  return out;
}

/** CU's price changes on Oct 4, 07:00; account 2 is billed in JPY, account 3 in USD. */
const PRICES = parsePrices(
  {
    currency: "EUR",
    prices: { CU: [0.05, { from: "2026-10-04T07:00:00Z", price: 0.055 }], SU: { perMonth: 40 }, TU: 0.002, NU: 20 },
    customers: {
      "2": { currency: "JPY", prices: { CU: 8, SU: { perMonth: 6000 }, TU: 0.3, NU: 3000 } },
      "3": { currency: "USD", prices: { CU: 0.07, SU: { perMonth: 41 }, TU: 0.003, NU: 22 } },
    },
  },
  "test prices",
);
const BUDGETS = parseBudgets({
  budgets: [
    { environment: true, amount: 10 },
    { account: 1, amount: 5, thresholds: [50, 100] },
    { account: 2, unit: "CU", quantity: 400, thresholds: [50, 80] },
  ],
});

let db: DuckDBConnection;
beforeAll(async () => {
  db = await memoryWarehouse(hours());
  await writeWarehouseMeta(db);
}, 60_000);
afterAll(() => db?.closeSync());

describe("alerts of accounts read apart, the forecast's hours grouped", () => {
  it("are the alerts of the engine fed every machine-hour, in one pass or apart, byte for byte", async () => {
    const requests: AlertsRequest[] = [
      { budgets: BUDGETS, prices: PRICES, maxEntityHours: 0 },
      { budgets: BUDGETS, prices: PRICES, maxEntityHours: 0, asOf: OCT_1 + 205 * HOUR, windowHours: 48 },
      { budgets: BUDGETS.filter((b) => b.limit.kind === "quantity"), maxEntityHours: 0 },
    ];
    // the grouped road can read this warehouse: its bytes are whole, no VM has two records in an hour
    const read = await groupedAccountHours(db, {
      start: OCT_1,
      end: OCT_1 + HOURS * HOUR,
      options: resolveOptions({}),
      onHour: () => {},
    });
    expect(read).toBeDefined();
    const grouped = [];
    for (const request of requests) grouped.push(alertsToJson(await alerts(db, request)));
    // the same warehouse without its facts' record: every machine-hour through the engine
    await db.run("DELETE FROM warehouse_meta");
    try {
      for (const [k, request] of requests.entries()) {
        expect(grouped[k], `request ${k}, apart`).toBe(alertsToJson(await alerts(db, request)));
        const together = { ...request, maxEntityHours: undefined };
        expect(grouped[k], `request ${k}, one pass`).toBe(alertsToJson(await alerts(db, together)));
      }
    } finally {
      await writeWarehouseMeta(db);
    }
    const report = await alerts(db, requests[0]!);
    const ids = report.alerts.map((a) => a.id);
    // account 2's CU: 1 CU (max(2,048 / 1,024 / 4, 2 / 2)) in each of its 326 hours held (336 − 10):
    // 326 of its 400 (81.5%), past 80% by the month to date
    const cu = report.alerts.find((a) => a.type === "budget" && a.accountId === 2);
    expect(cu).toMatchObject({ basis: "actual", threshold: 80, monthToDate: 326 });
    expect(ids).toContain("budget:account:1:2026-10:amount=5:100:actual");
    // VM 101's traffic 40 times its own in the last 6 hours
    expect(ids.filter((id) => id.startsWith("anomaly:machine:1:11:101:NU:hour:"))).toEqual([
      "anomaly:machine:1:11:101:NU:hour:2026-10-14T18:00:00Z",
    ]);
  });
});

/**
 * Every hour's rows at every level (ids and figures) and the lines of the period billed (cut at the
 * price change of Oct 4, 07:00), of a pass whose reads hold at most `windowRows` machine rows, of
 * some accounts or all.
 */
async function passOf(windowRows: number, accountIds?: number[]): Promise<string> {
  const hoursSeen: string[] = [];
  const onHour = (rows: HourlyRows) => {
    const n = rows.count;
    hoursSeen.push(
      JSON.stringify([
        rows.hourEpoch,
        Array.from(rows.rank.subarray(0, n)),
        Array.from(rows.accountId.subarray(0, n)),
        Array.from(rows.cloudspaceId.subarray(0, n)).map(String),
        Array.from(rows.machineId.subarray(0, n)).map(String),
        Array.from(rows.figures.subarray(0, n * rows.width)).map(String),
      ]),
    );
  };
  const billed = await usagePass(db, {
    start: OCT_1,
    end: OCT_1 + HOURS * HOUR,
    billed: { start: OCT_1 + 48 * HOUR, splitAt: [OCT_1 + 79 * HOUR] },
    options: resolveOptions({}),
    onHour,
    windowRows,
    ...(accountIds === undefined ? {} : { accountIds }),
  });
  return JSON.stringify({ hoursSeen, billed });
}

describe("alerts' reads in windows of several days, each window's columns in the memory of the one before", () => {
  // 14 days; a day holds 24 × 5 machine rows (4 of account 1 most hours, 1 of account 2, 2 of
  // account 3), fewer on the days VMs 102 and 104 are away or account 2's hours are missing:
  // windows of 1 row are a day each, of 400 rows 3 days, of 10^9 the fortnight at once
  const SIZES = [1, 400, 1e9];

  it("give every hour's rows and the period billed of a read in one window, to the bit, stored facts or rows", async () => {
    for (const accountIds of [undefined, [1, 3]]) {
      const whole = await passOf(1e9, accountIds);
      // every hour of the fortnight is given once (336)
      expect(JSON.parse(whole).hoursSeen).toHaveLength(HOURS);
      for (const size of SIZES) expect(await passOf(size, accountIds), `${size} rows, ${accountIds}`).toBe(whole);
    }
    // the same warehouse without its facts' record: read from the machines', disks' and NICs' rows
    const stored = await passOf(1e9);
    await db.run("DELETE FROM warehouse_meta");
    try {
      for (const size of SIZES) expect(await passOf(size), `${size} rows, from the rows`).toBe(stored);
    } finally {
      await writeWarehouseMeta(db);
    }
  });
});
