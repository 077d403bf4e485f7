/**
 * The fixed part of a synthetic data set, drawn once from the seed: accounts, cloud spaces,
 * machines with their lifetimes, images, sizes, disks, NICs and limits. `generateHours.ts`
 * turns it into hourly figures. Hours are indices from the start of the data set.
 */
import type { ConfiguredIops } from "../capnp/records.js";
import { Random, unitFor } from "./random.js";

/** A disk's fixed properties. */
export interface DiskPlan {
  id: number;
  sizeGb: number;
  /** Hour index from which the disk has `resizedGb`; undefined when it never grows. */
  resizeHour: number | undefined;
  resizedGb: number;
  /** Average IOPS (read + write) of the disk while its machine runs. */
  baseIops: number;
  configuredIops: ConfiguredIops;
}

/** A NIC's fixed properties. */
export interface NicPlan {
  id: number;
  type: "space" | "external";
  /** Typical bytes per hour, each direction, while the machine runs. */
  baseBytes: number;
}

/** A virtual machine's fixed properties and lifetime. */
export interface MachinePlan {
  id: number;
  vcpus: number;
  memMb: number;
  imageName: string;
  /** First hour index at which the machine is in the files. */
  createdHour: number;
  /** First hour index at which it is gone (`hours` when it lives to the end). */
  destroyedHour: number;
  /** Hour indices [haltedFrom, haltedTill) in which it is HALTED. */
  haltedFrom: number;
  haltedTill: number;
  /** Average CPU load while running, 0..1. */
  load: number;
  nics: NicPlan[];
  disks: DiskPlan[];
}

/** A cloud space's fixed properties. */
export interface CloudSpacePlan {
  id: number;
  state: string;
  /** Typical bytes per hour, each direction, of the gateway's NICs. */
  gatewayBytes: number;
  machines: MachinePlan[];
}

/** An account's fixed properties. */
export interface AccountPlan {
  accountId: number;
  cloudSpaces: CloudSpacePlan[];
  /** Hour indices without a file. */
  missingHours: Set<number>;
}

/** What a plan is drawn from. */
export interface PlanParameters {
  accounts: number;
  spaces: number;
  machines: number;
  hours: number;
  seed: number;
  firstAccountId: number;
  /** A fraction of hours dropped per account, or hour indices dropped from every account. */
  missingHours: number | number[];
}

export const WINDOWS_IMAGES = ["Windows 2019 Standard", "Windows 2022 Datacenter", "Windows 2016 Standard"];
export const LINUX_IMAGES = ["Ubuntu 22.04", "Ubuntu 20.04", "Debian 12", "Rocky Linux 9", "CentOS 7"];

const VCPUS = [1, 2, 2, 4, 4, 4, 8, 8, 16, 32];
const MEM_PER_VCPU_MB = [1024, 2048, 4096];
const DATA_DISK_GB = [50, 100, 250, 500, 1000, 2000];
const IOPS_LIMITS = [2000, 2000, 5000, 10000];
/** Hash key of a cloud space's state: about 1 in 10 is DISABLED. */
const STATE_KEY = 0x5747;

/**
 * Draws the plan. Each account gets, when it has enough machines and hours, at least one
 * machine created late, one destroyed early, one halted for a while, one disk that grows,
 * a Windows and a Linux image, and a public IP.
 */
export function datasetPlan(p: PlanParameters): AccountPlan[] {
  const random = new Random(p.seed);
  let nextCloudSpaceId = random.int(100, 999);
  let nextMachineId = random.int(1000, 9999);
  let nextDiskId = random.int(10000, 99999);
  const nicIds = { next: 1 };
  const plans: AccountPlan[] = [];
  for (let a = 0; a < p.accounts; a++) {
    const accountId = p.firstAccountId + a;
    const cloudSpaces: CloudSpacePlan[] = [];
    for (let s = 0; s < p.spaces; s++) {
      const machines: MachinePlan[] = [];
      for (let m = 0; m < p.machines; m++) {
        const windows = random.chance(0.3);
        const vcpus = random.pick(VCPUS);
        const memMb = Math.min(65536, Math.max(windows ? 4096 : 1024, vcpus * random.pick(MEM_PER_VCPU_MB)));
        const machine: MachinePlan = {
          id: nextMachineId,
          vcpus,
          memMb,
          imageName: random.pick(windows ? WINDOWS_IMAGES : LINUX_IMAGES),
          createdHour: 0,
          destroyedHour: p.hours,
          haltedFrom: 0,
          haltedTill: 0,
          load: 0.02 + 0.9 * random.next() ** 2,
          nics: [],
          disks: [],
        };
        nextMachineId += random.int(1, 5);
        lifetime(random, machine, p.hours);
        const zeroNicIds = random.chance(0.75);
        const nicTypes: NicPlan["type"][] = random.chance(0.3) ? ["space", "external"] : ["space"];
        machine.nics = nicTypes.map((type) => ({
          id: zeroNicIds ? 0 : nicIds.next++,
          type,
          baseBytes: Math.round(10 ** (6 + 3.5 * random.next())),
        }));
        const diskCount = random.pick([1, 1, 1, 1, 2, 2, 2, 3, 3, 4]);
        for (let d = 0; d < diskCount; d++) {
          const sizeGb =
            d === 0 ? random.pick(windows ? [50, 80, 100, 150] : [10, 20, 40, 50, 100]) : random.pick(DATA_DISK_GB);
          machine.disks.push({
            id: nextDiskId,
            sizeGb,
            resizeHour: p.hours >= 2 && random.chance(0.08) ? random.int(1, p.hours - 1) : undefined,
            resizedGb: grown(random, sizeGb),
            baseIops: Math.round(10 + 990 * random.next() ** 3),
            configuredIops: limits(random),
          });
          nextDiskId += random.int(1, 3);
        }
        machines.push(machine);
      }
      random.next(); // (a draw kept so that the ids and machines drawn after it stay as they were)
      cloudSpaces.push({
        id: nextCloudSpaceId,
        state: unitFor(p.seed, nextCloudSpaceId, STATE_KEY) < 0.1 ? "DISABLED" : "DEPLOYED",
        gatewayBytes: Math.round(10 ** (7 + 3.5 * random.next())),
        machines,
      });
      nextCloudSpaceId += random.int(1, 20);
    }
    const plan: AccountPlan = { accountId, cloudSpaces, missingHours: missing(random, p) };
    guarantee(random, plan, p.hours, nicIds);
    plans.push(plan);
  }
  return plans;
}

/** Most machines live through the data set; some are created late or destroyed early; some halt. */
function lifetime(random: Random, m: MachinePlan, hours: number): void {
  if (hours >= 2) {
    const r = random.next();
    if (r < 0.12) m.createdHour = random.int(1, hours - 1);
    else if (r < 0.24) m.destroyedHour = random.int(1, hours - 1);
  }
  const h = random.next();
  if (h < 0.1) {
    m.haltedFrom = 0;
    m.haltedTill = hours;
  } else if (h < 0.3 && hours >= 2) {
    m.haltedFrom = random.int(0, hours - 1);
    m.haltedTill = random.int(m.haltedFrom + 1, hours);
  }
}

function grown(random: Random, sizeGb: number): number {
  return Math.ceil((sizeGb * (1.25 + random.next())) / 10) * 10;
}

/** A disk's limits: a total IOPS limit, or read and write limits, or none at all. */
function limits(random: Random): ConfiguredIops {
  const c: ConfiguredIops = {
    totalBytesSec: 0,
    readBytesSec: 0,
    writeBytesSec: 0,
    totalIopsSec: 0,
    readIopsSec: 0,
    writeIopsSec: 0,
    totalBytesSecMax: 0,
    readBytesSecMax: 0,
    writeBytesSecMax: 0,
    totalIopsSecMax: 0,
    readIopsSecMax: 0,
    writeIopsSecMax: 0,
    sizeIopsSec: 0,
  };
  const r = random.next();
  if (r < 0.6) {
    c.totalIopsSec = random.pick(IOPS_LIMITS);
    if (random.chance(0.3)) c.totalIopsSecMax = c.totalIopsSec * 2;
  } else if (r < 0.85) {
    c.readIopsSec = random.pick([500, 1000, 2500, 5000]);
    c.writeIopsSec = random.pick([500, 1000, 2500]);
    if (random.chance(0.3)) c.totalBytesSec = random.pick([100, 200, 400]) * 1024 * 1024;
  }
  return c;
}

/** The shuffle is drawn either way, so dropping hours never changes the data of the others. */
function missing(random: Random, p: PlanParameters): Set<number> {
  const order = random.shuffle(Array.from({ length: p.hours }, (_, h) => h));
  if (Array.isArray(p.missingHours)) return new Set(p.missingHours);
  return new Set(order.slice(0, Math.round(p.missingHours * p.hours)));
}

/** Makes the properties tests rely on present in every account that has room for them. */
function guarantee(random: Random, plan: AccountPlan, hours: number, nicIds: { next: number }): void {
  // Machines of DEPLOYED cloud spaces first: in a DISABLED one every machine is halted.
  const shuffled = random.shuffle(
    plan.cloudSpaces.flatMap((cs) => cs.machines.map((m) => ({ m, deployed: cs.state === "DEPLOYED" }))),
  );
  const all = [...shuffled.filter((x) => x.deployed), ...shuffled.filter((x) => !x.deployed)].map((x) => x.m);
  const [first, second, third, fourth] = all;
  if (first && second) {
    first.imageName = random.pick(WINDOWS_IMAGES);
    first.memMb = Math.max(first.memMb, 4096);
    second.imageName = random.pick(LINUX_IMAGES);
  }
  if (first && !first.nics.some((n) => n.type === "external")) {
    first.nics.push({ id: first.nics[0]!.id === 0 ? 0 : nicIds.next++, type: "external", baseBytes: 5e8 });
  }
  if (hours < 2) return;
  if (first && second) {
    first.createdHour = random.int(1, hours - 1);
    first.destroyedHour = hours;
    second.createdHour = 0;
    second.destroyedHour = random.int(1, hours - 1);
  }
  if (third) {
    third.createdHour = 0;
    third.destroyedHour = hours;
    third.haltedFrom = random.int(0, hours - 2);
    third.haltedTill = random.int(third.haltedFrom + 1, hours - 1);
    const disk = third.disks[0]!;
    disk.resizeHour = random.int(1, hours - 1);
  }
  if (fourth) {
    fourth.createdHour = 0;
    fourth.destroyedHour = hours;
    fourth.haltedFrom = 0;
    fourth.haltedTill = 0;
  }
}
