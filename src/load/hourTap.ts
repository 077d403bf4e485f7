import type { RecordVisitor } from "../capnp/visitRecords.js";

/**
 * What a load computes, besides the columns, from the records of each account-hour it stages:
 * a plug-in of a layer above the loading (billing's facts and sums). One tap per thread; it
 * sees every record of an hour through `visitor`, between `begin` and `end` (`end` only for
 * an hour decoded without error), and keeps its own sums.
 */
export interface HourTap {
  readonly visitor: RecordVisitor;
  begin(accountId: number, hourEpoch: number): void;
  end(): void;
  /** The sums so far, as plain data, and the buffers a worker may hand back without copying. */
  collect(): { state: unknown; transfer: ArrayBuffer[] };
}

/**
 * How a load makes its taps. A worker thread imports `module` (a file URL) and calls its
 * exported `createTap(options)`; so the loading layer never imports the layer that defines
 * the tap. `options` must survive structured clone. `create` (the same function as the
 * module's `createTap`) makes the tap of the calling thread.
 */
export interface TapPlugin {
  module: string;
  options: unknown;
  create: (options: unknown) => HourTap;
}

/** The module a worker imports for a plug-in: it exports `createTap`. */
export interface TapModule {
  createTap(options: unknown): HourTap;
}
