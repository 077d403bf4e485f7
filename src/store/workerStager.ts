import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import type { AccountHour } from "../input/types.js";
import type { ColumnSelection } from "./columnBatch.js";
import type { DataTable } from "./schema.js";
import type { StagedGroup, Stager, StagerOptions } from "./stageHours.js";
import type { EngineState } from "../billing/billingEngine.js";

interface Pending {
  resolve: (group: StagedGroup & EngineState) => void;
  reject: (error: Error) => void;
}

/**
 * Starts a decoding worker: the compiled `decodeWorker.js` beside this module, or, when
 * running from the TypeScript sources (tests, `tsx`), `decodeWorker.ts` loaded through
 * tsx's loader registered inside the worker.
 */
function startWorker(): Worker {
  if (!import.meta.url.endsWith(".ts")) return new Worker(new URL("./decodeWorker.js", import.meta.url));
  const script = new URL("./decodeWorker.ts", import.meta.url).href;
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx/esm/api")).href.replace(/\.cjs$/, ".mjs");
  return new Worker(
    `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(script)}); })`,
    { eval: true },
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
      if (bytes.buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) buffers.add(bytes.buffer);
    }
  }
  return [...buffers];
}

/**
 * A stager decoding on `count` worker threads, groups handed out round-robin. Each group's
 * bytes move to its worker (they are detached here); the staged columns come back the same way.
 * A worker that dies rejects its pending groups.
 */
export function workerStager(count: number, options: StagerOptions = {}): Stager {
  const { billing, hash } = options;
  const pending = new Map<number, Pending>();
  const owner = new Map<number, Worker>();
  let nextId = 0;
  const workers = Array.from({ length: Math.max(1, count) }, () => {
    const worker = startWorker();
    worker.on("message", (message: { id: number; group?: StagedGroup; state?: EngineState; failure?: { message: string; stack?: string } }) => {
      const p = pending.get(message.id);
      if (p === undefined) return;
      pending.delete(message.id);
      owner.delete(message.id);
      if (message.group) p.resolve(message.group as StagedGroup & EngineState);
      else if (!message.failure) p.resolve(message.state as StagedGroup & EngineState);
      else {
        const error = new Error(`decoding worker failed: ${message.failure?.message}`);
        if (message.failure?.stack) error.stack = message.failure.stack;
        p.reject(error);
      }
    });
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
      pending.set(id, { resolve: resolve as (value: StagedGroup & EngineState) => void, reject });
      owner.set(id, worker);
      worker.postMessage({ id, ...message }, transfer);
    });
  let turn = 0;
  return {
    stage: (hours: AccountHour[], tables: readonly DataTable[], columns?: ColumnSelection) =>
      ask<StagedGroup>(workers[turn++ % workers.length]!, { hours, tables, columns, billing, hash }, ownBuffers(hours)),
    collect: billing === undefined ? undefined : async () => {
      const states = await Promise.all(workers.map((w) => ask<EngineState | undefined>(w, { collect: true })));
      return states.filter((s): s is EngineState => s !== undefined);
    },
    close: async () => {
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}
