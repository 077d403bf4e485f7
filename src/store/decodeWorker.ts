/**
 * Worker thread entry: decodes groups of account-hours and stages them as columns, sending
 * the typed arrays back without copying. Messages: `{ id, hours, tables, columns }` in,
 * `{ id, group }` or `{ id, failure: { message, stack } }` out.
 */
import { parentPort } from "node:worker_threads";
import type { AccountHour } from "../input/types.js";
import { batchBuffers, type ColumnSelection } from "./columnBatch.js";
import type { DataTable } from "./schema.js";
import { stageHours } from "./stageHours.js";

parentPort!.on("message", (message: { id: number; hours: AccountHour[]; tables: DataTable[]; columns?: ColumnSelection }) => {
  try {
    const group = stageHours(message.hours, message.tables, undefined, message.columns);
    parentPort!.postMessage({ id: message.id, group }, batchBuffers(group.batch));
  } catch (error) {
    const e = error instanceof Error ? error : new Error(String(error));
    parentPort!.postMessage({ id: message.id, failure: { message: e.message, stack: e.stack } });
  }
});
