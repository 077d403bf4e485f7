import { describe, expect, it } from "vitest";
import { encodeAccount } from "../../src/generate/encodeAccount.js";
import { generateHours } from "../../src/generate/generateHours.js";
import type { AccountHour } from "../../src/input/types.js";
import { DATA_TABLES } from "../../src/load/dataTables.js";
import { inlineStager } from "../../src/load/stageHours.js";
import { workerStager } from "../../src/load/workerStager.js";
import type { Stager } from "../../src/load/stageHours.js";
import { countingTap, type Counts } from "../helpers/countingTap.js";

// The loading layer knows neither billing nor the warehouse: a layer above plugs a tap in,
// which sees the records of every account-hour staged (and only of those decoded whole).
function hours(): AccountHour[] {
  return [...generateHours({ accounts: 2, spaces: 2, machines: 3, hours: 4, seed: 5 })].map((h, i) => {
    const bytes = encodeAccount(h.account);
    if (i === 5) bytes.fill(0xff, 8); // a damaged hour: its records must not count
    return {
      accountId: h.accountId,
      hourEpoch: h.hourEpoch,
      sources: [{ name: `${h.accountId}/${i}.bin`, root: "Account" as const, packed: false, bytes }],
    };
  });
}

function expected(): Counts {
  const counts: Counts = {};
  [...generateHours({ accounts: 2, spaces: 2, machines: 3, hours: 4, seed: 5 })].forEach((h, i) => {
    if (i === 5) return;
    const c = (counts[h.accountId] ??= [0, 0, 0]);
    for (const cs of h.account.cloudspaces)
      for (const m of cs.machines) {
        c[0]++;
        c[1] += m.networks.filter((n) => n.type === "external").length;
      }
    c[2]++;
  });
  return counts;
}

/** Sums the per-thread counts a stager collected. */
async function tapped(stager: Stager, input: AccountHour[]): Promise<{ counts: Counts; failed: number }> {
  let failed = 0;
  try {
    for (let i = 0; i < input.length; i += 3)
      failed += (await stager.stage(input.slice(i, i + 3), DATA_TABLES)).errors.length;
    const counts: Counts = {};
    for (const state of (await stager.collect!()) as Counts[]) {
      for (const [id, [m, n, h]] of Object.entries(state)) {
        const c = (counts[Number(id)] ??= [0, 0, 0]);
        c[0] += m;
        c[1] += n;
        c[2] += h;
      }
    }
    return { counts, failed };
  } finally {
    await stager.close();
  }
}

describe("a tap plugged into the loading layer", () => {
  it("sees every machine and NIC of the hours decoded whole, none of a damaged hour, in this thread", async () => {
    expect(Object.values(expected()).every(([machines, nics, hours]) => machines > 0 && nics > 0 && hours > 0)).toBe(
      true,
    );
    const result = await tapped(inlineStager({ tap: countingTap("external") }), hours());
    expect(result.failed).toBe(1);
    expect(result.counts).toEqual(expected());
  });

  it("counts the same on two worker threads, which import the tap's module by URL", async () => {
    const result = await tapped(workerStager(2, { tap: countingTap("external") }), hours());
    expect(result.failed).toBe(1);
    expect(result.counts).toEqual(expected());
  });

  it("is optional: a stager without a tap has nothing to collect", () => {
    expect(inlineStager().collect).toBeUndefined();
  });
});
