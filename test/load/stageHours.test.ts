import { describe, expect, it } from "vitest";
import { decodeAccountHour } from "../../src/capnp/decodeAccountHour.js";
import { encodeAccount, encodeCloudSpace } from "../../src/generate/encodeAccount.js";
import { generateHours } from "../../src/generate/generateHours.js";
import type { AccountHour, Source } from "../../src/input/types.js";
import { DATA_TABLES } from "../../src/store/schema.js";
import { billingWorkers, stageHours } from "../../src/load/stageHours.js";
import { workerStager } from "../../src/load/workerStager.js";

// The loader stages straight from the bytes into columns; decoding into records first
// (decodeAccountHour, the public decoder) must give exactly the same rows and errors.
const plain = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value, (_k, v: unknown) => (ArrayBuffer.isView(v) ? Array.from(v as Uint8Array) : v)));

function sampleHours(): AccountHour[] {
  const hours: AccountHour[] = [];
  let seed = 99;
  const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  let i = 0;
  for (const h of generateHours({ accounts: 3, spaces: 2, machines: 5, hours: 6, seed: 3 })) {
    const name = `${h.accountId}/2026/10/1/${i % 24}/account_capnp.bin`;
    const variant = i++ % 4;
    let sources: Source[];
    if (variant === 3) {
      // The controller's per-cloud-space files, one with a far pointer layout.
      sources = h.account.cloudspaces.map((cs, k) => ({
        name: `${h.accountId}/2026/10/1/${i % 24}/${cs.cloudSpaceId}.bin`,
        root: "CloudSpace",
        packed: k === 1,
        bytes: encodeCloudSpace(cs, { packed: k === 1, segmentWords: 64 }),
      }));
    } else {
      const bytes = encodeAccount(h.account, { oldSchema: variant === 1, packed: variant === 2 });
      if (variant === 0 && random() < 0.7) {
        // A damaged file: a few bytes overwritten (most fail to decode, at various depths).
        for (let k = 0; k < 4; k++) bytes[8 + Math.floor(random() * (bytes.length - 8))] = Math.floor(random() * 256);
      }
      sources = [{ name, root: "Account", packed: variant === 2, bytes }];
    }
    hours.push({ accountId: h.accountId, hourEpoch: h.hourEpoch, sources });
  }
  return hours;
}

describe("staging account-hours as columns", () => {
  it("gives the rows and errors of decoding into records first, for good, damaged, old-schema, packed and per-cloud-space files", () => {
    const hours = sampleHours();
    for (let size = 1; size <= 5; size += 2) {
      for (let at = 0; at < hours.length; at += size) {
        const group = hours.slice(at, at + size);
        const direct = stageHours(group, DATA_TABLES);
        const viaRecords = stageHours(group, DATA_TABLES, { decode: (h) => decodeAccountHour(h) });
        expect(plain(direct)).toEqual(plain(viaRecords));
      }
    }
    const staged = stageHours(hours, DATA_TABLES);
    expect(staged.errors.length).toBeGreaterThan(0);
    expect(staged.batch.disks!.rows).toBeGreaterThan(0);
  });

  it("stages only the tables asked for", () => {
    const staged = stageHours(sampleHours().slice(1, 3), ["machines", "nics"]);
    expect(Object.keys(staged.batch).sort()).toEqual(["machines", "nics"]);
  });

  it("stages an impossible value as NULL and names its own file among an hour's per-cloud-space files, on a worker too", async () => {
    const [h] = [...generateHours({ accounts: 1, spaces: 2, machines: 2, hours: 1, seed: 5 })];
    const spaces = h!.account.cloudspaces;
    const vm = spaces[1]!.machines.find((m) => m.type === "vm")!;
    vm.mem = NaN;
    vm.disks[0]!.size = -2;
    const names = spaces.map((cs) => `${h!.accountId}/2026/10/1/0/${cs.cloudSpaceId}.bin`);
    const hour: AccountHour = {
      accountId: h!.accountId,
      hourEpoch: h!.hourEpoch,
      sources: spaces.map((cs, k) => ({
        name: names[k]!,
        root: "CloudSpace",
        packed: false,
        bytes: encodeCloudSpace(cs),
      })),
    };
    const direct = stageHours([hour], DATA_TABLES);
    expect(direct.impossible.map((v) => [v.file, v.machineId, v.machineType, v.part, v.field, v.value])).toEqual([
      [names[1], vm.id, "vm", "disk", "size", "-2"],
      [names[1], vm.id, "vm", "machine", "mem", "NaN"],
    ]);
    const machines = direct.batch.machines!;
    const mem = machines.columns[7]!;
    const row = (machines.columns[3]! as { values: Int32Array }).values.indexOf(vm.id);
    expect(mem.kind === "f64" && mem.nulls).toEqual([row]);
    expect(plain(stageHours([hour], DATA_TABLES, { decode: (x) => decodeAccountHour(x) }))).toEqual(plain(direct));
    const stager = workerStager(1);
    try {
      const onWorker = await stager.stage(
        [{ ...hour, sources: hour.sources.map((s) => ({ ...s, bytes: s.bytes.slice() })) }],
        DATA_TABLES,
      );
      expect(plain(onWorker)).toEqual(plain(direct));
    } finally {
      await stager.close();
    }
  });
});

describe("billingWorkers", () => {
  const MiB = 1024 * 1024;
  it.each([
    // input, cores, free cores besides this process: workers
    [100 * MiB, 2, 1, 0], // a week of 10 × 200 machines: their start costs more than they save
    [300 * MiB, 2, 1, 2], // idle 2 cores: the main thread walks and reads, two workers decode
    [300 * MiB, 2, 0.3, 0], // a loaded machine: workers would only take turns with the main thread
    [300 * MiB, 2, 0, 0],
    [300 * MiB, 1, 1, 0], // one core: nothing to gain
    [100 * MiB, 8, 7, 8], // more idle cores: smaller inputs repay them, one worker a core at most
    [100 * MiB, 8, 2.4, 3],
    [4096 * MiB, 16, 16, 8], // at most 8
  ])("bills %d bytes on %d cores with %d free on %d workers", (bytes, cores, free, workers) => {
    expect(billingWorkers(bytes, cores, free)).toBe(workers);
  });
});
