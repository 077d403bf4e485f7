import { describe, expect, it } from "vitest";
import { accountHour, HOUR, memoryWarehouse, OCT_1, vm } from "../helpers/warehouse.js";
import { qualityWarnings } from "../../src/internal.js";
import { qualityFrom } from "../helpers/billFrom.js";
import { missingHoursOf } from "../../src/billing/dataQuality.js";
import { addHeldRuns } from "../../src/billing/engineSums.js";

describe("data quality of a period", () => {
  it("lists the missing hours of each account as runs", async () => {
    // Account 7 has hours 0, 1, 4 of [0, 6): missing 2..3 and 5.
    const connection = await memoryWarehouse([0, 1, 4].map((h) => accountHour(7, OCT_1 + h * HOUR, { 11: [vm(1)] })));
    const params = { start: OCT_1, end: OCT_1 + 6 * HOUR };
    const quality = await qualityFrom(connection, params);
    expect(quality.missingHours).toEqual([
      {
        accountId: 7,
        hours: 3,
        runs: [
          { startHour: OCT_1 + 2 * HOUR, endHour: OCT_1 + 3 * HOUR, hours: 2 },
          { startHour: OCT_1 + 5 * HOUR, endHour: OCT_1 + 5 * HOUR, hours: 1 },
        ],
      },
    ]);
    expect(quality.emptyPeriod).toBe(false);
    expect(qualityWarnings(quality, params).map((w) => w.message)).toEqual([
      "account 7: 3 hours missing in [2026-10-01T00:00:00Z, 2026-10-01T06:00:00Z): 2026-10-01T02:00:00Z..2026-10-01T03:00:00Z, 2026-10-01T05:00:00Z",
    ]);
  });

  it("finds the same missing hours whether the hours held come in order, out of order or twice", () => {
    // Account 7 holds hours 0, 1, 4 of [0, 6) (and one before the period): missing 2..3 and 5.
    const params = { start: OCT_1, end: OCT_1 + 6 * HOUR };
    const at = (hours: number[]) => new Map([[7, hours.map((h) => OCT_1 + h * HOUR)]]);
    const now = OCT_1 + 24 * HOUR;
    const inOrder = missingHoursOf(at([-1, 0, 1, 4]), params, undefined, now);
    expect(inOrder).toEqual([
      {
        accountId: 7,
        hours: 3,
        runs: [
          { startHour: OCT_1 + 2 * HOUR, endHour: OCT_1 + 3 * HOUR, hours: 2 },
          { startHour: OCT_1 + 5 * HOUR, endHour: OCT_1 + 5 * HOUR, hours: 1 },
        ],
      },
    ]);
    expect(missingHoursOf(at([4, 0, -1, 1]), params, undefined, now)).toEqual(inOrder);
    expect(missingHoursOf(at([0, 0, 1, 4, 4]), params, undefined, now)).toEqual(inOrder);
    // the same hours as runs of consecutive hours (the grouped roads' `heldRuns`): [-1, 2) and [4, 5)
    const runs = (...pairs: number[][]) => {
      const held = new Map<number, number[]>();
      for (const pair of pairs) addHeldRuns(held, 7, [OCT_1 + pair[0]! * HOUR, OCT_1 + pair[1]! * HOUR]);
      return held;
    };
    expect(missingHoursOf(new Map(), params, undefined, now, undefined, runs([-1, 2], [4, 5]))).toEqual(inOrder);
    // read apart in runs of hours ([-1, 1) then [1, 2): joined), out of order or twice
    expect(runs([-1, 1], [1, 2], [4, 5]).get(7)).toEqual([
      OCT_1 - HOUR,
      OCT_1 + 2 * HOUR,
      OCT_1 + 4 * HOUR,
      OCT_1 + 5 * HOUR,
    ]);
    expect(missingHoursOf(new Map(), params, undefined, now, undefined, runs([4, 5], [-1, 1], [1, 2]))).toEqual(
      inOrder,
    );
    expect(missingHoursOf(new Map(), params, undefined, now, undefined, runs([0, 2], [-1, 1], [4, 5], [4, 5]))).toEqual(
      inOrder,
    );
    // an account's hours in both forms: held when in either
    expect(missingHoursOf(at([0]), params, undefined, now, undefined, runs([1, 2], [4, 5]))).toEqual(
      missingHoursOf(at([0, 1, 4]), params, undefined, now),
    );
  });

  it("an empty period is a warning that names the hours the warehouse holds", async () => {
    const connection = await memoryWarehouse([
      accountHour(7, OCT_1, { 11: [vm(1)] }),
      accountHour(8, OCT_1 + 3 * HOUR, { 21: [vm(2)] }),
    ]);
    const params = { start: OCT_1 + HOUR, end: OCT_1 + 2 * HOUR, accountId: 7 };
    const quality = await qualityFrom(connection, params);
    expect(quality.emptyPeriod).toBe(true);
    expect(quality.held).toEqual({ start: OCT_1, end: OCT_1 + HOUR }); // account 7's hours alone
    expect(qualityWarnings(quality, params).map((w) => [w.code, w.message])).toEqual([
      [
        "EMPTY_PERIOD",
        "the data holds no hour of the period [2026-10-01T01:00:00Z, 2026-10-01T02:00:00Z) for account 7: the result is empty (all zero); it holds [2026-10-01T00:00:00Z, 2026-10-01T01:00:00Z)",
      ],
    ]);
    const all = await qualityFrom(connection, { start: OCT_1 + 5 * HOUR, end: OCT_1 + 6 * HOUR });
    expect(all.held).toEqual({ start: OCT_1, end: OCT_1 + 4 * HOUR });
  });

  it("machines that are not VMs are reported as not billed", async () => {
    const connection = await memoryWarehouse([accountHour(7, OCT_1, { 11: [vm(1), vm(2, { type: "container" })] })]);
    const quality = await qualityFrom(connection, { start: OCT_1, end: OCT_1 + HOUR });
    expect(quality.unbilledMachineTypes).toEqual([{ type: "container", machineHours: 1 }]);
  });

  it("machines and cloud spaces with no id and no type or state are empty records, a warning", async () => {
    // What a list of Void reads as: machines and cloud spaces with every field at its default.
    const empty = vm(0, { type: "", vcpus: 0, mem: 0, imageName: "", status: "" });
    const connection = await memoryWarehouse([
      accountHour(7, OCT_1, { 11: [vm(1), empty, empty], 0: [empty] }, { 0: "" }),
      accountHour(7, OCT_1 + HOUR, { 11: [vm(1), vm(0, { type: "routeros" })], 0: [] }, { 0: "" }),
      accountHour(8, OCT_1, { 12: [vm(0)] }),
    ]);
    const params = { start: OCT_1, end: OCT_1 + 2 * HOUR, accountId: 7 };
    const quality = await qualityFrom(connection, params);
    expect(quality.emptyRecords).toEqual({ machineHours: 3, cloudSpaceHours: 2 });
    const warnings = qualityWarnings(quality, params).filter((w) => w.code === "EMPTY_RECORDS");
    expect(warnings.map((w) => w.message)).toEqual([
      "3 machine-hours and 2 cloud-space-hours are empty records (no id, no type or state): a damaged file?",
    ]);
    // A VM numbered 0 with a type is not empty, nor is the gateway (id 0, routeros).
    expect((await qualityFrom(connection, { start: OCT_1, end: OCT_1 + HOUR, accountId: 8 })).emptyRecords).toEqual({
      machineHours: 0,
      cloudSpaceHours: 0,
    });
  });

  it("skipped files and duplicates of the load report travel with the period", async () => {
    const connection = await memoryWarehouse([accountHour(7, OCT_1, { 11: [vm(1)] })]);
    const load = {
      inputs: ["a.zip"],
      filesLoaded: 1,
      accountHours: 1,
      duplicates: ["b.zip!7/2026/10/1/0/account_capnp.bin"],
      skipped: [{ file: "c.bin", code: "CAPNP_TRUNCATED", reason: "too short" }],
      ignoredPaths: 0,
    };
    const params = { start: OCT_1, end: OCT_1 + HOUR };
    const warnings = qualityWarnings(await qualityFrom(connection, params, load), params);
    expect(warnings.map((w) => w.message)).toEqual([
      "skipped bad file c.bin: CAPNP_TRUNCATED: too short",
      "1 byte-identical duplicate file dropped",
    ]);
  });
});
