import { describe, expect, it } from "vitest";
import { BillingEngine, type EngineLine } from "../../src/billing/billingEngine.js";
import type { AccountHourFacts } from "../../src/load/machineFacts.js";
import type { VmFacts } from "../../src/load/vmFacts.js";
import { DEFAULT_UNITS } from "../../src/internal.js";
import { linuxVm, vmAccountHour, type FactsVm } from "../helpers/vmFacts.js";

const HOUR = 3600;
const T0 = Date.UTC(2026, 9, 1) / 1000;
const TIB = 1024 ** 4;
const UNITS = { ...DEFAULT_UNITS, billableStatuses: ["RUNNING"] };

type Vm = FactsVm;

/** One account-hour of account 1, cloud space 100 (deployed, no gateway), its VMs in the order given. */
const accountHour = (hour: number, vms: Vm[]): AccountHourFacts => vmAccountHour(1, T0 + hour * HOUR, vms);

/** A running Linux VM of cloud space 100 (see `linuxVm`). */
const linux = (id: number, more: Partial<VmFacts> = {}): Vm => linuxVm(100, id, more);

/** The hourly lines and period lines of one engine fed `hours` in order. */
function bill(hours: AccountHourFacts[]): { hourly: EngineLine[]; period: EngineLine[] } {
  const hourly: EngineLine[] = [];
  const engine = new BillingEngine(UNITS, "aggregate", (lines) => hourly.push(...lines));
  for (const h of hours) engine.add(h);
  return { hourly, period: engine.finish() };
}

/** The period lines of engines each fed one hour (none has seen a machine before), merged. */
function billHourByHour(hours: AccountHourFacts[]): EngineLine[] {
  const whole = new BillingEngine(UNITS, "aggregate");
  for (const h of hours) {
    const one = new BillingEngine(UNITS, "aggregate");
    one.add(h);
    whole.merge(one.state());
  }
  return whole.finish();
}

const machineHours = (lines: EngineLine[], machineId: number) =>
  lines.filter((l) => l.level === "machine" && l.machineId === machineId);

describe("the billing engine's VM configurations, computed once", () => {
  it("follows a machine whose facts change mid-period: each hour's units are of that hour's facts", () => {
    const windows = {
      ...linux(12),
      imageName: "windows-2022",
      memMb: 2048,
      vcpus: 1,
      sizeGb: 50,
      iopsLimit: 0,
    };
    const hours = [
      accountHour(0, [linux(11), windows]),
      accountHour(1, [linux(11), windows]),
      // machine 11 resized: twice the memory and vCPUs, a disk grown to 300 GB
      accountHour(2, [linux(11, { memMb: 8192, vcpus: 4, sizeGb: 300 }), windows]),
      // then halted (compute not billable), and listed after machine 12
      accountHour(3, [windows, linux(11, { memMb: 8192, vcpus: 4, sizeGb: 300, status: "HALTED" })]),
    ];
    const { hourly, period } = bill(hours);
    // machine 11: CU = max(4096 / 1024 / 4, 2 / 2) = 1, then max(8192 / 1024 / 4, 4 / 2) = 2, then 0 (halted)
    expect(machineHours(hourly, 11).map((l) => l.figures.CU)).toEqual([1, 1, 2, 0]);
    expect(machineHours(hourly, 11).map((l) => l.figures.VCU)).toEqual([2, 2, 4, 0]);
    // SU = size / 1024, whatever the status: 100, 100, 300, 300 GB
    expect(machineHours(hourly, 11).map((l) => l.figures.SU)).toEqual([100 / 1024, 100 / 1024, 300 / 1024, 300 / 1024]);
    const eleven = machineHours(period, 11)[0]!.figures;
    expect(eleven.CU).toBe(4); // 1 + 1 + 2 + 0
    expect(eleven.MU).toBe(16); // 4096, 4096, 8192 MB / 1024, then 0: 4 + 4 + 8
    expect(eleven.SU).toBe(0.78125); // (100 + 100 + 300 + 300) / 1024
    expect(eleven.TU).toBe(8); // 800 / 400 each hour
    // machine 12 unchanged in every hour, listed first in the last: CU = max(2048 / 4096, 1 / 2) = 0.5 an hour, Windows
    const twelve = machineHours(period, 12)[0]!.figures;
    expect([twelve.CU, twelve.WU, twelve.SU]).toEqual([2, 2, 200 / 1024]);
    // the account: its CU from its own totals each hour: max(6144 / 4096, 3 / 2) = 1.5, 1.5,
    // max(10240 / 4096, 5 / 2) = 2.5, then machine 12's alone: 0.5; VCU 3 + 3 + 5 + 1;
    // SU (150 + 150 + 350 + 350) / 1024
    const account = period.find((l) => l.level === "account")!.figures;
    expect([account.CU, account.VCU, account.SU]).toEqual([6, 12, 1000 / 1024]);
  });

  it("gives a machine whose facts do not change the same units every hour, its traffic each hour's own", () => {
    const bytes = [1, 0, 3, 0.5].map((tib) => tib * TIB);
    const hours = bytes.map((b, h) => accountHour(h, [linux(11, { externalBytes: b }), linux(13, { vcpus: 8 })]));
    const { hourly, period } = bill(hours);
    // machine 13: CU = max(4096 / 1024 / 4, 8 / 2) = 4 every hour; machine 11: 1
    expect(machineHours(hourly, 13).map((l) => l.figures.CU)).toEqual([4, 4, 4, 4]);
    expect(machineHours(hourly, 11).map((l) => l.figures.CU)).toEqual([1, 1, 1, 1]);
    // machine 11's own NICs' NU is of each hour's bytes (1, 0, 3, 0.5 TiB), not of its first hour's
    expect(machineHours(hourly, 11).map((l) => l.figures.ownNicNu)).toEqual([1, 0, 3, 0.5]);
    expect(hourly.filter((l) => l.level === "account").map((l) => l.figures.NU)).toEqual([1, 0, 3, 0.5]);
    expect(machineHours(period, 11)[0]!.figures.ownNicNu).toBe(4.5); // 1 + 0 + 3 + 0.5
    expect(machineHours(period, 13)[0]!.figures.CU).toBe(16); // 4 × 4
  });

  it("gives the figures of engines that each saw one hour, to the bit", () => {
    const hours = [0, 1, 2, 3, 4, 5].map((h) =>
      accountHour(h, [
        linux(11, { memMb: h < 3 ? 3000 : 7000, externalBytes: 12345 * h }),
        linux(12, { sizeGb: 33.3, iopsLimit: 123 }),
        ...(h % 2 === 0 ? [linux(14, { status: h === 4 ? "HALTED" : "RUNNING", vcpus: 3 })] : []),
      ]),
    );
    expect(bill(hours).period).toEqual(billHourByHour(hours));
  });
});
