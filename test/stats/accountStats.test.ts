import type { DuckDBConnection } from "@duckdb/node-api";
import { beforeAll, describe, expect, it } from "vitest";
import { accountStats, type SeriesTree } from "../../src/internal.js";
import { expectClose } from "./expectClose.js";
import { fixtureConnection, KBPS, MB, T0, T1, T3, T4, T5 } from "./statsFixture.js";

let connection: DuckDBConnection;
beforeAll(async () => {
  connection = await fixtureConnection();
});

// Account 7 (statsFixture.ts): cloud space 70 (VMs 101, 102, gateway) and 71 (VM 103:
// 4 vcpus, 8192 MB, 120 CPU-minutes, disk 31 of 1024 GB at 100 + 100 IOPS). T2 is missing.
const capacityTb = [
  (100 + 20 + 1024) / 1024,
  (100 + 20 + 1024) / 1024,
  (150 + 20 + 1024) / 1024,
  (150 + 20 + 1024) / 1024,
];
const account7: [string, SeriesTree][] = [
  ["capacity", capacityTb],
  ["storage-capacity", capacityTb],
  ["vdisk-iops", [15 + 2 + 200, 15 + 2 + 200, 36 + 2 + 200, 0 + 2 + 200]],
  // allocated 2 + 0 + 4 vcpus; inuse Σ cpuMinutes / (60 × 6) × 100
  [
    "cpu",
    { allocated: [6, 6, 6, 6], inuse: [(156 / 360) * 100, (186 / 360) * 100, (216 / 360) * 100, (126 / 360) * 100] },
  ],
  // Σ mem / 1024: (4096 + 1024 + 8192) / 1024
  ["memory", [13, 13, 13, 13]],
  // MB/s over every NIC of machines and gateways: bytes / 1024² / 3600
  [
    "network",
    {
      // rx: VM 101 NIC 0 (2, 3, 1, 0 KB/s-hours), VM 102 1 MB, VM 103 4 MB, gateway 0 + 1 MB
      in: [2 * KBPS + 6 * MB, 3 * KBPS + 6 * MB, 1 * KBPS + 6 * MB, 6 * MB].map((b) => b / MB / 3600),
      // tx: VM 101 NICs (1 + 10, 2 + 10, 4, 0 KB/s-hours), VM 102 2 MB, gateway 10 + 1 MB
      out: [11 * KBPS + 13 * MB, 12 * KBPS + 13 * MB, 4 * KBPS + 13 * MB, 13 * MB].map((b) => b / MB / 3600),
    },
  ],
];

describe("accountStats", () => {
  it.each(account7)("computes %s of an account as the hand-computed series", async (name, expected) => {
    const r = await accountStats(connection, { accountId: 7, from: T0, till: T5, include: [name] });
    expect(r.time).toEqual([T0, T1, T3, T4]);
    expect(Object.keys(r.series)).toEqual([name]);
    expectClose(r.series[name]!, expected);
  });

  it("answers storage-capacity and capacity together, each under the name asked for", async () => {
    const r = await accountStats(connection, {
      accountId: 7,
      from: T0,
      till: T5,
      include: ["storage-capacity", "capacity"],
    });
    expect(Object.keys(r.series)).toEqual(["storage-capacity", "capacity"]);
    expect(r.series["storage-capacity"]).toEqual(r.series.capacity);
  });

  it("does not mix in another account's machines", async () => {
    const r = await accountStats(connection, { accountId: 8, from: T0, till: T5, include: ["memory", "cpu"] });
    expect(r).toEqual({ time: [T0], series: { memory: [0.5], cpu: { allocated: [1], inuse: [100] } } });
  });

  it("skips the missing hour instead of reporting zeros for it", async () => {
    const r = await accountStats(connection, { accountId: 7, from: T1, till: T4, include: "memory" });
    expect(r).toEqual({ time: [T1, T3], series: { memory: [13, 13] } });
  });
});
