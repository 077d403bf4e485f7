import {
  ActiveAlertsError,
  BadFileError,
  BadInputError,
  ConflictError,
  DeliveryFailedError,
  EmptyPeriodError,
  EnvironmentError,
  FetchError,
  ImpossibleValuesError,
  InvoicesToCorrectError,
  IssuedInvoiceDiffersError,
  MissingHoursError,
  NoHoursHeldError,
  OverdueDocumentsError,
  RegisterBrokenError,
  ReconcileDifferenceError,
  StaleWarehouseError,
  UsageError,
  WarehouseBusyError,
} from "../base/errors.js";

/**
 * docs/cli.md: 2 bad usage, 3 bad input data, 4 fetch (or sync) could not authenticate or download,
 * 5 reconcile found differences, 6 the warehouse stayed busy beyond the wait, 7 `status --max-lag` found
 * an account staler than allowed, a missing or unaccepted lost hour, or a warehouse with no hour, `alerts` found an active alert, `invoices overdue`
 * an overdue document or `invoices send` a document it could not deliver, 8 the environment refused a write (a full disk, a read-only
 * file system, permission denied: EnvironmentError, or a raw error of one, see `environmentErrorOf`), 9 `invoices issue` found
 * other figures for an issued invoice, or `status` issued invoices the warehouse now disagrees with, 10 the invoice register disagrees with its chain (changed outside cloudunits), 1 a bug.
 */
export function exitCodeFor(error: unknown): number {
  if (error instanceof EnvironmentError) return 8;
  if (error instanceof UsageError) return 2;
  if (
    error instanceof BadFileError ||
    error instanceof ConflictError ||
    error instanceof BadInputError ||
    error instanceof ImpossibleValuesError ||
    error instanceof MissingHoursError ||
    error instanceof EmptyPeriodError ||
    error instanceof NoHoursHeldError
  )
    return 3;
  if (error instanceof FetchError) return 4;
  if (error instanceof ReconcileDifferenceError) return 5;
  if (error instanceof WarehouseBusyError) return 6;
  if (
    error instanceof StaleWarehouseError ||
    error instanceof ActiveAlertsError ||
    error instanceof OverdueDocumentsError ||
    error instanceof DeliveryFailedError
  )
    return 7;
  if (error instanceof IssuedInvoiceDiffersError || error instanceof InvoicesToCorrectError) return 9;
  if (error instanceof RegisterBrokenError) return 10;
  return 1;
}
