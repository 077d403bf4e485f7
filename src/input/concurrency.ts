/** Starting work early: an iteration begun ahead of its consumer. */

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
