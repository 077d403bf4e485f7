/**
 * Synthetic months with the changes real accounts go through, for backtesting forecasts and
 * testing anomaly detection: a daily rhythm and a weekly cycle of traffic, machines that run
 * only on weekdays, machines added mid-period, and planted anomalies (a traffic spike, a
 * disk grown, a burst of machines for a day, an account's traffic cut off). Deterministic:
 * the same options give the same hours.
 */
import type { CloudSpace, DecodedAccountHour, Disk, VMachine } from "../capnp/records.js";
import { unitFor } from "./random.js";

const HOUR = 3600;
const DAY = 24 * HOUR;

/** A change planted in the data. */
export type PlantedChange =
  /** A machine's external traffic × factor for some hours. */
  | { kind: "traffic"; accountId: number; machineId: number; from: number; hours: number; factor: number }
  /** An account's whole traffic (gateways and machines) × factor for some hours. */
  | { kind: "account-traffic"; accountId: number; from: number; hours: number; factor: number }
  /** A machine's first disk × factor from an hour on. */
  | { kind: "disk"; accountId: number; machineId: number; from: number; factor: number }
  /** `count` machines of 16 vCPUs added to a cloud space for some hours (ids from `firstMachineId`). */
  | {
      kind: "burst";
      accountId: number;
      cloudspaceId: number;
      firstMachineId: number;
      count: number;
      from: number;
      hours: number;
    };

/** What to generate. */
export interface ScenarioOptions {
  /** First hour, epoch seconds (on the hour). */
  start: number;
  days: number;
  accounts: number;
  spaces: number;
  /** Machines per cloud space from the start. */
  machines: number;
  seed: number;
  /** Machines per cloud space that exist on weekdays only (created Monday 06:00, deleted Friday 20:00 UTC); default 0. */
  weekdayMachines?: number;
  /** Machines added per cloud space at this hour (epoch seconds), to the end; default none. */
  addedAt?: number;
  added?: number;
  /** Weekend traffic × this; default 0.6. */
  weekendTraffic?: number;
  planted?: readonly PlantedChange[];
}

/** The id of machine `m` of cloud space `s` of account `a` (what a scenario's planted changes name). */
export const scenarioMachineId = (a: number, s: number, m: number): number => 10_000 * a + 100 * s + m;
/** The id of cloud space `s` of account `a`. */
export const scenarioCloudspaceId = (a: number, s: number): number => 100 * a + s;

function weekdayUp(t: number): boolean {
  const day = new Date(t * 1000).getUTCDay(); // 0 Sunday
  const hour = (t % DAY) / HOUR;
  if (day === 0 || day === 6) return false;
  if (day === 1) return hour >= 6;
  if (day === 5) return hour < 20;
  return true;
}

function rhythm(t: number): number {
  const hourOfDay = (t % DAY) / HOUR;
  return 0.65 + 0.35 * Math.sin(((hourOfDay - 8) / 24) * 2 * Math.PI);
}

/** The hours of a scenario, hour by hour, every account's. */
export function* scenarioHours(o: ScenarioOptions): Generator<DecodedAccountHour> {
  const planted = o.planted ?? [];
  for (let t = o.start; t < o.start + o.days * DAY; t += HOUR) {
    const weekday = new Date(t * 1000).getUTCDay();
    const weekly = weekday === 0 || weekday === 6 ? (o.weekendTraffic ?? 0.6) : 1;
    for (let a = 1; a <= o.accounts; a++) {
      const accountFactor = planted
        .filter((p) => p.kind === "account-traffic" && p.accountId === a && t >= p.from && t < p.from + p.hours * HOUR)
        .reduce((f, p) => f * (p as { factor: number }).factor, 1);
      const cloudspaces: CloudSpace[] = [];
      for (let s = 1; s <= o.spaces; s++) {
        const cloudSpaceId = scenarioCloudspaceId(a, s);
        const traffic = (id: number, k: number, base: number) =>
          Math.fround(Math.round(base * rhythm(t) * weekly * accountFactor * (0.7 + 0.6 * unitFor(o.seed, id, t, k))));
        const machines: VMachine[] = [
          {
            id: 0,
            type: "routeros",
            vcpus: 1,
            cpuMinutes: 1,
            mem: 256,
            disks: [],
            imageName: "",
            status: "RUNNING",
            networks: [
              { id: 0, type: "external", tx: traffic(cloudSpaceId, 1, 2e9), rx: traffic(cloudSpaceId, 2, 2e9) },
            ],
          },
        ];
        const slots =
          o.machines + (o.weekdayMachines ?? 0) + (o.addedAt !== undefined && t >= o.addedAt ? (o.added ?? 0) : 0);
        for (let m = 1; m <= slots; m++) {
          if (m > o.machines && m <= o.machines + (o.weekdayMachines ?? 0) && !weekdayUp(t)) continue;
          const id = scenarioMachineId(a, s, m);
          const size = 1 + Math.floor(unitFor(o.seed, id, 1) * 4);
          const factor = planted
            .filter((p) => p.kind === "traffic" && p.machineId === id && t >= p.from && t < p.from + p.hours * HOUR)
            .reduce((f, p) => f * (p as { factor: number }).factor, 1);
          const base = 10 ** (8 + 2 * unitFor(o.seed, id, 2)) * factor;
          const disk = planted
            .filter((p) => p.kind === "disk" && p.machineId === id && t >= p.from)
            .reduce((f, p) => f * (p as { factor: number }).factor, 1);
          machines.push(
            vm(
              id,
              2 * size,
              4096 * size,
              Math.round(50 * size * disk),
              1000 * size,
              traffic(id, 3, base),
              traffic(id, 4, base),
            ),
          );
        }
        machines.push(...burstMachines(planted, a, cloudSpaceId, t, traffic));
        cloudspaces.push({ cloudSpaceId, accountId: a, machines, state: "DEPLOYED" });
      }
      yield { accountId: a, hourEpoch: t, rootAccountId: a, account: { accountId: a, cloudspaces } };
    }
  }
}

/** The machines of the bursts planted in cloud space `cloudSpaceId` of account `a` in hour `t`. */
function burstMachines(
  planted: NonNullable<ScenarioOptions["planted"]>,
  a: number,
  cloudSpaceId: number,
  t: number,
  traffic: (id: number, k: number, base: number) => number,
): VMachine[] {
  const machines: VMachine[] = [];
  for (const p of planted) {
    if (
      p.kind !== "burst" ||
      p.accountId !== a ||
      p.cloudspaceId !== cloudSpaceId ||
      t < p.from ||
      t >= p.from + p.hours * HOUR
    )
      continue;
    for (let k = 0; k < p.count; k++) {
      const id = p.firstMachineId + k;
      machines.push(vm(id, 16, 65536, 200, 4000, traffic(id, 3, 1e9), traffic(id, 4, 1e9)));
    }
  }
  return machines;
}

function vm(id: number, vcpus: number, mem: number, diskGb: number, iops: number, tx: number, rx: number): VMachine {
  const disk: Disk = {
    id: id * 10,
    size: diskGb,
    iopsRead: 10,
    iopsWrite: 10,
    iopsReadMax: 20,
    iopsWriteMax: 20,
    configuredIops: {
      totalBytesSec: 0,
      readBytesSec: 0,
      writeBytesSec: 0,
      totalIopsSec: iops,
      readIopsSec: 0,
      writeIopsSec: 0,
      totalBytesSecMax: 0,
      readBytesSecMax: 0,
      writeBytesSecMax: 0,
      totalIopsSecMax: 0,
      readIopsSecMax: 0,
      writeIopsSecMax: 0,
      sizeIopsSec: 0,
    },
  };
  return {
    id,
    type: "vm",
    vcpus,
    cpuMinutes: Math.fround(30 * vcpus),
    mem,
    disks: [disk],
    imageName: "Ubuntu 22.04",
    status: "RUNNING",
    networks: [{ id: 0, type: "external", tx, rx }],
  };
}
