import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { DashboardPages } from "../../src/serve/dashboardPages.js";
import { WarehouseQueue } from "../../src/serve/warehouseQueue.js";
import { dashboardFixture, FIXTURE_MONTHS, type DashboardFixture } from "./dashboardFixture.js";

const LATEST = FIXTURE_MONTHS.at(-1)!; // the default month of every page

let fixture: DashboardFixture;
beforeAll(async () => {
  fixture = await dashboardFixture();
  vi.spyOn(Date, "now").mockReturnValue(Date.UTC(2026, 11, 3, 12)); // the pages' "Figures computed" time: one for all
}, 120_000);
afterAll(() => {
  vi.restoreAllMocks();
  fixture?.remove();
});

/** A dashboard's pages, with the computations they ran on the warehouse (the client of each), once the ids held are read. */
async function countedPages(): Promise<{ pages: DashboardPages; runs: string[] }> {
  const queue = new WarehouseQueue(fixture.db, 0);
  const runs: string[] = [];
  const run = queue.run.bind(queue);
  queue.run = (client, work) => {
    runs.push(client);
    return run(client, work);
  };
  const pages = new DashboardPages(fixture.db, { prices: fixture.prices }, queue);
  await pages.accountIds("test");
  runs.length = 0;
  return { pages, runs };
}

const text = (answer: { body: string | Buffer }) => answer.body.toString();

describe("DashboardPages: the latest month's page asked as the default and by its month is computed once", () => {
  it("the start's overview and a visitor's /?month= of the latest month while it computes: one computation, the same bytes as the page computed alone", async () => {
    const { pages, runs } = await countedPages();
    const [start, visitor] = await Promise.all([
      pages.overview("dashboard", undefined),
      pages.overview("127.0.0.1", LATEST),
    ]);
    expect(runs).toEqual(["dashboard"]); // it was computed twice, one after the other (the first page waited for both)
    expect(text(visitor)).toBe(text(start));
    const alone = await countedPages();
    expect(text(await alone.pages.overview("127.0.0.1", LATEST))).toBe(text(start));
    expect(text(start)).toContain(`Overview ${LATEST}`);
  });

  it("an account's page asked by its month, then as the default (the start's), and the other way round: one computation each, the same bytes", async () => {
    const { pages, runs } = await countedPages();
    await pages.overview("dashboard", undefined); // the start's first page: the default month is known from it
    runs.length = 0;
    const visitor = await pages.account("127.0.0.1", 1, LATEST);
    const start = await pages.account("dashboard", 1, undefined);
    expect(text(start)).toBe(text(visitor));
    const [startFirst, visitorMeanwhile] = await Promise.all([
      pages.account("dashboard", 2, undefined),
      pages.account("127.0.0.1", 2, LATEST),
    ]);
    expect(text(visitorMeanwhile)).toBe(text(startFirst));
    expect(runs).toEqual(["127.0.0.1", "dashboard"]); // account 1 by the visitor, account 2 by the start
    const alone = await countedPages();
    expect(text(await alone.pages.account("127.0.0.1", 1, undefined))).toBe(text(visitor));
    expect(text(await alone.pages.account("127.0.0.1", 2, LATEST))).toBe(text(startFirst));
    expect(text(visitor)).toContain(`Account 1 ${LATEST}`);
  });

  it("a month's page kept is answered at once while the default month's is computed, without waiting for it", async () => {
    const { pages, runs } = await countedPages();
    const kept = text(await pages.overview("127.0.0.1", FIXTURE_MONTHS[0]));
    const answered: string[] = [];
    const latest = pages.overview("dashboard", undefined).then(() => answered.push("latest"));
    const earlier = pages.overview("127.0.0.1", FIXTURE_MONTHS[0]).then((a) => {
      answered.push("earlier");
      return text(a);
    });
    expect(await earlier).toBe(kept);
    await latest;
    expect(answered).toEqual(["earlier", "latest"]);
    expect(runs).toEqual(["127.0.0.1", "dashboard"]); // the earlier month once, the latest once
  });

  it("an earlier month asked by its month is computed on its own, never answered with the latest's", async () => {
    const { pages, runs } = await countedPages();
    const [latest, earlier] = await Promise.all([
      pages.overview("dashboard", undefined),
      pages.overview("127.0.0.1", FIXTURE_MONTHS[0]),
    ]);
    expect(runs).toEqual(["dashboard", "127.0.0.1"]);
    expect(text(latest)).toContain(`Overview ${LATEST}`);
    expect(text(earlier)).toContain(`Overview ${FIXTURE_MONTHS[0]}`);
  });
});
