import { DuckDBInstance, type DuckDBConnection } from "@duckdb/node-api";
import { beforeAll, describe, expect, it } from "vitest";
import { appendAccountHours, machineStats, SCHEMA_SQL, UsageError, type SeriesTree } from "../../src/internal.js";
import { fixtureConnection, T0, T1, T3, T4, T5 } from "./statsFixture.js";

let connection: DuckDBConnection;
beforeAll(async () => {
  connection = await fixtureConnection();
});

const period = { from: T0, till: T5 };

// VM 101 of account 7 (statsFixture.ts): hours T0, T1, T3, T4; halted at T4; disk 12 added
// at T3; NIC 1 removed at T3. Values computed by hand from the records.
const machine101: [string, SeriesTree][] = [
  // cpuMinutes / (60 × 2 vcpus) × 100: 30/120, 60/120, 90/120, 0 (halted)
  ["cpu", [25, 50, 75, 0]],
  ["memory", [4096, 4096, 4096, 4096]],
  // iopsRead + iopsWrite per disk; disk 12 is absent before T3
  ["vdisk-iops", { "11": [10 + 5, 10 + 5, 20 + 10, 0], "12": [null, null, 4 + 2, 0] }],
  ["vm-iops", [15, 15, 30 + 6, 0]],
  ["vdisk-capacity", { "11": [100, 100, 100, 100], "12": [null, null, 50, 50] }],
  ["vm-capacity", [100, 100, 150, 150]],
  // bytes / 1024 / 3600 per NIC position; rx is in, tx is out; NIC 1 gone from T3
  [
    "network",
    { "0": { in: [2, 3, 1, 0], out: [1, 2, 4, 0] }, "1": { in: [0, 0, null, null], out: [10, 10, null, null] } },
  ],
];

describe("machineStats", () => {
  it.each(machine101)("computes %s of a machine as the hand-computed series", async (name, expected) => {
    const r = await machineStats(connection, { machineId: 101, accountId: 7, ...period, include: [name] });
    expect(r.time).toEqual([T0, T1, T3, T4]);
    expect(r.series).toEqual({ [name]: expected });
  });

  it("returns only the requested series, all of them aligned with time", async () => {
    const r = await machineStats(connection, {
      machineId: 101,
      accountId: 7,
      ...period,
      include: ["memory", "cpu", "memory"],
    });
    expect(Object.keys(r.series)).toEqual(["memory", "cpu"]);
  });

  it("gives 0 % CPU for a machine with 0 vcpus, whatever its CPU-minutes", async () => {
    const r = await machineStats(connection, { machineId: 102, ...period, include: "cpu" });
    expect(r.series.cpu).toEqual([0, 0, 0, 0]);
  });

  it("leaves out the hour at till and keeps the hour at from (half-open period)", async () => {
    const r = await machineStats(connection, { machineId: 102, from: T1, till: T4, include: "memory" });
    expect(r.time).toEqual([T1, T3]);
    expect(r.series.memory).toEqual([1024, 1024]);
  });

  it("accepts ISO 8601 times", async () => {
    const r = await machineStats(connection, {
      machineId: 102,
      from: "2026-10-01T01:00Z",
      till: "2026-10-01T04:00Z",
      include: "memory",
    });
    expect(r.time).toEqual([T1, T3]);
  });

  it("asks for accountId when the machine id has samples in several accounts", async () => {
    const ask = machineStats(connection, { machineId: 101, ...period, include: "cpu" });
    await expect(ask).rejects.toThrow(UsageError);
    await expect(ask).rejects.toThrow(/machine 101 has samples in 2 accounts .*\(7, 8\).*accountId/);
  });

  it("needs no accountId when only one account has the id in the period", async () => {
    const r = await machineStats(connection, { machineId: 101, from: T1, till: T5, include: "memory" });
    expect(r.series.memory).toEqual([4096, 4096, 4096]);
  });

  it("reads the other account's machine of the same id when asked", async () => {
    const r = await machineStats(connection, { machineId: 101, accountId: 8, ...period, include: ["cpu", "memory"] });
    expect(r).toEqual({ time: [T0], series: { cpu: [100], memory: [512] } });
  });

  it("returns empty arrays for a machine without samples in the period", async () => {
    const r = await machineStats(connection, {
      machineId: 101,
      accountId: 7,
      from: T5 + 3600,
      till: T5 + 7200,
      include: ["cpu", "vdisk-iops", "network"],
    });
    expect(r).toEqual({ time: [], series: { cpu: [], "vdisk-iops": {}, network: {} } });
  });

  it("an id the warehouse has never seen is an error naming the known ones (UNKNOWN_ID), not empty series", async () => {
    const unknown = (request: Parameters<typeof machineStats>[1]) =>
      machineStats(connection, request).then(
        () => undefined,
        (error: unknown) => error as UsageError,
      );
    const machine = await unknown({ machineId: 999, ...period, include: "cpu" });
    expect(machine).toBeInstanceOf(UsageError);
    expect(machine!.code).toBe("UNKNOWN_ID");
    expect(machine!.message).toMatch(/^unknown machine 999 \(not in the data\); known: \d/);
    expect(machine!.message).toContain("101");
    // a machine of another account than the one named
    const elsewhere = await unknown({ machineId: 101, accountId: 9, ...period, include: "cpu" });
    expect(elsewhere!.message).toMatch(/^unknown account 9 \(not in the data\); known: 7, 8/);
  });

  it("never lists the gateway as a machine", async () => {
    await expect(machineStats(connection, { machineId: 0, ...period, include: "memory" })).rejects.toThrow(
      /^unknown machine 0 \(not in the data\); known: 101, 102, 103$/,
    );
  });
});

describe("machineStats on data-quality cases", () => {
  it("sums a machine listed twice in one hour (two cloud spaces) and a disk id listed twice", async () => {
    const instance = await DuckDBInstance.create(":memory:");
    const c = await instance.connect();
    await c.run(SCHEMA_SQL);
    const disk = { id: 1, size: 10, iopsRead: 1, iopsWrite: 2, iopsReadMax: 0, iopsWriteMax: 0, configuredIops: null };
    const machine = {
      id: 500,
      type: "vm",
      vcpus: 2,
      cpuMinutes: 60,
      mem: 1024,
      imageName: "",
      status: "RUNNING",
      networks: [],
      disks: [disk, disk],
    };
    await appendAccountHours(c, [
      {
        accountId: 9,
        hourEpoch: T0,
        rootAccountId: 9,
        account: {
          accountId: 9,
          cloudspaces: [1, 2].map((id) => ({ cloudSpaceId: id, accountId: 9, state: "DEPLOYED", machines: [machine] })),
        },
      },
    ]);
    const r = await machineStats(c, {
      machineId: 500,
      from: T0,
      till: T1,
      include: ["cpu", "memory", "vdisk-iops", "vm-capacity"],
    });
    // cpu: (60 + 60) / (60 × (2 + 2)) × 100; disk 1 four times (two per listing)
    expect(r).toEqual({
      time: [T0],
      series: { cpu: [50], memory: [2048], "vdisk-iops": { "1": [12] }, "vm-capacity": [40] },
    });
  });
});
