import { describe, expect, it } from "vitest";
import type { DashboardPages } from "../../src/serve/dashboardPages.js";
import { NotFoundError } from "../../src/serve/notFound.js";
import { EARLIER_OVERVIEWS, startUp } from "../../src/serve/startUp.js";
import type { WarehouseQueue } from "../../src/serve/warehouseQueue.js";

/** Pages that record what start-up asks of them; `gone`: months whose overview is refused (a sync removed them meanwhile). */
function recordingPages(months: string[], gone: string[] = []) {
  const asked: string[] = [];
  const pages = {
    overview: async (_client: string, month: string | undefined) => {
      asked.push(`overview ${month ?? "latest"}`);
      if (month !== undefined && gone.includes(month))
        throw new NotFoundError(`the warehouse holds no hour of ${month}`);
    },
    quality: async () => void asked.push("quality"),
    accountIds: async () => [1, 2],
    account: async (_client: string, id: number) => void asked.push(`account ${id}`),
    months: async () => months,
  } as unknown as DashboardPages;
  const queue = { idle: async () => undefined } as unknown as WarehouseQueue;
  return { pages, queue, asked };
}

const monthsFrom = (count: number) =>
  Array.from({ length: count }, (_, i) => `${2025 + Math.floor(i / 12)}-${String((i % 12) + 1).padStart(2, "0")}`);

describe("startUp: the pages computed as the dashboard starts", () => {
  it("computes the latest overview, data quality, the accounts' pages, then the earlier months' overviews newest first, at most 12", async () => {
    const months = monthsFrom(20); // 2025-01 .. 2026-08
    const earlier = months.slice(-13, -1).reverse(); // 2026-07 back to 2025-08
    const { pages, queue, asked } = recordingPages(months);
    await startUp(pages, queue, true, () => false);
    expect(EARLIER_OVERVIEWS).toBe(12);
    expect(asked).toEqual([
      "overview latest",
      "quality",
      "account 1",
      "account 2",
      ...earlier.map((m) => `overview ${m}`),
    ]);
  });

  it("skips a month the warehouse no longer holds and goes on with the earlier ones", async () => {
    const { pages, queue, asked } = recordingPages(["2026-08", "2026-09", "2026-10", "2026-11"], ["2026-10"]);
    await startUp(pages, queue, true, () => false);
    expect(asked.filter((a) => a.startsWith("overview 2026"))).toEqual([
      "overview 2026-10",
      "overview 2026-09",
      "overview 2026-08",
    ]);
  });

  it("computes only the latest overview without precompute, and stops once closed", async () => {
    const only = recordingPages(monthsFrom(3));
    await startUp(only.pages, only.queue, false, () => false);
    expect(only.asked).toEqual(["overview latest"]);
    const closed = recordingPages(monthsFrom(3));
    await startUp(closed.pages, closed.queue, true, () => true);
    expect(closed.asked).toEqual(["overview latest"]);
  });
});
