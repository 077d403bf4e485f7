/**
 * Worker thread entry: decodes groups of account-hours and stages them as columns, sending
 * the typed arrays back without copying. Messages: `{ id, hours, tables }` in,
 * `{ id, group }` or `{ id, failure: { message, stack } }` out.
 */
import { parentPort } from "node:worker_threads";
import type { AccountHour } from "../input/types.js";
import { batchBuffers } from "./columnBatch.js";
import type { DataTable } from "./schema.js";
import { stageHours } from "./stageHours.js";

parentPort!.on("message", (message: { id: number; hours: AccountHour[]; tables: DataTable[] }) => {
  try {
    const group = stageHours(message.hours, message.tables);
    parentPort!.postMessage({ id: message.id, group }, batchBuffers(group.batch));
  } catch (error) {
    const e = error instanceof Error ? error : new Error(String(error));
    parentPort!.postMessage({ id: message.id, failure: { message: e.message, stack: e.stack } });
  }
});
