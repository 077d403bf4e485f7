/**
 * A small hand-made data set for the statistics tests, loaded into an in-memory DuckDB.
 *
 * Account 7, hours T0, T1, T3, T4 (T2 is missing; T-1 and T5 exist and lie outside the
 * period [T0, T5) the tests ask for):
 * - cloud space 70 (DEPLOYED) with its gateway (id 0: external NIC, space NIC),
 *   - VM 101 (2 vcpus, 4096 MB): runs at T0–T3, halted at T4; disk 11 always, disk 12 added
 *     at T3; NIC 0 (space) always, NIC 1 (external) removed at T3;
 *   - VM 102 (0 vcpus — a data-quality case —, 1024 MB, 6 CPU-minutes every hour), disk 21, NIC 0;
 * - cloud space 71 (VIRTUAL, no gateway) with VM 103 (4 vcpus, 8192 MB, 120 CPU-minutes),
 *   disk 31 (1024 GB), one NIC.
 * Account 8, hour T0 only: a cloud space also numbered 70 holding a machine also numbered 101.
 */
import type { DuckDBConnection } from "@duckdb/node-api";
import { memoryWarehouse } from "../helpers/warehouse.js";
import type { DecodedAccountHour, Disk, Nic, VMachine } from "../../src/capnp/records.js";

/** 2026-10-01T00:00Z. */
export const T0 = 1790812800;
export const HOUR = 3600;
export const T1 = T0 + HOUR;
export const T2 = T0 + 2 * HOUR;
export const T3 = T0 + 3 * HOUR;
export const T4 = T0 + 4 * HOUR;
export const T5 = T0 + 5 * HOUR;
/** Bytes in an hour that make 1 KB/s. */
export const KBPS = 1024 * 3600;
/** Bytes that make 1 MB. */
export const MB = 1024 * 1024;

const disk = (id: number, size: number, iopsRead: number, iopsWrite: number): Disk => ({
  id,
  size,
  iopsRead,
  iopsWrite,
  iopsReadMax: iopsRead * 2,
  iopsWriteMax: iopsWrite * 2,
  configuredIops: null,
});
const nic = (type: string, tx: number, rx: number): Nic => ({ id: 0, type, tx, rx });
const vm = (m: Omit<VMachine, "type" | "imageName" | "status"> & { status?: string }): VMachine => ({
  type: "vm",
  imageName: "ubuntu-24.04",
  status: "RUNNING",
  ...m,
});

/** VM 101 at hour index i (0, 1, 3, 4; other hours look like hour 4). */
function vm101(i: number): VMachine {
  const running = i <= 3;
  return vm({
    id: 101,
    vcpus: 2,
    mem: 4096,
    status: running ? "RUNNING" : "HALTED",
    cpuMinutes: [30, 60, 0, 90][i] ?? 0,
    disks: [
      i <= 1 ? disk(11, 100, 10, 5) : running ? disk(11, 100, 20, 10) : disk(11, 100, 0, 0),
      ...(i >= 3 ? [running ? disk(12, 50, 4, 2) : disk(12, 50, 0, 0)] : []),
    ],
    networks: [
      i === 0
        ? nic("space", 1 * KBPS, 2 * KBPS)
        : i === 1
          ? nic("space", 2 * KBPS, 3 * KBPS)
          : running
            ? nic("space", 4 * KBPS, 1 * KBPS)
            : nic("space", 0, 0),
      ...(i <= 1 ? [nic("external", 10 * KBPS, 0)] : []),
    ],
  });
}

function accountSevenHour(i: number): DecodedAccountHour {
  return {
    accountId: 7,
    hourEpoch: T0 + i * HOUR,
    rootAccountId: 7,
    account: {
      accountId: 7,
      cloudspaces: [
        {
          cloudSpaceId: 70,
          accountId: 7,
          state: "DEPLOYED",
          machines: [
            {
              id: 0,
              type: "routeros",
              vcpus: 1,
              cpuMinutes: 10,
              mem: 256,
              imageName: "routeros",
              status: "RUNNING",
              disks: [],
              networks: [nic("external", 10 * MB, 0), nic("space", 1 * MB, 1 * MB)],
            },
            vm101(i),
            vm({
              id: 102,
              vcpus: 0,
              mem: 1024,
              cpuMinutes: 6,
              disks: [disk(21, 20, 1, 1)],
              networks: [nic("space", 2 * MB, 1 * MB)],
            }),
          ],
        },
        {
          cloudSpaceId: 71,
          accountId: 7,
          state: "VIRTUAL",
          machines: [
            vm({
              id: 103,
              vcpus: 4,
              mem: 8192,
              cpuMinutes: 120,
              disks: [disk(31, 1024, 100, 100)],
              networks: [nic("space", 0, 4 * MB)],
            }),
          ],
        },
      ],
    },
  };
}

const accountEightHour: DecodedAccountHour = {
  accountId: 8,
  hourEpoch: T0,
  rootAccountId: 8,
  account: {
    accountId: 8,
    cloudspaces: [
      {
        cloudSpaceId: 70,
        accountId: 8,
        state: "DEPLOYED",
        machines: [vm({ id: 101, vcpus: 1, cpuMinutes: 60, mem: 512, disks: [disk(11, 10, 1, 1)], networks: [] })],
      },
    ],
  },
};

/** The hand-made records: account 7 at T-1, T0, T1, T3, T4, T5 (no T2) and account 8 at T0. */
export function fixtureHours(): DecodedAccountHour[] {
  return [...[-1, 0, 1, 3, 4, 5].map(accountSevenHour), accountEightHour];
}

/** An in-memory warehouse holding the fixture. */
export function fixtureConnection(): Promise<DuckDBConnection> {
  return memoryWarehouse(fixtureHours());
}
