import { FetchError } from "../base/errors.js";
import { isTransient } from "./httpRequest.js";
import { MAX_RETRY_AFTER_MS } from "./retryAfter.js";

/** How often and how patiently to retry. */
export interface RetryPolicy {
  /** Retries after the first attempt (0 = one attempt only). */
  retries: number;
  /** Wait before the first retry, ms, at most (full jitter); doubled at each further retry. */
  retryDelayMs: number;
  /** How long the whole call may take, retries and waits included, ms. Default: no limit. */
  deadlineMs?: number;
  /** The longest `Retry-After` honoured, ms. Default {@link MAX_RETRY_AFTER_MS}. */
  maxRetryAfterMs?: number;
  /** A number in [0, 1), for the jitter. Default Math.random (tests give their own). */
  random?: () => number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs `attempt` until it succeeds, retrying transient failures (see `isTransient`) with
 * exponential backoff and full jitter: waits a random time up to retryDelayMs, 2×, 4×, … (so that
 * clients that failed together do not come back together), or, when the server said when to come
 * back (a 429 or 5xx with `Retry-After`), that long, capped at `maxRetryAfterMs`. A failure that is not transient, or the
 * last one, is thrown; after several attempts its message says how many were made. With
 * `deadlineMs`, every attempt is given the same `deadlineAt` (epoch ms) to pass on to its
 * requests, and no retry starts whose wait would end after it.
 */
export async function withRetries<T>(
  attempt: (attemptNumber: number, deadlineAt: number | undefined) => Promise<T>,
  policy: RetryPolicy,
): Promise<T> {
  const deadlineAt = policy.deadlineMs === undefined ? undefined : Date.now() + policy.deadlineMs;
  for (let attemptNumber = 1; ; attemptNumber++) {
    try {
      return await attempt(attemptNumber, deadlineAt);
    } catch (error) {
      const retriesLeft = policy.retries - (attemptNumber - 1);
      if (!isTransient(error)) throw error;
      const asked = error instanceof FetchError ? error.retryAfterMs : undefined;
      const waitMs =
        asked !== undefined
          ? Math.min(asked, policy.maxRetryAfterMs ?? MAX_RETRY_AFTER_MS)
          : Math.round((policy.random ?? Math.random)() * policy.retryDelayMs * 2 ** (attemptNumber - 1));
      const outOfTime = deadlineAt !== undefined && Date.now() + waitMs >= deadlineAt;
      if (retriesLeft <= 0 || outOfTime) {
        if (attemptNumber > 1 && error instanceof Error)
          error.message += ` (gave up after ${attemptNumber} attempts${outOfTime ? ", at the deadline" : ""})`;
        else if (outOfTime && error instanceof Error) error.message += " (not retried: the deadline would pass)";
        throw error;
      }
      await sleep(waitMs);
    }
  }
}
