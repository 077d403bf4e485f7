/**
 * The one clock of every decision made by "now" (the current hour in `sync`, `ingest` and
 * `check`, "not yet synced" in a bill's data quality, a warehouse's lag in `status`, the dashboard's
 * months, the month that has ended in `invoices`): the system's, unless a test set another
 * (`setClock`, which the CLI does from `CLOUDUNITS_TEST_NOW` and says so). Library functions that
 * take a `nowEpoch` default to it.
 */
let fixedEpoch: number | undefined;

/** Now, epoch seconds (with a fraction): the test clock when one is set, else the system's. */
export function clockNow(): number {
  return fixedEpoch ?? Date.now() / 1000;
}

/** Sets the time `clockNow` gives (epoch seconds), or gives the system's clock back (`undefined`). */
export function setClock(epoch: number | undefined): void {
  fixedEpoch = epoch;
}
