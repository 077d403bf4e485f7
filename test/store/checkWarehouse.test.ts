import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DuckDBConnection } from "@duckdb/node-api";
import { memoryWarehouse } from "../helpers/warehouse.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI } from "../helpers/runCli.js";
import type { DecodedAccountHour, Nic, VMachine } from "../../src/capnp/records.js";
import { writeDataset } from "../../src/generate/writeDataset.js";
import { hourPath } from "../../src/generate/hourPath.js";
import { checkWarehouse } from "../../src/store/checkWarehouse.js";
import { formatCheckText } from "../../src/store/formatCheckText.js";
import type { LoadReport } from "../../src/store/types.js";

const T0 = 1790812800; // 2026-10-01T00:00Z
const nic = (id: number): Nic => ({ id, type: "space", tx: 1, rx: 1 });
const machine = (id: number, over: Partial<VMachine> = {}): VMachine => ({
  id,
  type: "vm",
  vcpus: 2,
  cpuMinutes: 10,
  mem: 2048,
  imageName: "Ubuntu",
  status: "RUNNING",
  disks: [],
  networks: [nic(0), nic(0)],
  ...over,
});
const hour = (accountId: number, h: number, machines: VMachine[], rootAccountId = accountId): DecodedAccountHour => ({
  accountId,
  hourEpoch: T0 + h * 3600,
  rootAccountId,
  account: { accountId: rootAccountId, cloudspaces: [{ cloudSpaceId: 1, accountId, state: "DEPLOYED", machines }] },
});
const cleanLoad: LoadReport = {
  inputs: ["x"],
  filesLoaded: 0,
  accountHours: 0,
  duplicates: [],
  skipped: [],
  ignoredPaths: 0,
};

let connection: DuckDBConnection;
let dir: string;
beforeAll(async () => {
  connection = await memoryWarehouse([
    // account 7: hours 0, 1, 4, 5, 9 → missing [2, 4) and [6, 9)
    ...[0, 1, 4, 5, 9].map((h) => hour(7, h, [machine(1), machine(2, { type: "lxc", networks: [nic(3), nic(3)] })])),
    // account 8: a machine with 0 vCPUs in 2 hours and 0 memory in 1; its file says account 80 once
    hour(8, 0, [machine(5, { vcpus: 0 })]),
    hour(8, 1, [machine(5, { vcpus: 0, mem: 0 })], 80),
  ]);
  dir = mkdtempSync(join(tmpdir(), "cloudunits-check-"));
});
afterAll(() => {
  connection.closeSync();
  rmSync(dir, { recursive: true, force: true });
});

describe("check", () => {
  it("lists each account's span and the missing hours inside it as half-open UTC ranges", async () => {
    const report = await checkWarehouse(connection, cleanLoad);
    expect(report.accounts[0]).toEqual({
      accountId: 7,
      firstHour: "2026-10-01T00:00:00Z",
      lastHour: "2026-10-01T09:00:00Z",
      hours: 5,
      missingHours: 5,
      missing: [
        {
          fromEpoch: T0 + 2 * 3600,
          tillEpoch: T0 + 4 * 3600,
          from: "2026-10-01T02:00:00Z",
          till: "2026-10-01T04:00:00Z",
          hours: 2,
        },
        {
          fromEpoch: T0 + 6 * 3600,
          tillEpoch: T0 + 9 * 3600,
          from: "2026-10-01T06:00:00Z",
          till: "2026-10-01T09:00:00Z",
          hours: 3,
        },
      ],
      lostHours: 0,
      lost: [],
      futureHours: 0,
    });
    expect(report.accounts[1]).toMatchObject({ accountId: 8, hours: 2, missingHours: 0, missing: [] });
  });

  it("the text gives each account's span in the half-open notation of its missing ranges, and held + missing = the span", async () => {
    const text = formatCheckText(await checkWarehouse(connection, cleanLoad));
    // hours 0 to 9 are 10 hours: 5 held, 5 missing (it read "00:00 to 09:00, 5 hours", which a reader takes for 9 hours)
    expect(text).toContain(
      "  account 7: [2026-10-01T00:00:00Z, 2026-10-01T10:00:00Z) 10 hours: 5 held, 5 missing\n    missing [2026-10-01T02:00:00Z, 2026-10-01T04:00:00Z) 2 hours\n",
    );
    expect(text).toContain("  account 8: [2026-10-01T00:00:00Z, 2026-10-01T02:00:00Z) 2 hours: 2 held, 0 missing\n");
  });

  it("reports unknown machine types, machines without vCPUs or memory, and files naming another account", async () => {
    const report = await checkWarehouse(connection, cleanLoad);
    expect(report.unknownMachineTypes).toEqual([{ type: "lxc", machines: 1, machineHours: 5 }]);
    expect(report.zeroResources).toEqual([
      {
        accountId: 8,
        cloudspaceId: 1,
        machineId: 5,
        zeroVcpusHours: 2,
        zeroMemoryHours: 1,
        firstHour: "2026-10-01T00:00:00Z",
      },
    ]);
    expect(report.accountIdMismatches).toEqual([{ accountId: 8, hour: "2026-10-01T01:00:00Z", fileAccountId: 80 }]);
  });

  it("counts all-zero NIC ids as the platform quirk and lists only real collisions", async () => {
    const report = await checkWarehouse(connection, cleanLoad);
    expect(report.nicIdsAllZero).toEqual({ machineHours: 7, ofMachineHoursWithSeveralNics: 12 });
    expect(report.nicIdCollisions).toHaveLength(5);
    expect(report.nicIdCollisions[0]).toEqual({
      accountId: 7,
      hour: "2026-10-01T00:00:00Z",
      cloudspaceId: 1,
      machineId: 2,
      isGateway: false,
      nicId: 3,
      nics: 2,
    });
  });

  it("finds the same NIC findings when the NICs are grouped an hour at a time (as a long period is), the first collisions listed in order", async () => {
    const byHour = await checkWarehouse(connection, cleanLoad, { nicRowsPerQuery: 1, limit: 3 });
    expect(byHour.nicIdsAllZero).toEqual({ machineHours: 7, ofMachineHoursWithSeveralNics: 12 });
    expect(byHour.nicIdCollisions.map((c) => [c.accountId, c.hour, c.machineId, c.nicId])).toEqual([
      [7, "2026-10-01T00:00:00Z", 2, 3],
      [7, "2026-10-01T01:00:00Z", 2, 3],
      [7, "2026-10-01T04:00:00Z", 2, 3],
    ]);
    expect(byHour).toEqual(await checkWarehouse(connection, cleanLoad, { limit: 3 }));
    const colliding = machine(3, { networks: [nic(4), nic(4)] });
    const twoAccounts = await memoryWarehouse([
      hour(8, 0, [colliding]),
      hour(7, 1, [colliding]),
      hour(7, 2, [colliding]),
    ]);
    const listed = await checkWarehouse(twoAccounts, cleanLoad, { nicRowsPerQuery: 1, limit: 2 });
    twoAccounts.closeSync();
    expect(listed.nicIdCollisions.map((c) => [c.accountId, c.hour])).toEqual([
      [7, "2026-10-01T01:00:00Z"],
      [7, "2026-10-01T02:00:00Z"],
    ]);
  });

  it("takes NIC ids at the ends of their range (-2^31, 2^31 - 1) as ids: no overflow, a collision is a collision", async () => {
    const MIN = -(2 ** 31);
    const extremes = await memoryWarehouse([
      hour(9, 0, [
        machine(1, { networks: [nic(MIN), nic(MIN)] }),
        machine(2, { networks: [nic(MIN), nic(2 ** 31 - 1)] }),
      ]),
    ]);
    const report = await checkWarehouse(extremes, cleanLoad);
    extremes.closeSync();
    expect(report.nicIdsAllZero).toEqual({ machineHours: 0, ofMachineHoursWithSeveralNics: 2 });
    expect(report.nicIdCollisions).toEqual([
      {
        accountId: 9,
        hour: "2026-10-01T00:00:00Z",
        cloudspaceId: 1,
        machineId: 1,
        isGateway: false,
        nicId: MIN,
        nics: 2,
      },
    ]);
  });

  it("counts empty records: machines with no id and no type, cloud spaces with no id and no state", async () => {
    expect((await checkWarehouse(connection, cleanLoad)).emptyRecords).toEqual({ machineHours: 0, cloudSpaceHours: 0 });
    // What a list of Void reads as: two empty machines, then an empty cloud space.
    const empty = machine(0, { type: "", vcpus: 0, cpuMinutes: 0, mem: 0, imageName: "", status: "", networks: [] });
    const damaged = await memoryWarehouse([
      {
        accountId: 9,
        hourEpoch: T0,
        rootAccountId: 9,
        account: {
          accountId: 9,
          cloudspaces: [
            { cloudSpaceId: 1, accountId: 9, state: "DEPLOYED", machines: [empty, empty, machine(0)] },
            { cloudSpaceId: 0, accountId: 0, state: "", machines: [] },
          ],
        },
      },
    ]);
    try {
      const report = await checkWarehouse(damaged, cleanLoad);
      expect(report.emptyRecords).toEqual({ machineHours: 2, cloudSpaceHours: 1 });
      expect(formatCheckText(report)).toContain(
        "\nempty records (no id, no type or state: a damaged file?): 2 machine-hours, 1 cloud-space-hour\n",
      );
      expect(formatCheckText(await checkWarehouse(connection, cleanLoad))).toContain(
        "\nempty records (no id, no type or state: a damaged file?): none\n",
      );
    } finally {
      damaged.closeSync();
    }
  });

  it("is readable only when no file was skipped, and splits conflicts from unreadable files", async () => {
    const report = await checkWarehouse(connection, {
      ...cleanLoad,
      duplicates: ["b.zip!7/2026/10/1/0/account_capnp.bin"],
      skipped: [
        { file: "a", code: "CONFLICT", reason: "different files" },
        { file: "b", code: "CAPNP_TRUNCATED", reason: "short" },
      ],
    });
    expect(report.readable).toBe(false);
    expect(report.conflicts.map((c) => c.file)).toEqual(["a"]);
    expect(report.unreadable.map((c) => c.file)).toEqual(["b"]);
    expect(report.duplicates).toEqual(["b.zip!7/2026/10/1/0/account_capnp.bin"]);
  });

  it("exits 0 on readable inputs and 3 with a report naming an unreadable file", async () => {
    const tree = join(dir, "tree");
    await writeDataset({ out: tree, accounts: 1, spaces: 1, machines: 2, hours: 3, start: T0, seed: 4 });
    const ok = spawnSync(process.execPath, [CLI, "check", tree, "--format", "json"], { encoding: "utf8" });
    expect(ok.status).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ readable: true, accounts: [{ accountId: 1, hours: 3 }] });
    const bad = join(tree, hourPath(1, T0 + 3600), "account_capnp.bin");
    writeFileSync(bad, "not capnp");
    const r = spawnSync(process.execPath, [CLI, "check", tree], { encoding: "utf8" });
    expect(r.status).toBe(3);
    expect(r.stdout).toContain(`unreadable files: 1\n  ${bad}:`);
    expect(r.stdout).toContain("missing [2026-10-01T01:00:00Z, 2026-10-01T02:00:00Z) 1 hour");
  });
});
