/**
 * Worker thread entry: decodes groups of account-hours and stages them as columns, sending
 * the typed arrays back without copying; with `billing`, also bills them into this thread's
 * engine, whose state `{ id, collect: true }` asks for. Messages: `{ id, hours, tables,
 * columns, billing?, hash? }` in, `{ id, group }`, `{ id, state }` or `{ id, failure: { message, stack } }` out.
 */
import { parentPort } from "node:worker_threads";
import type { AccountHour } from "../input/types.js";
import { batchBuffers, type ColumnSelection } from "./columnBatch.js";
import type { DataTable } from "./dataTables.js";
import { stageHours, ThreadBilling, type BillingRules } from "./stageHours.js";

/** This thread's billing, when its groups are billed (one set of rules per worker). */
let billing: ThreadBilling | undefined;

parentPort!.on("message", (message: { id: number; hours: AccountHour[]; tables: DataTable[]; columns?: ColumnSelection; billing?: BillingRules; hash?: boolean; collect?: true }) => {
  try {
    if (message.collect) {
      const state = billing?.engine.state();
      const buffers = state === undefined ? [] : [state.entities, state.hours, state.counts, state.terms].map((a) => a.buffer as ArrayBuffer);
      parentPort!.postMessage({ id: message.id, state }, buffers);
      return;
    }
    if (message.billing !== undefined) billing ??= new ThreadBilling(message.billing);
    const group = stageHours(message.hours, message.tables, { columns: message.columns, billing, hash: message.hash });
    parentPort!.postMessage({ id: message.id, group }, batchBuffers(group.batch));
  } catch (error) {
    const e = error instanceof Error ? error : new Error(String(error));
    parentPort!.postMessage({ id: message.id, failure: { message: e.message, stack: e.stack } });
  }
});
