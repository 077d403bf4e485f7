import { availableParallelism } from "node:os";
import { defaultWorkers, inlineStager, type BillingRules, type Stager } from "./stageHours.js";
import { workerStager } from "./workerStager.js";

/**
 * The stager for a load of `bytesTotal` input bytes: `workers` decoding threads when given
 * (0: decode in this thread), else as many as pay (see `defaultWorkers`); with `billing`, a
 * stager that also bills what it stages.
 */
export function chooseStager(bytesTotal: number, workers?: number, billing?: BillingRules): Stager {
  const count = workers ?? defaultWorkers(bytesTotal, availableParallelism());
  return count > 0 ? workerStager(count, billing) : inlineStager(billing);
}
