/** A result of the cache: the value, and whether it is of an older version of the warehouse (a newer one is being computed). */
export interface Cached<T> {
  value: Promise<T>;
  stale: boolean;
}

interface Entry<T> {
  version: string;
  value: Promise<T>;
  /** The value once computed. */
  done?: { value: T };
  /** The computation of a newer version, while the older value is still answered. */
  refresh?: { version: string };
}

/**
 * Results of the dashboard's pages by key, each kept with the warehouse version it was
 * computed from. A result is reused while the version is the same. Once a writer changed the
 * file, the result kept is answered, marked stale, while the new version's is computed
 * (stale-while-revalidate: a page never waits for a recomputation it has an answer for), unless
 * the caller needs the current one (`fresh`: a download). A result being computed is shared by
 * the requests that ask for it meanwhile; a failure is not kept. At most `limit` results, the
 * least recently used go first.
 */
export class ResultCache<T> {
  private readonly entries = new Map<string, Entry<T>>();

  constructor(private readonly limit = 64) {}

  /** The result of `key` at `version`: the one kept, else `compute()`'s (see the class). */
  get(key: string, version: string, compute: () => Promise<T>, fresh = false): Cached<T> {
    const kept = this.entries.get(key);
    if (kept) {
      // most recently used last
      this.entries.delete(key);
      this.entries.set(key, kept);
    }
    if (kept && kept.version === version) return { value: kept.value, stale: false };
    if (kept?.done && !fresh) {
      if (kept.refresh?.version !== version) this.refresh(key, kept, version, compute);
      return { value: Promise.resolve(kept.done.value), stale: true };
    }
    return { value: this.start(key, version, compute).value, stale: false };
  }

  /**
   * The result of `key` at `version` when one is kept or being computed (without computing
   * anything, nor counting as a use); else undefined.
   */
  peek(key: string, version: string): Promise<T> | undefined {
    const kept = this.entries.get(key);
    return kept?.version === version ? kept.value : undefined;
  }

  /** Whether a result of `key` is kept or being computed, of any version. */
  holds(key: string): boolean {
    return this.entries.has(key);
  }

  /**
   * Keeps `value` as `key`'s result at `version` too (the same page asked for by another
   * address: `/` and `/?month=` of its month), unless `key` holds that version already.
   */
  put(key: string, version: string, value: T): void {
    if (this.entries.get(key)?.version === version) return;
    this.entries.delete(key);
    this.entries.set(key, { version, value: Promise.resolve(value), done: { value } });
    while (this.entries.size > this.limit) this.entries.delete(this.entries.keys().next().value!);
  }

  /** Computes `version` of `key` into a new entry. */
  private start(key: string, version: string, compute: () => Promise<T>): Entry<T> {
    const entry: Entry<T> = { version, value: compute() };
    this.entries.set(key, entry);
    entry.value.then(
      (value) => {
        entry.done = { value };
      },
      () => {
        if (this.entries.get(key) === entry) this.entries.delete(key);
      },
    );
    while (this.entries.size > this.limit) this.entries.delete(this.entries.keys().next().value!);
    return entry;
  }

  /** Computes `version` of `key` while `kept` is answered; it replaces `kept` once done (a failure leaves `kept`). */
  private refresh(key: string, kept: Entry<T>, version: string, compute: () => Promise<T>): void {
    kept.refresh = { version };
    const entry: Entry<T> = { version, value: compute() };
    entry.value.then(
      (value) => {
        entry.done = { value };
        if (this.entries.get(key) === kept) this.entries.set(key, entry);
      },
      () => {
        if (kept.refresh?.version === version) kept.refresh = undefined;
      },
    );
  }
}
