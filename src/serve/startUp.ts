import { ACCOUNT_PAGES, type DashboardPages } from "./dashboardPages.js";
import { NotFoundError } from "./notFound.js";
import type { WarehouseQueue } from "./warehouseQueue.js";

/** The client the pages computed at start are computed for: the dashboard itself. */
const SELF = "dashboard";

/** The months before the latest whose overview is computed at start, newest first. */
export const EARLIER_OVERVIEWS = 12;

/**
 * The pages computed as the dashboard starts: the latest month's overview, then (unless
 * `precompute` is false) the data-quality page, the latest month's page of each account (at
 * most `ACCOUNT_PAGES`) and the overviews of the months before it (at most
 * `EARLIER_OVERVIEWS`, newest first), one at a time, each only once no request waits (a
 * request goes first); stops when `closed()` says so. A page computed at start is answered
 * from memory when first asked for (a month's overview costs some 1.5 CPU s to compute at 26
 * weeks of 2,000 machines), and after a sync at once, marked stale, while it is computed again.
 */
export async function startUp(
  pages: DashboardPages,
  queue: WarehouseQueue,
  precompute: boolean,
  closed: () => boolean,
): Promise<void> {
  await pages.overview(SELF, undefined);
  if (!precompute) return;
  await queue.idle();
  if (closed()) return;
  await pages.quality(SELF);
  for (const id of (await pages.accountIds(SELF)).slice(0, ACCOUNT_PAGES)) {
    await queue.idle();
    if (closed()) return;
    await pages.account(SELF, id, undefined);
  }
  for (const month of (await pages.months(SELF)).reverse().slice(1, 1 + EARLIER_OVERVIEWS)) {
    await queue.idle();
    if (closed()) return;
    // a month the warehouse no longer holds (a sync meanwhile) is skipped, not the months after it
    await pages.overview(SELF, month).catch((error: unknown) => {
      if (!(error instanceof NotFoundError)) throw error;
    });
  }
}
