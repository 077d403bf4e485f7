import { mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { BillingReport } from "../../src/billing/billingReport.js";
import { warehouseStatus } from "../../src/sync/warehouseStatus.js";
import { forecast, monthPeriod, open, serveDashboard, type Dashboard, type Store } from "../../src/index.js";
import { isoUtc } from "../../src/base/time.js";
import { describeWith, has } from "../helpers/prerequisites.js";
import { dashboardFixture, type DashboardFixture } from "./dashboardFixture.js";
import { reportFrom } from "../helpers/billFrom.js";

const CHROMIUM = "/usr/bin/chromium";
/** Where the screenshots go (kept after the run, to look at). */
export const SCREENSHOTS = join(tmpdir(), "cloudunits-dashboard-screenshots");
const OCTOBER = monthPeriod("2026-10");
const DAY = 86_400;

/** A figure as the page writes it, as a number: thousands separators and the unit dropped. */
const figure = (text: string | null) => Number((text ?? "").replace(/[,\s]|EUR|CU-hours|SU-hours|TU-hours|TiB/g, ""));

let fixture: DashboardFixture;
let dashboard: Dashboard;
let store: Store;
let browser: Browser;
let report: BillingReport;
beforeAll(async () => {
  if (!has("chromium")) return;
  fixture = await dashboardFixture();
  dashboard = await serveDashboard({ db: fixture.db, port: 0, prices: fixture.prices, names: fixture.names });
  store = await open({ db: fixture.db });
  report = await reportFrom(store.connection, OCTOBER, { names: fixture.names }, { prices: fixture.prices });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
  mkdirSync(SCREENSHOTS, { recursive: true });
}, 180_000);
afterAll(async () => {
  await browser?.close();
  store?.close();
  await dashboard?.close();
  fixture?.remove();
});

/** A new tab that records console errors, page errors and any request that leaves the dashboard. */
async function tab(): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const problems: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") problems.push(m.text());
  });
  page.on("pageerror", (e) => problems.push(String(e)));
  page.on("request", (r) => {
    if (!r.url().startsWith(dashboard.url) && !r.url().startsWith("data:"))
      problems.push(`request outside the dashboard: ${r.url()}`);
  });
  return { page, problems };
}

/** The data of the page's charts: per chart, its x values and each line's values. */
function chartData(page: Page): Promise<(number | null)[][][]> {
  return page.evaluate(() =>
    (globalThis as unknown as { cloudunitsCharts: { data: (number | null)[][] }[] }).cloudunitsCharts.map(
      (u) => u.data,
    ),
  );
}

describeWith("chromium", "the dashboard in headless Chromium", () => {
  it(
    "overview → account → machine: every figure is the library's, nothing is fetched from elsewhere",
    { timeout: 300_000 },
    async () => {
      const { page, problems } = await tab();
      await page.goto(`${dashboard.url}?month=2026-10`);
      // the amount due: the sum of the invoices of `billing --month 2026-10`
      expect(figure(await page.locator("#amount-due .value").textContent())).toBe(Number(report.amountDue!.toFixed(2)));
      expect(figure(await page.locator("#accounts-total").textContent())).toBe(Number(report.amountDue!.toFixed(2)));
      // the accounts, ranked by their amount due
      const rows = await page
        .locator("#accounts tbody tr")
        .evaluateAll((trs) =>
          trs.map((tr) =>
            Array.from(tr.querySelectorAll("td"), (td) => (td as { textContent: string | null }).textContent ?? ""),
          ),
        );
      const invoices = [...report.invoices!].sort(
        (a, b) => Number(b.amountDue.toFixed(2)) - Number(a.amountDue.toFixed(2)),
      );
      expect(rows.map((r) => [Number(r[1]), r[2], figure(r.at(-1)!)])).toEqual(
        invoices.map((inv) => [inv.accountId, `account ${inv.accountId} name`, Number(inv.amountDue.toFixed(2))]),
      );
      // the environment's units, and per day: what billing a day gives
      const environment = report.lines.find((l) => l.level === "environment")!;
      for (const unit of ["CU", "SU", "TU", "NU"] as const) {
        expect(figure(await page.locator(`#env-${unit} .value`).textContent())).toBeCloseTo(
          environment.quantities[unit]!,
          2,
        );
      }
      const charts = await chartData(page);
      expect(charts).toHaveLength(4);
      const [days, cu] = charts[0]!;
      expect(days).toHaveLength(31);
      expect(cu!.reduce((s, v) => s! + v!, 0)).toBeCloseTo(environment.quantities.CU!, 6);
      for (const k of [0, 14, 30]) {
        const day = await store.calculate({ start: OCTOBER.start + k * DAY, end: OCTOBER.start + (k + 1) * DAY });
        expect(days![k]).toBe(OCTOBER.start + k * DAY);
        expect(cu![k]).toBeCloseTo(day.consumption.CU!, 9);
        expect(charts[3]![1]![k]).toBeCloseTo(day.consumption.NU!, 12);
      }
      // freshness: complete until, as status gives it
      const status = await warehouseStatus({ connection: store.connection, db: fixture.db });
      const fresh = await page.locator("#freshness tbody tr td:nth-child(3)").allTextContents();
      expect(fresh).toEqual(status.accounts.map((a) => isoUtc(a.completeUntilEpoch!)));
      await page.screenshot({ path: join(SCREENSHOTS, "overview.png"), fullPage: true });

      // → the top account
      const top = invoices[0]!;
      await page.locator("#accounts tbody tr").first().locator("a").click();
      await page.waitForURL(/\/account\/\d+\?month=2026-10$/);
      expect(page.url()).toContain(`/account/${top.accountId}?`);
      expect(figure(await page.locator("#amount-due").textContent())).toBe(Number(top.amountDue.toFixed(2)));
      const own = await reportFrom(
        store.connection,
        { ...OCTOBER, accountId: top.accountId },
        { names: fixture.names },
        { prices: fixture.prices },
      );
      const machines = own.lines
        .map((l, i) => ({ l, money: own.money![i] }))
        .filter(({ l }) => l.level === "machine" || l.level === "gateway");
      expect(await page.locator("#machines tbody tr").count()).toBe(machines.length);
      // sorted by cost (a click on its heading, twice: descending)
      const costHeading = page.locator("#machines thead th", { hasText: "Cost" });
      await costHeading.click();
      await costHeading.click();
      const costs = (await page.locator("#machines tbody tr td:last-child").allTextContents()).map(figure);
      expect(costs).toEqual(machines.map(({ money }) => Number(money!.amount.toFixed(2))).sort((a, b) => b - a));
      // the allocated CU of the machines adds up to the account's CU, as the library's showback does
      const allocated = (await page.locator("#machines tbody tr td:nth-child(6)").allTextContents()).map(figure);
      const accountCu = own.lines.find((l) => l.level === "account")!.quantities.CU!;
      expect(allocated.reduce((a, b) => a + b, 0)).toBeCloseTo(accountCu, 0);
      expect(figure(await page.locator("#account-CU .value").textContent())).toBeCloseTo(accountCu, 2);
      await page.screenshot({ path: join(SCREENSHOTS, "account.png"), fullPage: true });

      // → its machine with the most CU
      const busiest = machines
        .filter(({ l }) => l.level === "machine")
        .sort((a, b) => b.l.quantities.CU! - a.l.quantities.CU!)[0]!.l;
      await page.locator(`#machines a[href^="/machine/${busiest.machineId}?"]`).click();
      await page.waitForURL(/\/machine\/\d+\?month=2026-10$/);
      const stats = await store.machineStats({
        machineId: busiest.machineId!,
        accountId: top.accountId,
        from: OCTOBER.start,
        till: OCTOBER.end,
        include: ["cpu", "memory", "vdisk-iops", "vm-iops", "vdisk-capacity", "vm-capacity", "network"],
      });
      const series = await chartData(page);
      expect(series).toHaveLength(7);
      const cpu = series[0]!;
      expect(cpu[1]!.filter((v) => v !== null)).toEqual(stats.series.cpu);
      expect(cpu[0]!.filter((_, i) => cpu[1]![i] !== null)).toEqual(stats.time);
      const legends = await page.locator("section.chart").nth(6).locator(".u-legend .u-label").allTextContents();
      expect(legends[0]).toBe("time");
      expect(legends.slice(1).every((l) => /^NIC \d+ (in|out)$/.test(l))).toBe(true);
      await page.screenshot({ path: join(SCREENSHOTS, "machine.png"), fullPage: true });
      expect(problems).toEqual([]);
      await page.close();
    },
  );

  it(
    "a running month's overview shows the month-end forecast beside the amount so far, labelled a forecast",
    { timeout: 120_000 },
    async () => {
      const november = monthPeriod("2026-11");
      const expected = (
        await forecast(store.connection, {
          month: "2026-11",
          prices: fixture.prices,
          options: { names: fixture.names },
        })
      ).entries.find((e) => e.level === "environment")!;
      const soFar = await reportFrom(store.connection, november, { names: fixture.names }, { prices: fixture.prices });
      expect(expected.hoursRemaining).toBeGreaterThan(0); // the fixture ends on November 10th
      const { page, problems } = await tab();
      await page.goto(`${dashboard.url}?month=2026-11`);
      // the amount so far is what is owed for the hours held: the invoices of the month as billed now, and the forecast's month to date
      expect(await page.locator("#amount-due .label").textContent()).toContain("so far");
      expect(figure(await page.locator("#amount-due .value").textContent())).toBe(Number(soFar.amountDue!.toFixed(2)));
      expect(expected.amount!.monthToDate.toFixed(2)).toBe(soFar.amountDue!.toFixed(2));
      // the forecast: the library's projected amount, called a forecast and never an amount due
      const label = await page.locator("#forecast .label").textContent();
      expect(label).toMatch(/^Forecast for the month's end/);
      expect(label).not.toMatch(/amount due/i);
      expect(figure(await page.locator("#forecast .value").textContent())).toBe(
        Number(expected.amount!.projected.toFixed(2)),
      );
      expect(Number(expected.amount!.projected.toFixed(2))).toBeGreaterThan(Number(soFar.amountDue!.toFixed(2)));
      const sub = await page.locator("#forecast .sub").textContent();
      expect(sub).toContain(`for the ${expected.hoursRemaining} h to go`);
      const range = /range ([\d,.]+) to ([\d,.]+) EUR/.exec(sub ?? "");
      expect(range?.slice(1).map(figure)).toEqual([
        Number(expected.amount!.low.toFixed(2)),
        Number(expected.amount!.high.toFixed(2)),
      ]);
      for (const [unit, digits] of [
        ["CU", 2],
        ["NU", 4],
      ] as const) {
        expect(await page.locator(`#forecast-${unit}`).textContent()).toBe(
          `month-end forecast ${expected.projected[unit].toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits })}`,
        );
      }
      await page.screenshot({ path: join(SCREENSHOTS, "overview-running-month.png"), fullPage: true });
      // a month whose hours are all held has nothing to forecast
      await page.goto(`${dashboard.url}?month=2026-10`);
      expect(await page.locator("#forecast").count()).toBe(0);
      expect(problems).toEqual([]);
      await page.close();
    },
  );

  it(
    "marks a machine's halted hours, and a cloud space's, as the warehouse records them",
    { timeout: 120_000 },
    async () => {
      const halted = (
        await store.connection.runAndReadAll(
          "SELECT machine_id, cloudspace_id, count(*) AS n FROM machines WHERE status <> 'RUNNING' AND type = 'vm' AND hour_epoch >= $s AND hour_epoch < $e GROUP BY ALL ORDER BY n DESC LIMIT 1",
          { s: OCTOBER.start, e: OCTOBER.end },
        )
      ).getRowObjectsJS()[0]!;
      const { page, problems } = await tab();
      await page.goto(`${dashboard.url}machine/${halted.machine_id}?month=2026-10`);
      expect(await page.locator("#halted").textContent()).toContain(`: ${Number(halted.n)} h`);
      await page.screenshot({ path: join(SCREENSHOTS, "machine-halted.png"), fullPage: true });
      await page.goto(`${dashboard.url}cloudspace/${halted.cloudspace_id}?month=2026-10`);
      expect(await page.locator(".uplot").count()).toBeGreaterThan(0);
      await page.screenshot({ path: join(SCREENSHOTS, "cloudspace.png"), fullPage: true });
      expect(problems).toEqual([]);
      await page.close();
    },
  );

  it(
    "at a phone's width (390 px) no page scrolls sideways: wide tables scroll in their own box",
    { timeout: 180_000 },
    async () => {
      const machine = Number(
        (
          await store.connection.runAndReadAll("SELECT min(machine_id) FROM machines WHERE type = 'vm'")
        ).getRows()[0]![0],
      );
      const cloudspace = Number(
        (await store.connection.runAndReadAll("SELECT min(cloudspace_id) FROM cloudspaces")).getRows()[0]![0],
      );
      const paths = [
        "?month=2026-10",
        "?month=2026-11",
        "account/1?month=2026-10",
        "account/1?month=2026-11",
        `machine/${machine}?month=2026-10`,
        `cloudspace/${cloudspace}?month=2026-10`,
        "quality",
        "?month=2025-01",
        "no/such/page",
      ];
      const page = await browser.newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
      const problems: string[] = [];
      page.on("pageerror", (e) => problems.push(String(e)));
      const wide: string[] = [];
      for (const path of paths) {
        await page.goto(`${dashboard.url}${path}`);
        const { page: pageWidth, view } = await page.evaluate(() => {
          const d = (
            globalThis as unknown as {
              document: {
                documentElement: { scrollWidth: number; clientWidth: number };
                body: { scrollWidth: number };
              };
            }
          ).document;
          return {
            page: Math.max(d.documentElement.scrollWidth, d.body.scrollWidth),
            view: d.documentElement.clientWidth,
          };
        });
        if (pageWidth > view) wide.push(`${path}: ${pageWidth} px in a ${view} px view`);
        await page.screenshot({
          path: join(SCREENSHOTS, `phone-${path.replace(/[^\w]+/g, "-").replace(/^-|-$/g, "") || "overview"}.png`),
          fullPage: true,
        });
      }
      expect(wide).toEqual([]);
      // the tables are all there, scrolling in their boxes
      await page.goto(`${dashboard.url}account/1?month=2026-10`);
      expect(
        await page.locator("#machines").evaluate((t) => (t as unknown as { scrollWidth: number }).scrollWidth),
      ).toBeGreaterThan(390);
      expect(problems).toEqual([]);
      await page.close();
    },
  );

  it("data quality: each account's missing hours, as status counts them", { timeout: 120_000 }, async () => {
    const { page, problems } = await tab();
    await page.goto(`${dashboard.url}quality`);
    const status = await warehouseStatus({ connection: store.connection, db: fixture.db });
    const missing = (await page.locator("#quality tbody tr td:nth-child(4)").allTextContents()).map(Number);
    expect(missing).toEqual(status.accounts.map((a) => a.missing.reduce((n, s) => n + s.hours, 0)));
    expect(missing.some((n) => n > 0)).toBe(true);
    // named as the names file names them (sync stored none)
    expect(await page.locator("#quality tbody tr td:nth-child(2)").allTextContents()).toEqual(
      status.accounts.map((a) => `account ${a.accountId} name`),
    );
    await page.screenshot({ path: join(SCREENSHOTS, "quality.png"), fullPage: true });
    expect(problems).toEqual([]);
    await page.close();
  });
});
