// Decode throughput of cloudunits' decoder and of capnp-es on the same realistic Account
// files (100 KB – 1 MB: cloud spaces with a gateway and many VMs, each with NICs and disks
// with configuredIops), in the same run. The files are encoded with the reference tool
// (`capnp convert`); capnp-es code for the schema is generated into a temp folder. Both
// decoders materialize the same plain objects, every field read. Target: ≥ 20× capnp-es and
// ≥ 200 MB/s on one core.
//
// Then the expansion (issue 14): words charged against the expansion limit (records at their
// schema size, texts) per word of input, for the generator's files of every kind and for the
// worst message the list-kind swap fuzz finds that the decoder still accepts.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { openMessage } from "../../dist/capnp/openMessage.js";
import { RecordBuilder } from "../../dist/capnp/RecordBuilder.js";
import { visitAccountRoot, visitCloudSpaceRoot } from "../../dist/capnp/visitRecords.js";
import { EXPANSION_LIMIT_FACTOR, MIN_EXPANSION_LIMIT_WORDS } from "../../dist/capnp/DecodeOptions.js";
import { CapnpError, decodeAccount, encodeAccount, encodeCloudSpace, generateHours } from "../../dist/internal.js";
import { listKindSwaps } from "../helpers/listKindSwaps.mjs";
import { capnpEsDecoder } from "./capnpEs.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const schema = join(root, "schema/resourcemonitoring.capnp");
/** Each decoder runs until it has used this much CPU time. */
const MIN_CPU_SECONDS = 1.5;

// --- realistic files -------------------------------------------------------------------
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const IMAGES = [
  "Ubuntu 22.04",
  "Ubuntu 20.04",
  "Windows 2019 Standard",
  "Debian 12",
  "CentOS 7",
  "Windows 2022 Datacenter",
];
const f = (x) => Math.fround(x).toExponential();

function accountText(rand, accountId, vms) {
  const spaces = [];
  let left = vms;
  for (let s = 0; left > 0; s++) {
    const count = Math.min(left, 10 + Math.floor(rand() * 40));
    left -= count;
    const machines = [
      `(id = 0, type = "routeros", vcpus = 1, cpuMinutes = ${f(rand() * 5)}, mem = 128, networks = [` +
        `(id = 0, type = "external", tx = ${f(rand() * 1e9)}, rx = ${f(rand() * 1e9)}), (id = 0, type = "space", tx = ${f(rand() * 1e9)}, rx = ${f(rand() * 1e9)})], ` +
        `imageName = "routeros", status = "RUNNING")`,
    ];
    for (let m = 0; m < count; m++) {
      const vcpus = 1 << Math.floor(rand() * 4);
      const disks = Array.from({ length: 1 + Math.floor(rand() * 4) }, (_, d) => {
        const iops = 200 * (1 + Math.floor(rand() * 10));
        return (
          `(id = ${1000 * m + d}, size = ${10 * (1 + Math.floor(rand() * 100))}, iopsRead = ${f(rand() * iops)}, iopsWrite = ${f(rand() * iops)}, ` +
          `iopsReadMax = ${f(rand() * iops)}, iopsWriteMax = ${f(rand() * iops)}, configuredIops = (totalBytesSec = 0, readBytesSec = ${f(rand() * 1e8)}, ` +
          `writeBytesSec = ${f(rand() * 1e8)}, totalIopsSec = ${iops}, readIopsSec = 0, writeIopsSec = 0, totalBytesSecMax = 0, readBytesSecMax = 0, ` +
          `writeBytesSecMax = 0, totalIopsSecMax = ${iops * 2}, readIopsSecMax = 0, writeIopsSecMax = 0, sizeIopsSec = 4096))`
        );
      });
      const nics = Array.from(
        { length: 1 + Math.floor(rand() * 2) },
        (_, n) =>
          `(id = 0, type = "${n === 0 ? "space" : "external"}", tx = ${f(rand() * 1e10)}, rx = ${f(rand() * 1e10)})`,
      );
      machines.push(
        `(id = ${100000 * s + m + 1}, type = "vm", vcpus = ${vcpus}, cpuMinutes = ${f(rand() * 60 * vcpus)}, mem = ${1024 * vcpus * 2}, ` +
          `networks = [${nics.join(", ")}], disks = [${disks.join(", ")}], imageName = "${IMAGES[Math.floor(rand() * IMAGES.length)]}", ` +
          `status = "${rand() < 0.9 ? "RUNNING" : "HALTED"}")`,
      );
    }
    spaces.push(
      `(cloudSpaceId = ${s + 1}, accountId = ${accountId}, machines = [${machines.join(", ")}], state = "DEPLOYED")`,
    );
  }
  return `(accountId = ${accountId}, cloudspaces = [${spaces.join(", ")}])`;
}

function encode(text, segmentWords) {
  const args = [
    "convert",
    "text:binary",
    ...(segmentWords ? [`--segment-size=${segmentWords}`] : []),
    schema,
    "Account",
  ];
  const r = spawnSync("capnp", args, { input: text, maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`capnp convert failed (is capnproto installed?): ${r.stderr}`);
  return new Uint8Array(r.stdout);
}

// --- measuring ----------------------------------------------------------------------------
// Throughput per CPU second of this process (what one core does, even on a busy machine),
// and per wall-clock second.
function throughput(decode, files) {
  const totalBytes = files.reduce((n, f) => n + f.length, 0);
  for (const file of files) decode(file); // warm-up
  globalThis.gc?.();
  let rounds = 0;
  const cpuStart = process.cpuUsage();
  const wallStart = performance.now();
  let cpuSeconds = 0;
  do {
    for (const file of files) decode(file);
    rounds++;
    const used = process.cpuUsage(cpuStart);
    cpuSeconds = (used.user + used.system) / 1e6;
  } while (cpuSeconds < MIN_CPU_SECONDS);
  const wallSeconds = (performance.now() - wallStart) / 1000;
  const megabytes = (rounds * totalBytes) / 1e6;
  return {
    mbPerCpuSecond: megabytes / cpuSeconds,
    filesPerCpuSecond: (rounds * files.length) / cpuSeconds,
    mbPerWallSecond: megabytes / wallSeconds,
  };
}

// --- expansion ----------------------------------------------------------------------------
/** Words charged per input word and records (rows) per input KiB of one file; null when refused. */
function expansionOf(bytes, root, packed = false, limits = {}) {
  const reader = openMessage(bytes, { packed, ...limits });
  const records = new RecordBuilder();
  try {
    if (root === "Account") visitAccountRoot(reader, records);
    else visitCloudSpaceRoot(reader, records);
  } catch (error) {
    if (error instanceof CapnpError) return null;
    throw error;
  }
  const rows = records.cloudspaces.reduce(
    (n, cs) => n + 1 + cs.machines.reduce((m, vm) => m + 1 + vm.networks.length + vm.disks.length, 0),
    0,
  );
  return { wordsPerWord: reader.chargedWords / Math.ceil(bytes.length / 8), rowsPerKiB: rows / (bytes.length / 1024) };
}

function worst(results) {
  const kept = results.filter((r) => r !== null);
  return {
    wordsPerWord: Math.max(...kept.map((r) => r.wordsPerWord)),
    rowsPerKiB: Math.max(...kept.map((r) => r.rowsPerKiB)),
    accepted: kept.length,
    of: results.length,
  };
}

function expansionLines() {
  const hours = [
    ...generateHours({ accounts: 2, spaces: 1, machines: 1, hours: 3, seed: 5 }),
    ...generateHours({ accounts: 2, spaces: 4, machines: 30, hours: 3, seed: 6 }),
  ];
  const kinds = {
    "one segment": {},
    packed: { packed: true },
    "older schema": { oldSchema: true },
    "older, packed": { oldSchema: true, packed: true },
    "many segments": { segmentWords: 64 },
    "double-far": { segmentWords: 64, doubleFar: true },
  };
  const line = (name, w) =>
    `${name.padEnd(30)} ${w.wordsPerWord.toFixed(2).padStart(6)} words charged per input word ${w.rowsPerKiB.toFixed(1).padStart(7)} rows per input KiB`;
  console.log(
    `expansion (limit: ${EXPANSION_LIMIT_FACTOR} words charged per input word, at least ${MIN_EXPANSION_LIMIT_WORDS} words a file)`,
  );
  for (const [kind, options] of Object.entries(kinds)) {
    const packed = options.packed === true;
    const accounts = hours.map((h) => expansionOf(encodeAccount(h.account, options), "Account", packed));
    const spaces = hours.flatMap((h) =>
      h.account.cloudspaces.map((cs) => expansionOf(encodeCloudSpace(cs, options), "CloudSpace", packed)),
    );
    console.log(line(`generated, ${kind}`, worst([...accounts, ...spaces])));
  }
  // The fuzz: list-kind swaps of the cloud-space and machine pointers of real files.
  const rand = prng(14);
  const swapped = hours
    .slice(0, 4)
    .flatMap((h) => [
      ...listKindSwaps(encodeAccount(h.account), "Account", rand, 500).map((b) => expansionOf(b, "Account")),
      ...listKindSwaps(encodeCloudSpace(h.account.cloudspaces[0]), "CloudSpace", rand, 500).map((b) =>
        expansionOf(b, "CloudSpace"),
      ),
    ]);
  const w = worst(swapped);
  console.log(`${line("worst of the list-kind fuzz", w)} (${w.accepted} of ${w.of} swaps accepted)`);
  // The shapes of issue 14, as 32-bit halves of words: a segment table, then the message.
  const words = (...halves) => new Uint8Array(new Uint32Array(halves).buffer);
  const shapes = {
    "64 B, 9,361 empty machines": words(0, 7, 0, 0x10001, 7, 0, 1, 3 * 8 + 7, 1 << 2, 0x20001, 5, 7, 1, 9361 * 8, 0, 0),
    "32 B, 21,844 empty spaces": words(0, 3, 0, 0x10001, 7, 0, 1, 21844 * 8),
  };
  for (const [name, bytes] of Object.entries(shapes)) {
    const unbounded = expansionOf(bytes, "Account", false, { expansionLimitWords: 2 ** 30 });
    console.log(
      `${line(name, unbounded)} without the expansion limit; with it: ${expansionOf(bytes, "Account") === null ? "refused" : "ACCEPTED"}`,
    );
  }
}

const dir = mkdtempSync(join(tmpdir(), "cloudunits-bench-decode-"));
try {
  const rand = prng(42);
  const files = [
    encode(accountText(rand, 7, 300)),
    encode(accountText(rand, 8, 600)),
    encode(accountText(rand, 9, 1200), 8192), // split into 64 KiB segments: far pointers
    encode(accountText(rand, 10, 2400)),
  ];
  const es = await capnpEsDecoder(dir);
  const ours = (bytes) => decodeAccount(bytes);
  // Same records from both, or the comparison means nothing.
  for (const file of files) {
    if (JSON.stringify(ours(file)) !== JSON.stringify(es(file)))
      throw new Error("capnp-es and cloudunits decode a file differently");
  }
  console.log(`files: ${files.map((f) => `${(f.length / 1024).toFixed(0)} KiB`).join(", ")}`);
  const a = throughput(ours, files);
  const b = throughput(es, files);
  const line = (name, r) =>
    `${name.padEnd(12)} ${r.mbPerCpuSecond.toFixed(1).padStart(8)} MB/s ${r.filesPerCpuSecond.toFixed(1).padStart(8)} files/s per CPU second` +
    ` (${r.mbPerWallSecond.toFixed(1)} MB/s wall clock)`;
  console.log(line("cloudunits", a));
  console.log(line("capnp-es", b));
  console.log(
    `ratio        ${(a.mbPerCpuSecond / b.mbPerCpuSecond).toFixed(1)}× capnp-es (target: ≥ 20× and ≥ 200 MB/s on one core)`,
  );
  expansionLines();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
