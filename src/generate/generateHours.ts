/**
 * Synthetic consumption data: a deterministic model of accounts, cloud spaces, gateways and
 * machines over consecutive hours, as decoded records ready to encode or load.
 */
import type { CloudSpace, DecodedAccountHour, Disk, Nic, VMachine } from "../capnp/records.js";
import { UsageError } from "../base/errors.js";
import { checkEpochSeconds } from "../base/time.js";
import { datasetPlan, type CloudSpacePlan, type MachinePlan } from "./datasetPlan.js";
import { unitFor } from "./random.js";

/** What to generate. Every field has a default; the same options always give the same data. */
export interface GenerateOptions {
  /** Number of accounts. Default 2. */
  accounts?: number;
  /** Cloud spaces per account. Default 2. */
  spaces?: number;
  /** Virtual machine slots per cloud space (some machines appear late or vanish early). Default 5. */
  machines?: number;
  /** Number of consecutive hours. Default 24. */
  hours?: number;
  /** First hour, epoch seconds UTC, aligned to the hour. Default 1790812800 (2026-10-01T00:00Z). */
  start?: number;
  /** Seed of the pseudo-random model: same seed, same data. Default 1. */
  seed?: number;
  /**
   * Hours without a file: a fraction in [0, 1] (that share of the hours, rounded, is dropped
   * for each account, different hours per account), or a list of hour epochs (seconds)
   * dropped for every account. Default 0.
   */
  missingHours?: number | number[];
  /** Id of the first account; the others follow it. Default 1. */
  firstAccountId?: number;
  /**
   * Write each gateway's external NIC as some platform versions do: its received bytes in
   * `tx` and 0 in `rx` (docs/input.md). Default false.
   */
  gatewayRxInTx?: boolean;
}

/** The gateway's machine type and id (docs/input.md), and the figures the model gives it. */
const GATEWAY = { type: "routeros", id: 0, vcpus: 1, memMb: 256 };
const SECONDS_PER_HOUR = 3600;

/** Defaults of `GenerateOptions`, with `start` 2026-10-01T00:00Z. */
export const GENERATE_DEFAULTS = {
  accounts: 2,
  spaces: 2,
  machines: 5,
  hours: 24,
  start: 1790812800,
  seed: 1,
  missingHours: 0 as number | number[],
  firstAccountId: 1,
  gatewayRxInTx: false,
};

/**
 * Yields account-hours hour by hour (all accounts of an hour, then the next hour), each a
 * fresh object, so memory stays bounded by one hour. Every Float32 field already holds a
 * float32 value, so decoding an encoded hour gives back exactly these records.
 *
 * The model: account ids `firstAccountId`, `firstAccountId + 1`, ...; cloud space, machine
 * and disk ids drawn from the seed, unique in the data set. Each cloud space lists its
 * gateway first (`routeros`, id 0, 1 vcpu, 256 MB, no disks, an `external` and a `space`
 * NIC), then its VMs by id. Most cloud spaces are `DEPLOYED`; a few are `DISABLED`, with
 * every machine `HALTED` and no traffic. VMs: 1–32 vcpus, 1–64 GiB, 1–4 disks (10–2000 GB,
 * limits by total IOPS, by read and write IOPS, or none), a `space` NIC and sometimes an
 * `external` one, NIC ids mostly 0; `HALTED` machines keep memory and disks but have no CPU,
 * IOPS or traffic. Each account with at least 4 VM slots and 2 hours has a machine created
 * late, one destroyed early, one halted for a while whose first disk grows, a Windows and a
 * Linux image and a public IP. The machines are drawn for the given accounts, spaces,
 * machines and hours: changing any of those changes them all.
 * Throws a UsageError for a bad option, at the call.
 */
export function generateHours(options: GenerateOptions = {}): Generator<DecodedAccountHour> {
  return hoursOf(resolveOptions(options));
}

function* hoursOf(o: typeof GENERATE_DEFAULTS): Generator<DecodedAccountHour> {
  const missingIndices = Array.isArray(o.missingHours)
    ? o.missingHours.map((t) => (t - o.start) / SECONDS_PER_HOUR)
    : o.missingHours;
  const plans = datasetPlan({ ...o, missingHours: missingIndices });
  for (let hour = 0; hour < o.hours; hour++) {
    const hourEpoch = o.start + hour * SECONDS_PER_HOUR;
    for (const plan of plans) {
      if (plan.missingHours.has(hour)) continue;
      const cloudspaces = plan.cloudSpaces.map((cs) => cloudSpaceAt(o, plan.accountId, cs, hour, hourEpoch));
      yield {
        accountId: plan.accountId,
        hourEpoch,
        rootAccountId: plan.accountId,
        account: { accountId: plan.accountId, cloudspaces },
      };
    }
  }
}

/** The options with defaults applied and checked. */
function resolveOptions(options: GenerateOptions): typeof GENERATE_DEFAULTS {
  const o = { ...GENERATE_DEFAULTS };
  for (const key of Object.keys(o) as (keyof GenerateOptions)[]) {
    if (options[key] !== undefined) (o as Record<string, unknown>)[key] = options[key];
  }
  for (const key of ["accounts", "spaces", "machines", "hours", "firstAccountId"] as const) {
    if (!Number.isInteger(o[key]) || o[key] < 0)
      throw new UsageError(`bad ${key}: ${o[key]} (a whole number, 0 or more)`);
  }
  if (!Number.isInteger(o.seed)) throw new UsageError(`bad seed: ${o.seed} (a whole number)`);
  if (checkEpochSeconds(o.start, "start") % SECONDS_PER_HOUR !== 0) {
    throw new UsageError(`bad start: ${o.start} (epoch seconds at the start of an hour, such as 1790812800)`);
  }
  const m = o.missingHours;
  if (typeof m === "number" ? !(m >= 0 && m <= 1) : !Array.isArray(m) || m.some((t) => !Number.isInteger(t))) {
    throw new UsageError(`bad missingHours: ${String(m)} (a fraction from 0 to 1, or a list of hour epochs)`);
  }
  return o;
}

/** Daily rhythm: busier in the (UTC) afternoon, quieter at night; 0.3 to 1. */
function rhythm(hourEpoch: number): number {
  const hourOfDay = (hourEpoch / SECONDS_PER_HOUR) % 24;
  return 0.65 + 0.35 * Math.sin(((hourOfDay - 8) / 24) * 2 * Math.PI);
}

function cloudSpaceAt(
  o: typeof GENERATE_DEFAULTS,
  accountId: number,
  cs: CloudSpacePlan,
  hour: number,
  hourEpoch: number,
): CloudSpace {
  const deployed = cs.state === "DEPLOYED";
  const busy = rhythm(hourEpoch);
  const noise = (id: number, k: number) => unitFor(o.seed, id, hour, k);
  const gatewayBytes = (k: number) => (deployed ? bytes(cs.gatewayBytes * busy * (0.3 + 1.4 * noise(cs.id, k))) : 0);
  const gateway: VMachine = {
    id: GATEWAY.id,
    type: GATEWAY.type,
    vcpus: GATEWAY.vcpus,
    cpuMinutes: deployed ? Math.fround(0.5 + 2 * noise(cs.id, 1)) : 0,
    mem: GATEWAY.memMb,
    networks: [
      o.gatewayRxInTx
        ? { id: 0, type: "external", tx: gatewayBytes(3), rx: 0 }
        : { id: 0, type: "external", tx: gatewayBytes(2), rx: gatewayBytes(3) },
      { id: 0, type: "space", tx: gatewayBytes(4), rx: gatewayBytes(5) },
    ],
    disks: [],
    imageName: "",
    status: deployed ? "RUNNING" : "HALTED",
  };
  const machines = [gateway];
  for (const m of cs.machines) {
    if (hour < m.createdHour || hour >= m.destroyedHour) continue;
    const running = deployed && !(hour >= m.haltedFrom && hour < m.haltedTill);
    machines.push(machineAt(m, running, busy, (k) => noise(m.id, k), hour));
  }
  return { cloudSpaceId: cs.id, accountId, machines, state: cs.state };
}

function machineAt(
  m: MachinePlan,
  running: boolean,
  busy: number,
  noise: (k: number) => number,
  hour: number,
): VMachine {
  const maxCpuMinutes = 60 * m.vcpus;
  const networks: Nic[] = m.nics.map((nic, i) => ({
    id: nic.id,
    type: nic.type,
    tx: running ? bytes(nic.baseBytes * busy * (0.3 + 1.4 * noise(10 + 2 * i))) : 0,
    rx: running ? bytes(nic.baseBytes * busy * (0.3 + 1.4 * noise(11 + 2 * i))) : 0,
  }));
  const disks: Disk[] = m.disks.map((d, i) => {
    const read = running ? Math.fround(0.6 * d.baseIops * busy * (0.5 + noise(30 + 4 * i))) : 0;
    const write = running ? Math.fround(0.4 * d.baseIops * busy * (0.5 + noise(31 + 4 * i))) : 0;
    return {
      id: d.id,
      size: d.resizeHour !== undefined && hour >= d.resizeHour ? d.resizedGb : d.sizeGb,
      iopsRead: read,
      iopsWrite: write,
      iopsReadMax: Math.fround(read * (1.5 + 2 * noise(32 + 4 * i))),
      iopsWriteMax: Math.fround(write * (1.5 + 2 * noise(33 + 4 * i))),
      configuredIops: { ...d.configuredIops },
    };
  });
  return {
    id: m.id,
    type: "vm",
    vcpus: m.vcpus,
    cpuMinutes: running
      ? Math.fround(Math.min(maxCpuMinutes, maxCpuMinutes * m.load * busy * (0.7 + 0.6 * noise(1))))
      : 0,
    mem: m.memMb,
    networks,
    disks,
    imageName: m.imageName,
    status: running ? "RUNNING" : "HALTED",
  };
}

/** Whole bytes, as the float32 the file holds. */
function bytes(value: number): number {
  return Math.fround(Math.round(value));
}
