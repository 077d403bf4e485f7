import { ACCOUNT_PAGES, type DashboardPages } from "./dashboardPages.js";
import type { WarehouseQueue } from "./warehouseQueue.js";

/** The client the pages computed at start are computed for: the dashboard itself. */
const SELF = "dashboard";

/**
 * The pages computed as the dashboard starts: the latest month's overview, then (unless
 * `precompute` is false) the data-quality page and the latest month's page of each account
 * (at most `ACCOUNT_PAGES`), one at a time, each only once no request waits (a request goes
 * first); stops when `closed()` says so.
 */
export async function startUp(pages: DashboardPages, queue: WarehouseQueue, precompute: boolean, closed: () => boolean): Promise<void> {
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
}
