/**
 * Results of the dashboard's pages by key, each kept with the warehouse version it was
 * computed from: a result is reused while the version is the same, and computed again once
 * a writer changed the file. A result being computed is shared by the requests that ask for
 * it meanwhile; a failure is not kept. At most `limit` results, the least recently used go first.
 */
export class ResultCache<T> {
  private readonly entries = new Map<string, { version: string; value: Promise<T> }>();

  constructor(private readonly limit = 64) {}

  /** The result of `key` at `version`: the one kept, else `compute()`'s. */
  get(key: string, version: string, compute: () => Promise<T>): Promise<T> {
    const kept = this.entries.get(key);
    this.entries.delete(key);
    if (kept && kept.version === version) {
      this.entries.set(key, kept);
      return kept.value;
    }
    const value = compute();
    const entry = { version, value };
    this.entries.set(key, entry);
    value.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    while (this.entries.size > this.limit) this.entries.delete(this.entries.keys().next().value!);
    return value;
  }
}
