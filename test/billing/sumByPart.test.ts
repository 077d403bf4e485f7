import { describe, expect, it } from "vitest";
import { BillingEngine, type EngineLine } from "../../src/billing/billingEngine.js";
import type { EngineLevel } from "../../src/billing/engineSums.js";
import type { CuRollup } from "../../src/billing/unitNames.js";
import type { AccountHourFacts } from "../../src/load/machineFacts.js";
import { DEFAULT_UNITS } from "../../src/internal.js";
import { linuxVm, vmAccountHour, type FactsVm } from "../helpers/vmFacts.js";

// An account page bills its month cut at every midnight for the account's days alone: the
// engine then sums the cloud spaces and machines over the whole month, not day by day
// (`sumByPart`). Their month's figures must be those summed day by day, to the bit.

const HOUR = 3600;
const DAY = 24 * HOUR;
const T0 = Date.UTC(2026, 9, 1) / 1000;
const TIB = 1024 ** 4;
const UNITS = { ...DEFAULT_UNITS, billableStatuses: ["RUNNING"] };
/** Midnights of 2026-10-02 and 10-03: three days. */
const CUTS = [T0 + DAY, T0 + 2 * DAY];

const vm = linuxVm;

/** An account-hour: cloud space 100 deployed, with a gateway of one external NIC; 200 halted. */
const accountHour = (accountId: number, hour: number, vms: FactsVm[]): AccountHourFacts =>
  vmAccountHour(
    accountId,
    T0 + hour * HOUR,
    vms,
    [
      [100, "DEPLOYED"],
      [200, "HALTED"],
    ],
    new Map([[100, { externalNics: 1, externalBytes: (hour % 5) * 0.3 * TIB }]]),
  );

/**
 * Three days of two accounts, with what makes sums differ: machine 11 resized mid-day and
 * again across a midnight, machine 12 (Windows) gone from hour 10 to 40, machine 13 stopped
 * (compute not billable) every third hour, machine 21 only on the third day, traffic that is
 * no whole number of TiB, and hours 50 to 52 of account 1 missing.
 */
function threeDays(): AccountHourFacts[] {
  const hours: AccountHourFacts[] = [];
  for (let h = 0; h < 72; h++) {
    if (h < 50 || h > 52)
      hours.push(
        accountHour(1, h, [
          vm(100, 11, {
            memMb: h < 30 ? 4096 : 6144,
            vcpus: h < 47 ? 2 : 3,
            externalBytes: h * 12_345_678.9,
          }),
          ...(h >= 10 && h <= 40 ? [] : [vm(100, 12, { imageName: "windows-2022", memMb: 2048, vcpus: 1 })]),
          vm(200, 13, { status: h % 3 === 0 ? "STOPPED" : "RUNNING", sizeGb: 33.3, iopsLimit: 123 }),
          ...(h >= 48 ? [vm(200, 21, { vcpus: 5, externalBytes: 0.75 * TIB })] : []),
        ]),
      );
    hours.push(accountHour(2, h, [vm(100, 31, { memMb: 1000 + h })]));
  }
  return hours;
}

/** The period lines and the lines of each part of an engine cut at `CUTS`, given the levels summed by part (none: every level). */
function billed(rollup: CuRollup, byPart?: EngineLevel[]): { period: EngineLine[]; parts: EngineLine[][] } {
  const engine = new BillingEngine(UNITS, rollup, undefined, false, CUTS);
  if (byPart) engine.sumByPart(byPart);
  for (const h of threeDays()) engine.add(h);
  return { period: engine.finish(), parts: engine.partLines() };
}

const aboveCloudspaces = (lines: EngineLine[]) =>
  lines.filter((l) => l.level === "environment" || l.level === "account");

describe("the billing engine's cloud spaces and machines summed over the whole period", () => {
  it("gives the period lines of every level summed by day, to the bit, and the days' lines of the accounts", () => {
    for (const rollup of ["aggregate", "sum"] as const) {
      const byDay = billed(rollup);
      const whole = billed(rollup, ["account"]);
      expect(whole.period).toEqual(byDay.period);
      // the days hold the accounts' (and the environment's) lines alone, those summed by day
      expect(whole.parts).toEqual(byDay.parts.map(aboveCloudspaces));
      expect(whole.parts.map((lines) => lines.length)).toEqual([3, 3, 3]);
    }
  });

  it("counts a machine's hours and units over the days it had them", () => {
    const { period } = billed("aggregate", ["account"]);
    const machine = (id: number) => period.find((l) => l.level === "machine" && l.machineId === id)!;
    // machine 12: hours 0-9 and 41-71 but 50-52, 10 + 31 - 3 = 38; CU max(2048 / 1024 / 4, 1 / 2) = 0.5 an hour, Windows
    expect([machine(12).sampleHours, machine(12).figures.CU, machine(12).figures.WU]).toEqual([38, 19, 19]);
    // machine 11: 69 hours (72 but 50-52); MU = 4096 / 1024 for hours 0-29 (30), 6144 / 1024 for 39 hours: 120 + 234
    expect([machine(11).sampleHours, machine(11).figures.MU]).toEqual([69, 354]);
    // machine 21: hours 48-71 but 50-52, 21 of them, 0.75 TiB each: 21 × 0.75 = 15.75 NU of its own NICs
    expect([machine(21).sampleHours, machine(21).figures.ownNicNu]).toEqual([21, 15.75]);
  });

  it("sums every level by day when the days' lines of a cloud space or a machine are asked for, or the period is not cut", () => {
    const byDay = billed("aggregate");
    expect(billed("aggregate", ["account", "machine"])).toEqual(byDay);
    expect(billed("aggregate", ["account", "cloudspace"])).toEqual(byDay);
    const uncut = new BillingEngine(UNITS, "aggregate");
    uncut.sumByPart(["account"]);
    for (const h of threeDays()) uncut.add(h);
    expect(uncut.finish()).toEqual(byDay.period);
  });
});
