// Random Account and CloudSpace values (seeded, reproducible) and their capnp text form,
// the input of `capnp convert text:binary`.
import type { Account, CloudSpace, ConfiguredIops, Disk, Nic, VMachine } from "../../src/index.js";

/** mulberry32: a small seeded PRNG returning floats in [0, 1). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Shape {
  /** Most cloud spaces / machines per cloud space / disks and NICs per machine. */
  spaces: number;
  machines: number;
  parts: number;
  /** Leave out `configuredIops` (files of the older schema). */
  oldSchema?: boolean;
}

const WORDS = [
  "vm",
  "routeros",
  "external",
  "space",
  "RUNNING",
  "HALTED",
  "DEPLOYED",
  "DESTROYED",
  "Windows 2019",
  "ubuntu-22.04",
  "",
  "é☃ unicode",
  'a "quoted" \\ name',
];

export function randomAccount(rand: () => number, shape: Shape): Account {
  const accountId = pickInt(rand, 0, 4294967295);
  return { accountId, cloudspaces: many(rand, shape.spaces, () => randomCloudSpace(rand, shape)) };
}

export function randomCloudSpace(rand: () => number, shape: Shape): CloudSpace {
  return {
    cloudSpaceId: int32(rand),
    accountId: int32(rand),
    machines: many(rand, shape.machines, () => randomMachine(rand, shape)),
    state: pick(rand, WORDS),
  };
}

function randomMachine(rand: () => number, shape: Shape): VMachine {
  return {
    id: int32(rand),
    type: pick(rand, WORDS),
    vcpus: pickInt(rand, -128, 127),
    cpuMinutes: float32(rand),
    mem: float32(rand),
    networks: many(rand, shape.parts, (): Nic => ({
      id: int32(rand),
      type: pick(rand, WORDS),
      tx: float32(rand),
      rx: float32(rand),
    })),
    disks: many(rand, shape.parts, () => randomDisk(rand, shape)),
    imageName: pick(rand, WORDS),
    status: pick(rand, WORDS),
  };
}

function randomDisk(rand: () => number, shape: Shape): Disk {
  let configuredIops: ConfiguredIops | null = null;
  if (!shape.oldSchema && rand() < 0.8) {
    configuredIops = {} as ConfiguredIops;
    for (const name of IOPS_FIELDS) configuredIops[name] = float32(rand);
  }
  return {
    id: int32(rand),
    size: float32(rand),
    iopsRead: float32(rand),
    iopsWrite: float32(rand),
    iopsReadMax: float32(rand),
    iopsWriteMax: float32(rand),
    configuredIops,
  };
}

const IOPS_FIELDS = [
  "totalBytesSec",
  "readBytesSec",
  "writeBytesSec",
  "totalIopsSec",
  "readIopsSec",
  "writeIopsSec",
  "totalBytesSecMax",
  "readBytesSecMax",
  "writeBytesSecMax",
  "totalIopsSecMax",
  "readIopsSecMax",
  "writeIopsSecMax",
  "sizeIopsSec",
] as const;

function many<T>(rand: () => number, most: number, make: () => T): T[] {
  return Array.from({ length: Math.floor(rand() * (most + 1)) }, make);
}
function pick<T>(rand: () => number, values: readonly T[]): T {
  return values[Math.floor(rand() * values.length)]!;
}
function pickInt(rand: () => number, low: number, high: number): number {
  return low + Math.floor(rand() * (high - low + 1));
}
function int32(rand: () => number): number {
  return rand() < 0.5 ? pickInt(rand, 0, 5000) : pickInt(rand, -2147483648, 2147483647);
}
/** Float32 values: usual ones, extremes, and now and then NaN, infinities, -0, subnormals. */
function float32(rand: () => number): number {
  const r = rand();
  if (r < 0.02) return pick(rand, [NaN, Infinity, -Infinity, -0, 1.401298464324817e-45, 3.4028234663852886e38]);
  if (r < 0.2) return 0;
  if (r < 0.6) return Math.fround(rand() * 1e4);
  return Math.fround((rand() - 0.5) * 10 ** pickInt(rand, -30, 30));
}

/** The capnp text form of a value (fields left out when they hold the default). */
export function toCapnpText(value: Account | CloudSpace): string {
  return "cloudspaces" in value
    ? `(accountId = ${value.accountId}, cloudspaces = [${value.cloudspaces.map(cloudSpaceText).join(", ")}])`
    : cloudSpaceText(value);
}

function cloudSpaceText(c: CloudSpace): string {
  return `(cloudSpaceId = ${c.cloudSpaceId}, accountId = ${c.accountId}, machines = [${c.machines.map(machineText).join(", ")}], state = ${str(c.state)})`;
}

function machineText(m: VMachine): string {
  return (
    `(id = ${m.id}, type = ${str(m.type)}, vcpus = ${m.vcpus}, cpuMinutes = ${num(m.cpuMinutes)}, mem = ${num(m.mem)}, ` +
    `networks = [${m.networks.map((n) => `(id = ${n.id}, type = ${str(n.type)}, tx = ${num(n.tx)}, rx = ${num(n.rx)})`).join(", ")}], ` +
    `disks = [${m.disks.map(diskText).join(", ")}], imageName = ${str(m.imageName)}, status = ${str(m.status)})`
  );
}

function diskText(d: Disk): string {
  const iops = d.configuredIops
    ? `, configuredIops = (${IOPS_FIELDS.map((f) => `${f} = ${num(d.configuredIops![f])}`).join(", ")})`
    : "";
  return (
    `(id = ${d.id}, size = ${num(d.size)}, iopsRead = ${num(d.iopsRead)}, iopsWrite = ${num(d.iopsWrite)}, ` +
    `iopsReadMax = ${num(d.iopsReadMax)}, iopsWriteMax = ${num(d.iopsWriteMax)}${iops})`
  );
}

function num(x: number): string {
  if (Number.isNaN(x)) return "nan";
  if (x === Infinity) return "inf";
  if (x === -Infinity) return "-inf";
  if (Object.is(x, -0)) return "-0.0";
  // Exponent form: capnp reads a long digit string without one as an integer, which overflows.
  return x.toExponential();
}

function str(s: string): string {
  return JSON.stringify(s);
}
