import type { DuckDBConnection } from "@duckdb/node-api";
import { beforeAll, describe, expect, it } from "vitest";
import { accountHour, disk, gateway, HOUR, memoryWarehouse, nic, OCT_1, vm } from "../helpers/warehouse.js";
import {
  bill,
  Exact,
  monthPeriod,
  parsePrices,
  toBillingCsv,
  type BillingReport,
  type CuRollup,
  type UnitName,
} from "../../src/internal.js";
import { reportFrom } from "../helpers/billFrom.js";

const TIB = 1024 ** 4;
// October 2026: 744 hours. Account 7 per hour: cloud space 11 holds VM 1 (5 GB / 2 vCPU, a 100 GB disk) and VM 2
// (3 GB / 3 vCPU) behind a deployed gateway sending 1/8 TiB; cloud space 12 holds VM 3 (8 GB / 1 vCPU) with a public
// NIC sending 1/16 TiB. Own CU: VMs 1.25, 1.5, 2; cloud spaces (aggregate) 2.5 and 2; account 16 GB / 6 vCPU → 4.
// Account 8: VM 9 (2 GB / 1 vCPU, 0.5 CU).
const hours = Array.from({ length: 744 }, (_, h) => [
  accountHour(7, OCT_1 + h * HOUR, {
    11: [
      gateway([nic("external", TIB / 8, 0)]),
      vm(1, { mem: 5120, vcpus: 2, disks: [disk(1, 100)] }),
      vm(2, { mem: 3072, vcpus: 3 }),
    ],
    12: [vm(3, { mem: 8192, vcpus: 1, networks: [nic("external", TIB / 16, 0)] })],
  }),
  accountHour(8, OCT_1 + h * HOUR, { 21: [vm(9, { mem: 2048, vcpus: 1 })] }),
]).flat();

// CU 30 per CU-month; SU 0.01 per SU-hour; NU 2 per TiB; PIU 0.005 per PIU-hour; account 8 pays nothing for CU.
const prices = parsePrices({
  currency: "EUR",
  prices: { CU: { perMonth: 30 }, SU: "0.01", NU: 2, PIU: "0.005" },
  accounts: { "8": { CU: { perMonth: 0 } } },
});

let connection: DuckDBConnection;
const reports = new Map<CuRollup, BillingReport>();

beforeAll(async () => {
  connection = await memoryWarehouse(hours);
  for (const cuRollup of ["aggregate", "sum"] as const)
    reports.set(cuRollup, await reportFrom(connection, monthPeriod("2026-10"), { cuRollup }, { prices }));
});

const cents = (report: BillingReport, pick: (level: string, id: number | null) => boolean, unit: UnitName | "due") =>
  report.lines
    .map((l, i) => [l, report.money?.[i]] as const)
    .filter(([l]) =>
      pick(l.level, l.level === "gateway" ? -l.cloudspaceId! : (l.machineId ?? l.cloudspaceId ?? l.accountId)),
    )
    .map(([, m]) => (unit === "due" ? m!.amount : m!.charges.find((c) => c.unit === unit)!.amount).toFixed(2));

describe("showback over a 744-hour month", () => {
  it.each([
    // CU: 4 × 744 = 2976 CU-hours = 4.1333… CU-months × 30 = 124.00; sum: 4.75 × 744 = 3534 = 4.908333… × 30 = 147.25.
    // SU: 100/1024 SU × 744 h = 72.65625 SU-hours × 0.01 = 0.7265625 → 0.73. NU: (1/8 + 1/16) × 744 = 139.5 TiB × 2 = 279.00.
    // PIU: (gateway + VM 3) 2 × 744 = 1488 × 0.005 = 7.44.
    { cuRollup: "aggregate", cu: "124.00", due: "411.17" },
    { cuRollup: "sum", cu: "147.25", due: "434.42" },
  ] as const)("account 7's invoice under $cuRollup", ({ cuRollup, cu, due }) => {
    const report = reports.get(cuRollup)!;
    const invoice = report.invoices!.find((i) => i.accountId === 7)!;
    expect(invoice.lines.map((l) => [l.unit, l.amount.toFixed(2)])).toEqual([
      ["CU", cu],
      ["SU", "0.73"],
      ["NU", "279.00"],
      ["PIU", "7.44"],
    ]);
    expect(invoice.amountDue.toFixed(2)).toBe(due);
    // Account 8: CU at a zero price is a line of 0.00.
    expect(report.invoices!.find((i) => i.accountId === 8)!.lines.map((l) => [l.unit, l.amount.toFixed(2)])).toEqual([
      ["CU", "0.00"],
      ["SU", "0.00"],
      ["NU", "0.00"],
      ["PIU", "0.00"],
    ]);
    expect(report.amountDue!.toFixed(2)).toBe(due);
  });

  it.each(["aggregate", "sum"] as const)(
    "under %s, cloud spaces and machines (with gateways) add up to every account line to the cent",
    (cuRollup) => {
      const report = reports.get(cuRollup)!;
      const sum = (list: string[]) => list.reduce((a, c) => a.add(Exact.parse(c)!), Exact.ZERO).toFixed(2);
      for (const invoice of report.invoices!) {
        const mine = (level: string[]) =>
          report.lines
            .map((l, i) => [l, i] as const)
            .filter(([l]) => l.accountId === invoice.accountId && level.includes(l.level));
        for (const line of [...invoice.lines.map((l) => l.unit), "due" as const]) {
          const expected =
            line === "due"
              ? invoice.amountDue.toFixed(2)
              : invoice.lines.find((l) => l.unit === line)!.amount.toFixed(2);
          const at = (levels: string[]) =>
            sum(
              mine(levels).map(([, i]) => {
                const m = report.money![i]!;
                return (line === "due" ? m.amount : m.charges.find((c) => c.unit === line)!.amount).toFixed(2);
              }),
            );
          expect(at(["cloudspace"]), `${invoice.accountId} ${line} cloud spaces`).toBe(expected);
          expect(at(["machine", "gateway"]), `${invoice.accountId} ${line} machines`).toBe(expected);
        }
      }
    },
  );

  it("under aggregate, CU is allocated in proportion to own CU each hour, and money follows it by largest remainder", () => {
    const report = reports.get("aggregate")!;
    const cs = report.lines.filter((l) => l.level === "cloudspace" && l.accountId === 7);
    // Per hour: cloud space 11 gets 4 × 2.5 / 4.5, cloud space 12 4 × 2 / 4.5; over 744 hours.
    expect(cs.map((l) => l.cuAllocatedHours)).toEqual([
      expect.closeTo((744 * 40) / 18, 9),
      expect.closeTo((744 * 32) / 18, 9),
    ]);
    expect(cs.map((l) => l.quantities.CU)).toEqual([2.5 * 744, 2 * 744]);
    // 124.00 split 5 : 4 → 68.888… and 55.111… → 68.89 and 55.11; cloud space 11's 68.89 split 1.25 : 1.5 → 31.313… and 37.576… → 31.31 and 37.58.
    expect(cents(report, (l) => l === "cloudspace", "CU").slice(0, 2)).toEqual(["68.89", "55.11"]);
    expect(cents(report, (l) => l === "machine", "CU").slice(0, 3)).toEqual(["31.31", "37.58", "55.11"]);
  });

  it("the gateway carries its own traffic and public IP below the cloud space", () => {
    const report = reports.get("aggregate")!;
    const gatewayLine = report.lines.find((l) => l.level === "gateway" && l.cloudspaceId === 11)!;
    expect([gatewayLine.quantities.NU, gatewayLine.quantities.PIU]).toEqual([93, 744]);
    // NU 279.00 split 93 : 46.5 → 186.00 and 93.00; in cloud space 11 the VMs sent nothing: the gateway carries all 186.00.
    expect(cents(report, (l) => l === "cloudspace", "NU").slice(0, 2)).toEqual(["186.00", "93.00"]);
    expect(cents(report, (l, id) => l === "gateway" && id === -11, "NU")).toEqual(["186.00"]);
    expect(cents(report, (l) => l === "machine", "NU").slice(0, 3)).toEqual(["0.00", "0.00", "93.00"]);
    // PIU 7.44: the gateway's 744 PIU-hours (3.72) and VM 3's (3.72).
    expect(cents(report, (l, id) => l === "gateway" && id === -11, "PIU")).toEqual(["3.72"]);
  });

  it("--per month leaves NU as TiB transferred", async () => {
    const report = await reportFrom(connection, monthPeriod("2026-10"), { per: "month" }, { prices });
    const account = report.lines.find((l) => l.level === "account" && l.accountId === 7)!;
    expect(account.quantities.NU).toBe(139.5);
    expect(account.quantities.CU).toBeCloseTo(2976 / 720, 12);
    expect(report.amountDue!.toFixed(2)).toBe("411.17");
  });

  it("in the CSV each account's unit amounts add up to its amount due, and the environment's amount due is their total", async () => {
    let csv = "";
    for await (const chunk of toBillingCsv(reports.get("aggregate")!)) csv += chunk;
    const [header, ...rows] = csv
      .trim()
      .split("\r\n")
      .map((r) => r.split(","));
    const at = (name: string) => header!.indexOf(name);
    const columns = (pattern: RegExp) =>
      header!
        .map((h, i) => [h, i] as const)
        .filter(([h]) => pattern.test(h))
        .map(([, i]) => i);
    // an account's unit amounts; below it, each unit's allocated cost
    const amounts = columns(/^[A-Z]+ amount \(EUR\)$/);
    const allocated = columns(/^[A-Z]+ allocated cost \(EUR\)$/);
    expect(allocated.length).toBe(amounts.length);
    for (const row of rows.filter((r) => r[0] !== "environment")) {
      const sum = (row[0] === "account" ? amounts : allocated).reduce(
        (a, i) => a.add(Exact.parse(row[i]!)!),
        Exact.ZERO,
      );
      expect(sum.toFixed(2)).toBe(
        row[at("amount due (EUR)")] ||
          row[at("allocated cost (EUR; the account's lines split by largest remainder; adds up to them exactly)")],
      );
    }
    expect(rows.find((r) => r[0] === "environment")![at("amount due (EUR)")]).toBe("411.17");
  });

  it("an account billed alone has the invoice it has in the bill of every account, and JSON.stringify works", async () => {
    const { report } = await bill({
      source: { connection },
      period: { ...monthPeriod("2026-10"), accountId: 7 },
      prices,
      produce: { levels: ["account"] },
    });
    const [invoice] = report.invoices!;
    expect(JSON.parse(JSON.stringify(invoice))).toMatchObject({ accountId: 7, currency: "EUR", amountDue: "411.17" });
    expect(JSON.stringify(invoice)).toBe(
      JSON.stringify(reports.get("aggregate")!.invoices!.find((i) => i.accountId === 7)),
    );
  });
});

describe("showback ties", () => {
  it("a cloud space's gateway is id 0: a cent tied between it and a machine goes to the gateway", async () => {
    // One hour, cloud space 1: a deployed gateway with a public IP and VM 3 with one: 2 PIU-hours × 0.015 = 0.03,
    // split 1 : 1 → 1.5 cents each; the odd cent goes to the lower id, the gateway's 0.
    const tie = await memoryWarehouse([
      accountHour(5, OCT_1, { 1: [gateway([nic("external", 0, 0)]), vm(3, { networks: [nic("external", 0, 0)] })] }),
    ]);
    const report = await reportFrom(
      tie,
      { start: OCT_1, end: OCT_1 + HOUR },
      {},
      { prices: parsePrices({ currency: "EUR", prices: { PIU: "0.015" } }) },
    );
    expect(cents(report, (l) => l === "cloudspace", "PIU")).toEqual(["0.03"]);
    expect(cents(report, (l, id) => l === "gateway" && id === -1, "PIU")).toEqual(["0.02"]);
    expect(cents(report, (l) => l === "machine", "PIU")).toEqual(["0.01"]);
  });
});
