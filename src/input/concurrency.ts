/** Small helpers to keep a few file-system calls in flight at once, results in order, and to start work early. */

/** `fn` over `items` with at most `limit` calls in flight; results in the items' order. */
export async function mapConcurrently<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** `fn` wrapped so that at most `limit` calls run at once; the others wait in call order. */
export function limitConcurrency<A, R>(limit: number, fn: (arg: A) => Promise<R>): (arg: A) => Promise<R> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (arg) => {
    if (running < limit) running++;
    else await new Promise<void>((resolve) => waiting.push(resolve)); // a finishing call hands over its slot
    try {
      return await fn(arg);
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}

/** An iteration begun ahead of its consumer (see {@link iterateNow}). */
export interface BegunIteration<T> {
  /** Every item from the first; iterate it once. */
  items: AsyncIterable<T>;
  /** Ends the iteration when `items` will not be iterated (releases what it holds). */
  close(): Promise<void>;
}

/**
 * Begins iterating `iterable` now, so that its first step (for the reader: indexing the
 * inputs) runs while the caller gets ready to consume it.
 */
export function iterateNow<T>(iterable: AsyncIterable<T>): BegunIteration<T> {
  const iterator = iterable[Symbol.asyncIterator]();
  let first: Promise<IteratorResult<T>> | undefined = iterator.next();
  first.catch(() => {}); // thrown to the consumer
  let taken = false;
  return {
    items: {
      [Symbol.asyncIterator]: () => {
        if (taken) throw new Error("iterateNow: items can be iterated once");
        taken = true;
        return {
          next: () => {
            const step = first ?? iterator.next();
            first = undefined;
            return step;
          },
          return: async (): Promise<IteratorResult<T>> => {
            await iterator.return?.();
            return { done: true, value: undefined };
          },
        };
      },
    },
    close: async () => {
      if (taken) return;
      taken = true;
      await first?.catch(() => {});
      await iterator.return?.();
    },
  };
}
