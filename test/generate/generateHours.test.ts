import { describe, expect, it } from "vitest";
import {
  generateHours,
  UsageError,
  type DecodedAccountHour,
  type GenerateOptions,
  type VMachine,
} from "../../src/index.js";

const options: GenerateOptions = { accounts: 3, spaces: 2, machines: 5, hours: 24, seed: 7 };
const hours = [...generateHours(options)];

const vms = (h: DecodedAccountHour): VMachine[] =>
  h.account.cloudspaces.flatMap((cs) => cs.machines.filter((m) => m.type === "vm"));
const gateways = (h: DecodedAccountHour): VMachine[] =>
  h.account.cloudspaces.flatMap((cs) => cs.machines.filter((m) => m.type === "routeros"));
const accountIds = [1, 2, 3];

/** Machine ids present per hour index, for one account. */
function presence(accountId: number): Set<number>[] {
  return hours.filter((h) => h.accountId === accountId).map((h) => new Set(vms(h).map((m) => m.id)));
}

describe("generateHours", () => {
  it("yields every account for every hour, hour by hour, from 2026-10-01T00:00Z by default", () => {
    expect(hours).toHaveLength(3 * 24);
    expect(hours.slice(0, 4).map((h) => [h.accountId, h.hourEpoch])).toEqual([
      [1, 1790812800],
      [2, 1790812800],
      [3, 1790812800],
      [1, 1790816400],
    ]);
    expect(hours.at(-1)!.hourEpoch).toBe(1790812800 + 23 * 3600);
    for (const h of hours) {
      expect(h.rootAccountId).toBe(h.accountId);
      expect(h.account.accountId).toBe(h.accountId);
      expect(h.account.cloudspaces).toHaveLength(2);
      for (const cs of h.account.cloudspaces) expect(cs.accountId).toBe(h.accountId);
    }
  });

  it("gives the same data for the same seed and different data for another seed", () => {
    expect([...generateHours(options)]).toEqual(hours);
    expect([...generateHours({ ...options, seed: 8 })]).not.toEqual(hours);
  });

  it("keeps every Float32 field a float32 value, so an encoded hour decodes to the same records", () => {
    for (const h of hours.slice(0, 6)) {
      for (const m of h.account.cloudspaces.flatMap((cs) => cs.machines)) {
        const floats = [
          m.cpuMinutes,
          m.mem,
          ...m.networks.flatMap((n) => [n.tx, n.rx]),
          ...m.disks.flatMap((d) => [
            d.size,
            d.iopsRead,
            d.iopsWrite,
            d.iopsReadMax,
            d.iopsWriteMax,
            ...Object.values(d.configuredIops ?? {}),
          ]),
        ];
        for (const value of floats) expect(Math.fround(value)).toBe(value);
      }
    }
  });

  it("gives each cloud space one gateway: routeros, id 0, no disks, an external and a space NIC", () => {
    for (const h of hours) {
      for (const cs of h.account.cloudspaces) {
        const gw = cs.machines.filter((m) => m.type === "routeros");
        expect(gw).toHaveLength(1);
        expect(gw[0]!.id).toBe(0);
        expect(gw[0]!.disks).toEqual([]);
        expect(gw[0]!.networks.map((n) => n.type)).toEqual(["external", "space"]);
      }
    }
    const deployedTraffic = hours
      .flatMap(gateways)
      .filter((g) => g.status === "RUNNING")
      .map((g) => g.networks[0]!.tx + g.networks[0]!.rx);
    expect(deployedTraffic.length).toBeGreaterThan(0);
    expect(deployedTraffic.every((bytes) => bytes > 0)).toBe(true);
  });

  it("disables about one cloud space in ten, with every machine halted and no gateway traffic", () => {
    const spaces = [...generateHours({ accounts: 10, spaces: 4, hours: 2, seed: 1 })].flatMap(
      (h) => h.account.cloudspaces,
    );
    const disabled = spaces.filter((cs) => cs.state !== "DEPLOYED");
    expect(disabled.length).toBeGreaterThan(0);
    expect(disabled.length).toBeLessThan(spaces.length / 4);
    expect(new Set(spaces.map((cs) => cs.state))).toEqual(new Set(["DEPLOYED", "DISABLED"]));
    for (const cs of disabled) {
      expect(cs.machines.every((m) => m.status === "HALTED" && m.cpuMinutes === 0)).toBe(true);
      expect(cs.machines[0]!.networks.every((n) => n.tx === 0 && n.rx === 0)).toBe(true);
    }
  });

  it("keeps machine, cloud space and disk ids unique within an account-hour", () => {
    for (const h of hours) {
      const ids = vms(h).map((m) => m.id);
      expect(new Set(ids).size).toBe(ids.length);
      const spaces = h.account.cloudspaces.map((cs) => cs.cloudSpaceId);
      expect(new Set(spaces).size).toBe(spaces.length);
      const disks = vms(h).flatMap((m) => m.disks.map((d) => d.id));
      expect(new Set(disks).size).toBe(disks.length);
    }
  });

  it("stays within the platform's ranges: 1–32 vcpus, 1–64 GiB, cpuMinutes ≤ 60 × vcpus, 1–4 disks of 10–4000 GB", () => {
    for (const m of hours.flatMap(vms)) {
      expect(m.vcpus).toBeGreaterThanOrEqual(1);
      expect(m.vcpus).toBeLessThanOrEqual(32);
      expect(m.mem).toBeGreaterThanOrEqual(1024);
      expect(m.mem).toBeLessThanOrEqual(65536);
      expect(m.cpuMinutes).toBeGreaterThanOrEqual(0);
      expect(m.cpuMinutes).toBeLessThanOrEqual(60 * m.vcpus);
      expect(m.disks.length).toBeGreaterThanOrEqual(1);
      expect(m.disks.length).toBeLessThanOrEqual(4);
      for (const d of m.disks) {
        expect(d.size).toBeGreaterThanOrEqual(10);
        expect(d.size).toBeLessThanOrEqual(4000);
      }
      expect(m.networks.some((n) => n.type === "space")).toBe(true);
    }
  });

  it("has halted machines in every account that keep their memory and disks but use no CPU", () => {
    for (const accountId of accountIds) {
      const halted = hours
        .filter((h) => h.accountId === accountId)
        .flatMap(vms)
        .filter((m) => m.status === "HALTED");
      expect(halted.length).toBeGreaterThan(0);
      for (const m of halted) {
        expect(m.cpuMinutes).toBe(0);
        expect(m.mem).toBeGreaterThan(0);
        expect(m.disks.length).toBeGreaterThan(0);
      }
    }
    // And in every account a machine halts for a while and runs again.
    for (const accountId of accountIds) {
      const byMachine = new Map<number, string[]>();
      for (const m of hours.filter((h) => h.accountId === accountId).flatMap(vms))
        byMachine.set(m.id, [...(byMachine.get(m.id) ?? []), m.status]);
      expect([...byMachine.values()].some((s) => s.join().includes("HALTED,RUNNING"))).toBe(true);
    }
    const statuses = new Set(hours.flatMap(vms).map((m) => m.status));
    expect(statuses).toEqual(new Set(["RUNNING", "HALTED"]));
  });

  it("creates machines after the first hour and destroys others before the last, in every account", () => {
    for (const accountId of accountIds) {
      const byHour = presence(accountId);
      const appeared = byHour.some((ids, i) => i > 0 && [...ids].some((id) => !byHour[i - 1]!.has(id)));
      const vanished = byHour.some((ids, i) => i > 0 && [...byHour[i - 1]!].some((id) => !ids.has(id)));
      expect(appeared).toBe(true);
      expect(vanished).toBe(true);
    }
  });

  it("grows a disk at some hour in every account", () => {
    for (const accountId of accountIds) {
      const sizes = new Map<number, number[]>();
      for (const h of hours.filter((x) => x.accountId === accountId)) {
        for (const d of vms(h).flatMap((m) => m.disks)) sizes.set(d.id, [...(sizes.get(d.id) ?? []), d.size]);
      }
      const grown = [...sizes.values()].filter((s) => s.at(-1)! > s[0]!);
      expect(grown.length).toBeGreaterThan(0);
      // Sizes never shrink.
      for (const s of sizes.values()) expect(s).toEqual([...s].sort((a, b) => a - b));
    }
  });

  it("has Windows and Linux images, public IPs and each kind of IOPS limit in every account", () => {
    for (const accountId of accountIds) {
      const machines = hours.filter((h) => h.accountId === accountId).flatMap(vms);
      expect(machines.some((m) => /windows/i.test(m.imageName))).toBe(true);
      expect(machines.some((m) => /ubuntu|debian|linux|centos/i.test(m.imageName))).toBe(true);
      expect(machines.some((m) => m.networks.some((n) => n.type === "external"))).toBe(true);
    }
    const limits = hours.flatMap(vms).flatMap((m) => m.disks.map((d) => d.configuredIops!));
    expect(limits.some((c) => c.totalIopsSec > 0)).toBe(true);
    expect(limits.some((c) => c.totalIopsSec === 0 && c.readIopsSec + c.writeIopsSec > 0)).toBe(true);
    expect(limits.some((c) => Object.values(c).every((v) => v === 0))).toBe(true);
  });

  it("writes NIC ids of 0 for most machines, as the platform does", () => {
    const nicIds = hours.flatMap(vms).flatMap((m) => m.networks.map((n) => n.id));
    expect(nicIds.filter((id) => id === 0).length).toBeGreaterThan(nicIds.length / 2);
  });

  it("drops the given share of each account's hours, rounded, at different hours per account", () => {
    const some = [...generateHours({ ...options, missingHours: 0.25 })];
    expect(some).toHaveLength(3 * 18);
    const missing = accountIds.map((id) =>
      hours
        .filter((h) => h.accountId === id && !some.some((s) => s.accountId === id && s.hourEpoch === h.hourEpoch))
        .map((h) => h.hourEpoch),
    );
    expect(missing.map((m) => m.length)).toEqual([6, 6, 6]);
    expect(new Set(missing.map((m) => m.join())).size).toBeGreaterThan(1);
    // The hours that remain are the same data as without missing hours.
    for (const s of some)
      expect(s).toEqual(hours.find((h) => h.accountId === s.accountId && h.hourEpoch === s.hourEpoch));
  });

  it("drops the listed hour epochs from every account", () => {
    const dropped = [1790812800 + 3600, 1790812800 + 5 * 3600];
    const some = [...generateHours({ ...options, missingHours: dropped })];
    expect(some).toHaveLength(3 * 22);
    expect(some.some((h) => dropped.includes(h.hourEpoch))).toBe(false);
    expect(some).toEqual(hours.filter((h) => !dropped.includes(h.hourEpoch)));
  });

  it("writes the gateway's received bytes in tx and 0 in rx with gatewayRxInTx, as some platform versions do", () => {
    const quirky = [...generateHours({ ...options, gatewayRxInTx: true })];
    const external = (h: DecodedAccountHour) => gateways(h).map((g) => g.networks.find((n) => n.type === "external")!);
    quirky.forEach((h, i) => {
      expect(external(h).map((n) => [n.tx, n.rx])).toEqual(external(hours[i]!).map((n) => [n.rx, 0]));
      expect(vms(h)).toEqual(vms(hours[i]!));
    });
  });

  it("starts at the given hour and numbers accounts from firstAccountId", () => {
    const [first] = generateHours({ start: 1791417600, firstAccountId: 42, hours: 1, accounts: 1 }); // 2026-10-08T00:00Z
    expect(first!.hourEpoch).toBe(1791417600);
    expect(first!.accountId).toBe(42);
  });

  it.each<[string, GenerateOptions]>([
    ["a start off the hour", { start: 1790812801 }],
    ["negative accounts", { accounts: -1 }],
    ["fractional machines", { machines: 1.5 }],
    ["a missing-hours fraction above 1", { missingHours: 1.5 }],
    ["a non-integer seed", { seed: 0.5 }],
  ])("refuses %s with a usage error naming the option", (_name, bad) => {
    expect(() => generateHours(bad)).toThrow(UsageError);
    expect(() => generateHours(bad)).toThrow(new RegExp(Object.keys(bad)[0]!));
  });
});
