import { describe, expect, it } from "vitest";
import { ResultCache } from "../../src/serve/resultCache.js";

/** A computation the test finishes when it wants. */
function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe("ResultCache", () => {
  it("reuses a result while the version holds; once it changes, answers the old one marked stale while the new one computes", async () => {
    const cache = new ResultCache<string>();
    let computed = 0;
    const v1 = deferred<string>();
    const first = cache.get("k", "v1", () => {
      computed++;
      return v1.promise;
    });
    const shared = cache.get("k", "v1", () => {
      computed++;
      return Promise.resolve("other");
    });
    v1.resolve("one");
    expect([await first.value, await shared.value, first.stale, computed]).toEqual(["one", "one", false, 1]);
    const v2 = deferred<string>();
    const meanwhile = cache.get("k", "v2", () => {
      computed++;
      return v2.promise;
    });
    expect([await meanwhile.value, meanwhile.stale]).toEqual(["one", true]);
    cache.get("k", "v2", () => {
      computed++;
      return Promise.resolve("again");
    }); // one recomputation, not two
    expect(computed).toBe(2);
    v2.resolve("two");
    await v2.promise;
    const after = cache.get("k", "v2", () => Promise.resolve("never"));
    expect([await after.value, after.stale]).toEqual(["two", false]);
  });

  it("gives a caller that needs the current version (a download) that version, never the stale one", async () => {
    const cache = new ResultCache<string>();
    await cache.get("k", "v1", () => Promise.resolve("one")).value;
    const fresh = cache.get("k", "v2", () => Promise.resolve("two"), true);
    expect([await fresh.value, fresh.stale]).toEqual(["two", false]);
  });

  it("keeps no failure: a failed first computation is tried again; a failed recomputation leaves the old result, tried again next time", async () => {
    const cache = new ResultCache<string>();
    await expect(cache.get("k", "v1", () => Promise.reject(new Error("busy"))).value).rejects.toThrow("busy");
    expect(await cache.get("k", "v1", () => Promise.resolve("one")).value).toBe("one");
    const failing = deferred<string>();
    expect(await cache.get("k", "v2", () => failing.promise).value).toBe("one");
    failing.reject(new Error("busy"));
    await failing.promise.catch(() => undefined);
    let retried = false;
    const again = cache.get("k", "v2", () => {
      retried = true;
      return Promise.resolve("two");
    });
    expect([await again.value, again.stale, retried]).toEqual(["one", true, true]);
  });

  it("a result kept under a second key answers there at its version, and only there: a newer version is computed", async () => {
    const cache = new ResultCache<string>();
    const page = await cache.get("overview|", "v1", () => Promise.resolve("october")).value;
    cache.put("overview|2026-10", "v1", page);
    expect(await cache.get("overview|2026-10", "v1", () => Promise.resolve("computed again")).value).toBe("october");
    const newer = cache.get("overview|2026-10", "v2", () => Promise.resolve("october, synced"), true);
    expect(await newer.value).toBe("october, synced");
    cache.put("overview|2026-10", "v2", "an older computation"); // the version held already: kept
    expect(await cache.get("overview|2026-10", "v2", () => Promise.resolve("never")).value).toBe("october, synced");
  });
});
