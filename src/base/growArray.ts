/** A typed array (or Buffer) of numbers. */
type NumberArray = Float64Array | Int32Array | Uint32Array | Uint8Array;

/**
 * `array` with room for `length` elements: itself when it has them, else a new array of the
 * same kind, twice as long (or `length`, if more), holding its first `used` elements. The
 * growth of the typed arrays that keep a run's numbers off the JavaScript heap.
 */
export function withRoom<T extends NumberArray>(array: T, used: number, length: number): T {
  if (length <= array.length) return array;
  const size = Math.max(2 * array.length, length);
  const grown = (
    Buffer.isBuffer(array) ? Buffer.allocUnsafe(size) : new (array.constructor as new (n: number) => T)(size)
  ) as T;
  grown.set(array.subarray(0, used));
  return grown;
}
