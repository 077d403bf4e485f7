/**
 * Worker thread entry: decodes groups of account-hours and stages them as columns, sending
 * the typed arrays back without copying; with `tap`, also visits them with this thread's tap
 * (made once, from the plug-in's module), whose sums `{ id, collect: true }` asks for.
 * Messages: `{ id, hours, tables, columns, tap?, hash? }` in, `{ id, group }`, `{ id, state }`
 * or `{ id, failure: { message, stack } }` out; handled one at a time, in order.
 */
import { parentPort } from "node:worker_threads";
import type { AccountHour } from "../input/types.js";
import { batchBuffers, type ColumnSelection } from "./columnBatch.js";
import type { DataTable } from "./dataTables.js";
import type { HourTap, TapModule } from "./hourTap.js";
import { stageHours } from "./stageHours.js";

interface Message {
  id: number;
  hours: AccountHour[];
  tables: DataTable[];
  columns?: ColumnSelection;
  tap?: { module: string; options: unknown };
  hash?: boolean;
  collect?: true;
}

/** This thread's tap, when its groups are tapped (one plug-in per worker). */
let tap: HourTap | undefined;
/** Messages wait for the one before them (the first may import the tap's module). */
let queue: Promise<void> = Promise.resolve();

async function handle(message: Message): Promise<void> {
  try {
    if (message.collect) {
      const collected = tap?.collect();
      parentPort!.postMessage({ id: message.id, state: collected?.state }, collected?.transfer ?? []);
      return;
    }
    if (message.tap !== undefined && tap === undefined)
      tap = ((await import(message.tap.module)) as TapModule).createTap(message.tap.options);
    const group = stageHours(message.hours, message.tables, { columns: message.columns, tap, hash: message.hash });
    parentPort!.postMessage({ id: message.id, group }, batchBuffers(group.batch));
  } catch (error) {
    const e = error instanceof Error ? error : new Error(String(error));
    parentPort!.postMessage({ id: message.id, failure: { message: e.message, stack: e.stack } });
  }
}

parentPort!.on("message", (message: Message) => {
  queue = queue.then(() => handle(message));
});
