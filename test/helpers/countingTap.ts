// A tap that only the tests know: it counts, per account, the machines and NICs it visits in
// the account-hours a load stages. It proves that the loading layer takes any tap (billing's
// is one plug-in among others), inline and on worker threads (which import this module by URL).
import type { RecordVisitor } from "../../src/capnp/visitRecords.js";
import type { HourTap, TapPlugin } from "../../src/load/hourTap.js";

/** Per account id: [machines, NICs, hours]. */
export type Counts = Record<number, [number, number, number]>;

export function createTap(options: unknown): HourTap {
  const { nicType } = options as { nicType: string };
  const counts: Counts = {};
  let current: [number, number, number] = [0, 0, 0];
  let pending: [number, number, number] = [0, 0, 0];
  const visitor: RecordVisitor = {
    nic: (_cs, _m, _t, _i, _id, type) => {
      if (type === nicType) pending[1]++;
    },
    disk: () => {},
    machine: () => {
      pending[0]++;
    },
    cloudSpace: () => {},
  };
  return {
    visitor,
    begin: (accountId) => {
      current = counts[accountId] ??= [0, 0, 0];
      pending = [0, 0, 0];
    },
    end: () => {
      current[0] += pending[0];
      current[1] += pending[1];
      current[2]++;
    },
    collect: () => ({ state: counts, transfer: [] }),
  };
}

export function countingTap(nicType: string): TapPlugin {
  return { module: new URL("./countingTap.ts", import.meta.url).href, options: { nicType }, create: createTap };
}
