/** Small helpers to keep a few file-system calls in flight at once, results in order. */

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
