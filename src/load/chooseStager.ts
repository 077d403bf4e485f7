import { availableParallelism } from "node:os";
import { defaultWorkers, inlineStager, type Stager, type StagerOptions } from "./stageHours.js";
import { workerStager } from "./workerStager.js";

/**
 * The stager for a load of `bytesTotal` input bytes: `workers` decoding threads when given
 * (0: decode in this thread), else as many as pay (see `defaultWorkers`); `options`: what it
 * does besides staging (billing, hashing).
 */
export function chooseStager(bytesTotal: number, workers?: number, options: StagerOptions = {}): Stager {
  const count = workers ?? defaultWorkers(bytesTotal, availableParallelism());
  return count > 0 ? workerStager(count, options) : inlineStager(options);
}
