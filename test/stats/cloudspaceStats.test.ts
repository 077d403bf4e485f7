import type { DuckDBConnection } from "@duckdb/node-api";
import { beforeAll, describe, expect, it } from "vitest";
import { cloudspaceStats, UsageError, type SeriesTree } from "../../src/internal.js";
import { expectClose } from "./expectClose.js";
import { fixtureConnection, KBPS, MB, T0, T1, T3, T4, T5 } from "./statsFixture.js";

let connection: DuckDBConnection;
beforeAll(async () => {
  connection = await fixtureConnection();
});

// Cloud space 70 of account 7 (statsFixture.ts): VM 101 (2 vcpus, 4096 MB), VM 102 (0 vcpus,
// 1024 MB, 6 CPU-minutes) and the gateway (1 vcpu, 256 MB: never counted as a machine).
const cloudspace70: [string, SeriesTree][] = [
  // Σ iops of disks 11, 12 (VM 101) and 21 (VM 102: 1 + 1)
  ["vdisk-iops", [15 + 2, 15 + 2, 30 + 6 + 2, 0 + 2]],
  // Σ size / 1024: disks 11 (100), 12 (50, from T3), 21 (20)
  ["capacity", [120 / 1024, 120 / 1024, 170 / 1024, 170 / 1024]],
  // allocated Σ vcpus; inuse Σ cpuMinutes / (60 × Σ vcpus) × 100
  [
    "cpu",
    {
      allocated: [2, 2, 2, 2],
      inuse: [((30 + 6) / 120) * 100, ((60 + 6) / 120) * 100, ((90 + 6) / 120) * 100, (6 / 120) * 100],
    },
  ],
  ["memory", [5120, 5120, 5120, 5120]],
  // MB in the hour (bytes / 1024²): vms = NICs of VMs 101 and 102; gateways = the gateway's NICs
  [
    "network",
    {
      vms: {
        in: [(2 * KBPS + 0 + MB) / MB, (3 * KBPS + 0 + MB) / MB, (1 * KBPS + MB) / MB, (0 + MB) / MB],
        out: [
          (1 * KBPS + 10 * KBPS + 2 * MB) / MB,
          (2 * KBPS + 10 * KBPS + 2 * MB) / MB,
          (4 * KBPS + 2 * MB) / MB,
          (0 + 2 * MB) / MB,
        ],
      },
      // the external NIC's traffic as written (10 MB in tx, 0 in rx) plus the space NIC (1 MB each way)
      gateways: { in: [1, 1, 1, 1], out: [11, 11, 11, 11] },
    },
  ],
];

describe("cloudspaceStats", () => {
  it.each(cloudspace70)("computes %s of a cloud space as the hand-computed series", async (name, expected) => {
    const r = await cloudspaceStats(connection, {
      cloudspaceId: 70,
      accountId: 7,
      from: T0,
      till: T5,
      include: [name],
    });
    expect(r.time).toEqual([T0, T1, T3, T4]);
    expect(Object.keys(r.series)).toEqual([name]);
    expectClose(r.series[name]!, expected);
  });

  it("gives 0 for sums over nothing: a cloud space without a gateway has zero gateway traffic", async () => {
    const r = await cloudspaceStats(connection, { cloudspaceId: 71, from: T0, till: T5, include: ["network", "cpu"] });
    expect(r.series.network).toEqual({
      vms: { in: [4, 4, 4, 4], out: [0, 0, 0, 0] },
      gateways: { in: [0, 0, 0, 0], out: [0, 0, 0, 0] },
    });
    expect(r.series.cpu).toEqual({ allocated: [4, 4, 4, 4], inuse: [50, 50, 50, 50] });
  });

  it("asks for accountId when the cloud space id has samples in several accounts", async () => {
    await expect(
      cloudspaceStats(connection, { cloudspaceId: 70, from: T0, till: T5, include: "memory" }),
    ).rejects.toThrow(UsageError);
  });

  it("keeps the fixed keys with empty arrays when there is no sample", async () => {
    const r = await cloudspaceStats(connection, {
      cloudspaceId: 70,
      accountId: 7,
      from: T5 + 3600,
      till: T5 + 7200,
      include: ["cpu", "network"],
    });
    expect(r).toEqual({
      time: [],
      series: {
        cpu: { allocated: [], inuse: [] },
        network: { vms: { in: [], out: [] }, gateways: { in: [], out: [] } },
      },
    });
  });
});
