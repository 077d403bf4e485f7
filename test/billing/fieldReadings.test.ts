import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  DEFAULT_UNITS,
  encodeAccount,
  hourPath,
  machineStats,
  parseUnits,
  UsageError,
  type Units,
} from "../../src/internal.js";
import { runCli } from "../helpers/runCli.js";
import { linesFrom } from "../helpers/billFrom.js";
import { accountHour, gateway, HOUR, memoryWarehouse, nic, OCT_1, vm } from "../helpers/warehouse.js";

// How the files' cpuMinutes and NIC tx/rx are read (docs/formulas.md, "Field readings"): as
// today, CPU-minutes and bytes; or as the platform's public collectors write them, the hour's
// busy vCPUs ÷ 60 and packets per second counted on the host's tap device (tx: what the machine
// received). Billing (NU) and the statistics series read them alike.

const TIB = 1024 ** 4;
const COLLECTORS: Partial<Units> = {
  cpuReading: "busy-vcpus-per-60",
  nicReading: "host-packets-per-second",
  nicBytesPerValue: 1000,
};

// Account 7, one hour: machine 1 (2 vCPUs) with cpuMinutes 0.01 and an external NIC of tx 2, rx 1;
// the gateway's external NIC tx 4, rx 0 (the collectors never set a gateway's rx).
const HOURS = [
  accountHour(7, OCT_1, {
    11: [gateway([nic("external", 4, 0)]), vm(1, { vcpus: 2, cpuMinutes: 0.01, networks: [nic("external", 2, 1)] })],
  }),
];
const PERIOD = { start: OCT_1, end: OCT_1 + HOUR, accountId: 7 };

describe("field readings", () => {
  it.each([
    // reading, NU of the account (machine's 3 + gateway's 4 values), the machine's CPU in use (%), its NIC in and out (KB/s)
    ["bytes (the default)", {}, 7 / TIB, (0.01 / (60 * 2)) * 100, 1 / 1024 / 3600, 2 / 1024 / 3600],
    // 7 packets/s × 3600 s × 1000 bytes; 0.01 × 60 = 0.6 busy vCPUs of 2 = 30%; in = host tx = 2 packets/s × 1000 bytes
    ["the public collectors'", COLLECTORS, (7 * 3600 * 1000) / TIB, 30, 2000 / 1024, 1000 / 1024],
  ] as const)(
    "%s: NU, the cpu series and the network series read the fields alike",
    async (_, readings, nu, cpuInUse, nicIn, nicOut) => {
      const connection = await memoryWarehouse(HOURS);
      const units = { ...DEFAULT_UNITS, ...readings };
      const [account] = await linesFrom(connection, PERIOD, { units }, ["account"]);
      expect(account!.quantities.NU! / nu).toBeCloseTo(1, 12);
      const stats = await machineStats(connection, {
        machineId: 1,
        accountId: 7,
        from: OCT_1,
        till: OCT_1 + HOUR,
        include: ["cpu", "network"],
        readings: units,
      });
      expect((stats.series.cpu as number[])[0]).toBeCloseTo(cpuInUse, 12);
      const network = stats.series.network as Record<string, { in: number[]; out: number[] }>;
      expect(network["0"]!.in[0]).toBeCloseTo(nicIn, 12);
      expect(network["0"]!.out[0]).toBeCloseTo(nicOut, 12);
    },
  );

  it("stats --units reads the series as the units file says", async () => {
    const dir = await mkdtemp(join(tmpdir(), "cloudunits-readings-"));
    try {
      const hour = HOURS[0]!;
      await mkdir(join(dir, "data", hourPath(7, OCT_1)), { recursive: true });
      await writeFile(join(dir, "data", hourPath(7, OCT_1), "account_capnp.bin"), encodeAccount(hour.account));
      await writeFile(
        join(dir, "units.yaml"),
        "cpuReading: busy-vcpus-per-60\nnicReading: host-packets-per-second\nnicBytesPerValue: 1024\n",
      );
      const args = [
        "stats",
        "machine",
        join(dir, "data"),
        "--id",
        "1",
        "--from",
        String(OCT_1),
        "--till",
        String(OCT_1 + HOUR),
        "--include",
        "cpu,network",
      ];
      const plain = JSON.parse((await runCli(args)).stdout);
      const read = await runCli([...args, "--units", join(dir, "units.yaml")]);
      expect(read.code).toBe(0);
      const collectors = JSON.parse(read.stdout);
      // the file holds cpuMinutes as a 32-bit float: 0.01 to 7 digits
      expect(plain.series.cpu[0] / ((0.01 / 120) * 100)).toBeCloseTo(1, 6);
      expect(collectors.series.cpu[0] / 30).toBeCloseTo(1, 6);
      // 1024-byte packets: in = host tx = 2 packets/s = 2 KB/s, out = host rx = 1 KB/s
      expect(collectors.series.network).toEqual({ "0": { in: [2], out: [1] } });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it.each([
    [{ cpuReading: "percent" }, /cpuReading must be one of cpu-minutes, busy-vcpus-per-60, got "percent"/],
    [{ nicReading: 3 }, /nicReading must be one of bytes, host-packets-per-second, got 3/],
  ])("a units file with %j is refused, naming the choices", (value, message) => {
    expect(() => parseUnits(value, "units.yaml")).toThrow(UsageError);
    expect(() => parseUnits(value, "units.yaml")).toThrow(message);
  });

  it("a units file that names no reading reads CPU-minutes and bytes", () => {
    expect(parseUnits({ gbPerCu: 8 })).toMatchObject({
      cpuReading: "cpu-minutes",
      nicReading: "bytes",
      nicBytesPerValue: 1,
    });
  });
});
