import { describe, expect, it } from "vitest";
import { iterateNow } from "../../src/input/concurrency.js";

/** A generator that logs when it starts, yields 1, 2, 3, and logs when it is finished or closed. */
function counting(log: string[], fail = false) {
  return (async function* () {
    log.push("started");
    try {
      if (fail) throw new Error("cannot index");
      yield 1;
      yield 2;
      yield 3;
    } finally {
      log.push("finished");
    }
  })();
}

describe("iterateNow", () => {
  it("begins the first step before anyone iterates, then yields every item in order", async () => {
    const log: string[] = [];
    const begun = iterateNow(counting(log));
    await new Promise((r) => setImmediate(r));
    expect(log).toEqual(["started"]);
    const items: number[] = [];
    for await (const item of begun.items) items.push(item);
    expect(items).toEqual([1, 2, 3]);
    expect(log).toEqual(["started", "finished"]);
    expect(() => begun.items[Symbol.asyncIterator]()).toThrow("can be iterated once");
  });

  it("throws a failed first step to the consumer, not before", async () => {
    const begun = iterateNow(counting([], true));
    await new Promise((r) => setImmediate(r));
    await expect(
      (async () => {
        for await (const _ of begun.items) void _;
      })(),
    ).rejects.toThrow("cannot index");
  });

  it("ends an iteration nobody consumes when closed, and one left early by the consumer", async () => {
    const unused: string[] = [];
    await iterateNow(counting(unused)).close();
    expect(unused).toEqual(["started", "finished"]);
    const left: string[] = [];
    for await (const item of iterateNow(counting(left)).items) if (item === 1) break;
    expect(left).toEqual(["started", "finished"]);
  });
});
