import { BadFileError, BadInputError, ConflictError, FetchError, ImpossibleValuesError, ReconcileDifferenceError, UsageError } from "../errors.js";

/**
 * SPEC 5: 2 bad usage, 3 bad input data, 4 fetch (or sync) could not authenticate or download,
 * 5 reconcile found differences, 1 a bug.
 */
export function exitCodeFor(error: unknown): number {
  if (error instanceof UsageError) return 2;
  if (error instanceof BadFileError || error instanceof ConflictError || error instanceof BadInputError || error instanceof ImpossibleValuesError) return 3;
  if (error instanceof FetchError) return 4;
  if (error instanceof ReconcileDifferenceError) return 5;
  return 1;
}
