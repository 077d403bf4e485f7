import { describe, expect, it } from "vitest";
import { bill, EmptyPeriodError, parseUnits, type BillingOptions } from "../../src/internal.js";
import type { VMachine } from "../../src/capnp/records.js";
import { accountHour, disk, gateway, HOUR, memoryWarehouse, nic, OCT_1, vm } from "../helpers/warehouse.js";
import { calculateFrom } from "../helpers/billFrom.js";

const TB = 1024 ** 4;

/** Bills one hour of one cloud space holding `machines` and returns the account's figures. */
async function oneHour(machines: VMachine[], options: BillingOptions = {}, state = "DEPLOYED") {
  const connection = await memoryWarehouse([accountHour(7, OCT_1, { 11: machines }, { 11: state })]);
  const result = await calculateFrom(
    connection,
    { start: OCT_1, end: OCT_1 + HOUR, accountId: 7 },
    { allUnits: true, ...options },
  );
  if (!("account" in result)) throw new Error("expected an account");
  return result.account;
}

describe("machine units (docs/formulas.md, published examples)", () => {
  it.each([
    { what: "5 GB / 2 vCPU is 1.25 CU", machine: vm(1, { mem: 5 * 1024, vcpus: 2 }), unit: "CU", expected: 1.25 },
    { what: "4 GB / 3 vCPU is 1.5 CU", machine: vm(1, { mem: 4 * 1024, vcpus: 3 }), unit: "CU", expected: 1.5 },
    {
      what: "disks of 12 GB and 512 GB are (12 + 512) / 1024 SU",
      machine: vm(1, { disks: [disk(1, 12), disk(2, 512)] }),
      unit: "SU",
      expected: (12 + 512) / 1024,
    },
    {
      what: "IOPS limits 2000 and 10000 are 30 TU",
      machine: vm(1, { disks: [disk(1, 10, { total: 2000 }), disk(2, 10, { total: 10000 })] }),
      unit: "TU",
      expected: 30,
    },
    {
      what: "read + write limits count when the total limit is 0",
      machine: vm(1, { disks: [disk(1, 10, { read: 300, write: 500 })] }),
      unit: "TU",
      expected: 2,
    },
    {
      what: "the total limit wins over read + write",
      machine: vm(1, { disks: [disk(1, 10, { total: 800, read: 300, write: 500 })] }),
      unit: "TU",
      expected: 2,
    },
    {
      what: "a disk of the older schema (no configuredIops) gives 0 TU",
      machine: vm(1, { disks: [disk(1, 10, null, { read: 900, write: 900 })] }),
      unit: "TU",
      expected: 0,
    },
    {
      what: "a disk without limits gives 0 TU, whatever its measured IOPS",
      machine: vm(1, { disks: [disk(1, 10, {}, { read: 50, write: 50 })] }),
      unit: "TU",
      expected: 0,
    },
    { what: "MU is memory in GiB", machine: vm(1, { mem: 6144 }), unit: "MU", expected: 6 },
    { what: "VCU is the vCPU count", machine: vm(1, { vcpus: 6 }), unit: "VCU", expected: 6 },
    {
      what: "a Windows image gives WU equal to its CU",
      machine: vm(1, { mem: 8192, vcpus: 2, imageName: "Windows Server 2022" }),
      unit: "WU",
      expected: 2,
    },
    {
      what: "Windows detection ignores case",
      machine: vm(1, { mem: 8192, vcpus: 2, imageName: "WINDOWS-10" }),
      unit: "WU",
      expected: 2,
    },
    {
      what: "a Linux image gives 0 WU",
      machine: vm(1, { mem: 8192, vcpus: 2, imageName: "ubuntu" }),
      unit: "WU",
      expected: 0,
    },
    {
      what: "PIU counts a VM's external NICs",
      machine: vm(1, { networks: [nic("external", 0, 0), nic("external", 0, 0), nic("space", 0, 0)] }),
      unit: "PIU",
      expected: 2,
    },
  ] as const)("$what", async ({ machine, unit, expected }) => {
    const account = await oneHour([machine]);
    expect(account.cloudspaces["11"]!.machines["1"]!.consumption[unit]).toBe(expected);
  });

  it("a halted VM still bills its disks (and, by the published rules, its compute)", async () => {
    const halted = vm(1, { mem: 4096, vcpus: 2, status: "HALTED", disks: [disk(1, 512, { total: 400 })] });
    const machine = (await oneHour([halted])).cloudspaces["11"]!.machines["1"]!;
    expect(machine.consumption).toMatchObject({ CU: 1, SU: 0.5, TU: 1 });
    const onlyRunning = parseUnits({ billableStatuses: ["RUNNING"] });
    const restricted = (await oneHour([halted], { units: onlyRunning })).cloudspaces["11"]!.machines["1"]!;
    expect(restricted.consumption).toMatchObject({ CU: 0, SU: 0.5, TU: 1, MU: 0, VCU: 0 });
  });

  it("machines carry CU, SU, TU only; NU appears at cloud space level and above", async () => {
    const connection = await memoryWarehouse([accountHour(7, OCT_1, { 11: [vm(1)] })]);
    const result = await calculateFrom(connection, { start: OCT_1, end: OCT_1 + HOUR, accountId: 7 });
    if (!("account" in result)) throw new Error("expected an account");
    expect(Object.keys(result.account.cloudspaces["11"]!.machines["1"]!.consumption)).toEqual(["CU", "SU", "TU"]);
    expect(Object.keys(result.account.cloudspaces["11"]!.consumption)).toEqual(["CU", "SU", "TU", "NU"]);
    expect(Object.keys(result.account.consumption)).toEqual(["CU", "SU", "TU", "NU"]);
  });
});

describe("rollups", () => {
  const three = [vm(1, { mem: 5120, vcpus: 2 }), vm(2, { mem: 5120, vcpus: 2 }), vm(3, { mem: 5120, vcpus: 4 })];

  it.each([
    // Σmem = 15 GB → 3.75; Σvcpus = 8 → 4: max is 4.
    { rollup: "aggregate", expected: 4 },
    // per VM: max(1.25, 1) + max(1.25, 1) + max(1.25, 2) = 4.5
    { rollup: "sum", expected: 4.5 },
  ] as const)("a cloud space of 3 × 5 GB and 8 vCPUs is $expected CU under $rollup", async ({ rollup, expected }) => {
    const account = await oneHour(three, { cuRollup: rollup });
    expect(account.cloudspaces["11"]!.consumption.CU).toBe(expected);
    expect(account.consumption.CU).toBe(expected);
  });

  it("aggregate CU is computed per hour from the level's own totals, then summed over hours", async () => {
    // Hour 1: a memory-heavy VM (16 GB/1 vCPU → 4 CU) and a CPU-heavy VM (1 GB/8 vCPU → 4 CU); together 17 GB/9 vCPU → 4.5 CU.
    // Hour 2: only the CPU-heavy VM: 4 CU. Over both hours: 8.5 CU-hours at the cloud space (sum rollup: 12).
    const connection = await memoryWarehouse([
      accountHour(7, OCT_1, { 11: [vm(1, { mem: 16384, vcpus: 1 }), vm(2, { mem: 1024, vcpus: 8 })] }),
      accountHour(7, OCT_1 + HOUR, { 11: [vm(2, { mem: 1024, vcpus: 8 })] }),
    ]);
    const params = { start: OCT_1, end: OCT_1 + 2 * HOUR, accountId: 7 };
    const aggregate = await calculateFrom(connection, params);
    const sum = await calculateFrom(connection, params, { cuRollup: "sum" });
    if (!("account" in aggregate) || !("account" in sum)) throw new Error("expected an account");
    expect(aggregate.account.consumption.CU).toBe(8.5);
    expect(sum.account.consumption.CU).toBe(12);
    expect(aggregate.account.cloudspaces["11"]!.machines["2"]!.consumption.CU).toBe(8);
  });

  it("the environment's CU aggregates every account's machines in the same hour", async () => {
    // Account 7: 16 GB/1 vCPU (4 CU); account 8: 1 GB/8 vCPU (4 CU). Environment: 17 GB/9 vCPU → 4.5 CU.
    const connection = await memoryWarehouse([
      accountHour(7, OCT_1, { 11: [vm(1, { mem: 16384, vcpus: 1 })] }),
      accountHour(8, OCT_1, { 12: [vm(2, { mem: 1024, vcpus: 8 })] }),
    ]);
    const environment = await calculateFrom(connection, { start: OCT_1, end: OCT_1 + HOUR });
    expect(environment).toEqual({ consumption: { CU: 4.5, SU: 0, TU: 0, NU: 0 } });
    expect(await calculateFrom(connection, { start: OCT_1, end: OCT_1 + HOUR }, { cuRollup: "sum" })).toEqual({
      consumption: { CU: 8, SU: 0, TU: 0, NU: 0 },
    });
  });

  it("gateways are never billed as machines, but their external traffic is NU of the cloud space", async () => {
    const gw = gateway([nic("external", 0.5 * TB, 0.25 * TB), nic("space", 9 * TB, 9 * TB)]);
    const machine = vm(1, { networks: [nic("external", 0.125 * TB, 0.125 * TB), nic("space", 5 * TB, 5 * TB)] });
    const account = await oneHour([gw, machine]);
    expect(Object.keys(account.cloudspaces["11"]!.machines)).toEqual(["1"]);
    expect(account.cloudspaces["11"]!.consumption.NU).toBe(1);
    expect(account.consumption.NU).toBe(1);
    // 1 GB/1 vCPU: 0.5 CU from the VM alone; the gateway's 256 MB/1 vCPU are not counted.
    expect(account.consumption.CU).toBe(0.5);
  });

  it.each([
    {
      what: "a deployed cloud space whose gateway has an external NIC adds 1 PIU",
      state: "DEPLOYED",
      gwNics: ["external", "space"],
      expected: 1 + 1,
    },
    { what: "a cloud space in another state adds none", state: "DESTROYED", gwNics: ["external"], expected: 1 },
    { what: "a gateway without an external NIC adds none", state: "DEPLOYED", gwNics: ["space"], expected: 1 },
  ])("$what", async ({ state, gwNics, expected }) => {
    const account = await oneHour(
      [gateway(gwNics.map((t) => nic(t, 0, 0))), vm(1, { networks: [nic("external", 0, 0)] })],
      {},
      state,
    );
    expect(account.cloudspaces["11"]!.consumption.PIU).toBe(expected);
    expect(account.consumption.PIU).toBe(expected);
  });
});

describe("periods", () => {
  // Hours 0..47 of October: one VM of 2 GB/1 vCPU (0.5 CU) with a 1024 GB disk (1 SU).
  const hours = Array.from({ length: 48 }, (_, h) =>
    accountHour(7, OCT_1 + h * HOUR, { 11: [vm(1, { mem: 2048, disks: [disk(1, 1024)] })] }),
  );

  it("periods are half-open: start is in, end is out", async () => {
    const connection = await memoryWarehouse(hours);
    const r = await calculateFrom(connection, { start: OCT_1 + HOUR, end: OCT_1 + 3 * HOUR });
    expect(r).toEqual({ consumption: { CU: 1, SU: 2, TU: 0, NU: 0 } });
  });

  it("a split of the period adds up exactly to the whole", async () => {
    const connection = await memoryWarehouse(hours);
    const split = OCT_1 + 17 * HOUR;
    const whole = await calculateFrom(connection, { start: OCT_1, end: OCT_1 + 48 * HOUR });
    const first = await calculateFrom(connection, { start: OCT_1, end: split });
    const second = await calculateFrom(connection, { start: split, end: OCT_1 + 48 * HOUR });
    if (!("consumption" in whole) || !("consumption" in first) || !("consumption" in second))
      throw new Error("expected the environment");
    expect(whole.consumption).toEqual({ CU: 24, SU: 48, TU: 0, NU: 0 });
    for (const u of ["CU", "SU"] as const)
      expect(first.consumption[u]! + second.consumption[u]!).toBe(whole.consumption[u]);
  });

  it("per month divides unit-hours by 720", async () => {
    const connection = await memoryWarehouse(hours);
    const r = await calculateFrom(connection, { start: OCT_1, end: OCT_1 + 48 * HOUR }, { per: "month" });
    expect(r).toEqual({ consumption: { CU: 24 / 720, SU: 48 / 720, TU: 0, NU: 0 } });
  });

  it("an account without samples in the period is refused, naming its hours; allowed empty, zero consumption and no cloud spaces", async () => {
    const connection = await memoryWarehouse(hours);
    const period = { start: OCT_1 - 10 * HOUR, end: OCT_1, accountId: 7 };
    const refused = await calculateFrom(connection, period).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(EmptyPeriodError);
    expect((refused as EmptyPeriodError).held).toEqual({ start: OCT_1, end: OCT_1 + 48 * HOUR });
    const r = (await bill({ source: { connection }, period, produce: { calculate: true }, allowEmpty: true }))
      .calculate;
    expect(r).toEqual({ account: { id: 7, name: "", consumption: { CU: 0, SU: 0, TU: 0, NU: 0 }, cloudspaces: {} } });
  });

  it("ids are numbers and keys their decimal strings; the shape is exactly docs/warehouse.md", async () => {
    const connection = await memoryWarehouse([
      accountHour(7, OCT_1, { 11: [vm(1, { mem: 5120, vcpus: 2, disks: [disk(1, 12)] })] }),
    ]);
    const r = await calculateFrom(connection, { start: OCT_1, end: OCT_1 + HOUR, accountId: 7 });
    expect(JSON.stringify(r)).toBe(
      JSON.stringify({
        account: {
          id: 7,
          name: "",
          consumption: { CU: 1.25, SU: 12 / 1024, TU: 0, NU: 0 },
          cloudspaces: {
            "11": {
              id: 11,
              name: "",
              consumption: { CU: 1.25, SU: 12 / 1024, TU: 0, NU: 0 },
              machines: { "1": { id: 1, name: "", consumption: { CU: 1.25, SU: 12 / 1024, TU: 0 } } },
            },
          },
        },
      }),
    );
  });
});
