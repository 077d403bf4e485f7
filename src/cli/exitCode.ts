import { ERROR_CODES } from "../base/errorCodes.js";
import { CloudunitsError } from "../base/errors.js";

/**
 * The process's exit code for `error` (docs/cli.md, "Exit codes"): an error of cloudunits exits as
 * its code's entry in the catalog (src/base/errorCodes.ts) says: 2 bad usage, 3 bad input data, 4
 * fetch, sync, reconcile or a webhook could not authenticate, download or call, 5 reconcile found
 * differences, 6 the warehouse stayed busy beyond the wait, 7 something a human must act on (`status`,
 * `alerts`, `invoices overdue`, `invoices send`), 8 the environment refused a write (a raw error of one
 * is turned into an EnvironmentError first, see `environmentErrorOf`), 9 issued invoices the warehouse
 * now disagrees with, 10 the invoice register disagrees with its chain. Anything else is 1, a bug.
 */
export function exitCodeFor(error: unknown): number {
  return error instanceof CloudunitsError ? ERROR_CODES[error.code].exit : 1;
}
