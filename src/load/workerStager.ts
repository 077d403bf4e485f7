import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import type { AccountHour } from "../input/types.js";
import type { ColumnSelection } from "./columnBatch.js";
import type { DataTable } from "./dataTables.js";
import type { StagedGroup, Stager, StagerOptions } from "./stageHours.js";

/** Groups in flight per worker (and at least 4): each has the next while its result travels back; bounds memory while workers decode ahead. */
const GROUPS_IN_FLIGHT_PER_THREAD = 2;
const MIN_GROUPS_IN_FLIGHT = 4;

interface Pending {
  resolve: (answer: unknown) => void;
  reject: (error: Error) => void;
}

/**
 * A decoding worker's young generation, at most: what it allocates dies young (decoded values,
 * per-hour scratch), and V8 otherwise grows a busy thread's young generation the longer it
 * runs, so a long period peaked far above a week (docs/performance.md, "Why the code is written
 * so"). A cap on the young generation only makes its collections more frequent; the old
 * generation is not capped.
 */
const WORKER_LIMITS = { maxYoungGenerationSizeMb: 2 };

/**
 * Starts a decoding worker: the compiled `decodeWorker.js` beside this module, or, when
 * running from the TypeScript sources (tests, `tsx`), `decodeWorker.ts` loaded through
 * tsx's loader registered inside the worker.
 */
function startWorker(): Worker {
  if (!import.meta.url.endsWith(".ts"))
    return new Worker(new URL("./decodeWorker.js", import.meta.url), { resourceLimits: WORKER_LIMITS });
  const script = new URL("./decodeWorker.ts", import.meta.url).href;
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx/esm/api")).href.replace(/\.cjs$/, ".mjs");
  return new Worker(
    `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(script)}); })`,
    { eval: true, resourceLimits: WORKER_LIMITS },
  );
}

/**
 * The buffers holding nothing but one file's bytes, to move them to a worker instead of
 * copying them (the caller no longer reads them; a shared pool's buffer is copied).
 */
function ownBuffers(hours: AccountHour[]): ArrayBuffer[] {
  const buffers = new Set<ArrayBuffer>();
  for (const hour of hours) {
    for (const { bytes } of hour.sources) {
      if (bytes.buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength)
        buffers.add(bytes.buffer);
    }
  }
  return [...buffers];
}

/**
 * A stager decoding on `count` worker threads, each group handed to the worker with the
 * fewest groups waiting (the first of them on a tie), so a slow group never leaves another
 * worker idle behind it. Each group's
 * bytes move to its worker (they are detached here); the staged columns come back the same way.
 * A worker that dies rejects its pending groups.
 */
export function workerStager(count: number, options: StagerOptions = {}): Stager {
  const { hash } = options;
  /** The tap's module and options, posted to each worker with its groups (its `create` stays here). */
  const tap = options.tap === undefined ? undefined : { module: options.tap.module, options: options.tap.options };
  const pending = new Map<number, Pending>();
  const owner = new Map<number, Worker>();
  let nextId = 0;
  const workers = Array.from({ length: Math.max(1, count) }, () => {
    const worker = startWorker();
    worker.on(
      "message",
      (message: {
        id: number;
        group?: StagedGroup;
        state?: unknown;
        failure?: { message: string; stack?: string };
      }) => {
        const p = pending.get(message.id);
        if (p === undefined) return;
        pending.delete(message.id);
        owner.delete(message.id);
        if (message.group) p.resolve(message.group);
        else if (!message.failure) p.resolve(message.state);
        else {
          const error = new Error(`decoding worker failed: ${message.failure?.message}`);
          if (message.failure?.stack) error.stack = message.failure.stack;
          p.reject(error);
        }
      },
    );
    const failAll = (error: Error) => {
      for (const [id, w] of owner) {
        if (w !== worker) continue;
        pending.get(id)?.reject(error);
        pending.delete(id);
        owner.delete(id);
      }
    };
    worker.on("error", failAll);
    worker.on("exit", (code) => failAll(new Error(`decoding worker exited with code ${code}`)));
    return worker;
  });
  const ask = <T>(worker: Worker, message: object, transfer: ArrayBuffer[] = []) =>
    new Promise<T>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve: resolve as (answer: unknown) => void, reject });
      owner.set(id, worker);
      worker.postMessage({ id, ...message }, transfer);
    });
  /** The worker with the fewest requests waiting. */
  const leastBusy = (): Worker => {
    const waiting = new Map(workers.map((w) => [w, 0]));
    for (const w of owner.values()) waiting.set(w, waiting.get(w)! + 1);
    return workers.reduce((best, w) => (waiting.get(w)! < waiting.get(best)! ? w : best));
  };
  return {
    inFlight: Math.max(MIN_GROUPS_IN_FLIGHT, GROUPS_IN_FLIGHT_PER_THREAD * workers.length),
    stage: (hours: AccountHour[], tables: readonly DataTable[], columns?: ColumnSelection) =>
      ask<StagedGroup>(leastBusy(), { hours, tables, columns, tap, hash }, ownBuffers(hours)),
    collect:
      tap === undefined
        ? undefined
        : async () => {
            const states = await Promise.all(workers.map((w) => ask<unknown>(w, { collect: true })));
            return states.filter((s) => s !== undefined);
          },
    close: async () => {
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}
