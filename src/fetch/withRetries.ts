import { isTransient } from "./httpRequest.js";

/** How often and how patiently to retry. */
export interface RetryPolicy {
  /** Retries after the first attempt (0 = one attempt only). */
  retries: number;
  /** Wait before the first retry, ms; doubled at each further retry. */
  retryDelayMs: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs `attempt` until it succeeds, retrying transient failures (see `isTransient`) with
 * exponential backoff: waits retryDelayMs, 2×, 4×, … A failure that is not transient, or the
 * last one, is thrown; after several attempts its message says how many were made.
 */
export async function withRetries<T>(attempt: (attemptNumber: number) => Promise<T>, policy: RetryPolicy): Promise<T> {
  for (let attemptNumber = 1; ; attemptNumber++) {
    try {
      return await attempt(attemptNumber);
    } catch (error) {
      const retriesLeft = policy.retries - (attemptNumber - 1);
      if (!isTransient(error)) throw error;
      if (retriesLeft <= 0) {
        if (attemptNumber > 1 && error instanceof Error) error.message += ` (gave up after ${attemptNumber} attempts)`;
        throw error;
      }
      await sleep(policy.retryDelayMs * 2 ** (attemptNumber - 1));
    }
  }
}
